import { createPrivateKey } from 'node:crypto'
import { DOMParser } from '@xmldom/xmldom'
import { beforeAll, describe, expect, it } from 'vitest'
import { SignedXml } from 'xml-crypto'
import { samlPair } from '../../scripts/saml-pair.mjs'
import { logoutRequestXml, signedPostValue } from '../../worker-api/services/saml/logout-messages'
import { NAME_ID_FORMATS } from '../../worker-api/services/saml/metadata'
import {
  type AssertionFacts,
  messageId,
  STATUS,
  signedResponse,
  signedStatusResponse,
} from '../../worker-api/services/saml/response'
import type { Signer } from '../../worker-api/services/saml/signature'

/**
 * The portal writes what it signs already in exclusive canonical form and digests that text without parsing it
 * (services/saml/signature.ts). xml-crypto, canonicalising the messages as a verifier does, must find the same digest
 * and signature for every kind of message and every value: quotes, markup, line breaks, tabs, characters XML forbids.
 */
let signer: Signer
let certificate: string

beforeAll(async () => {
  const pair = await samlPair('Portail SAML IdP (signature)')
  signer = { key: createPrivateKey(pair.key), certificate: pair.cert }
  certificate = pair.cert
})

const AWKWARD = `« l'agent » "quoted" <b>&amp;</b> tab\there\r\nline ${'\u0001'}end é 😀`

const facts = (): AssertionFacts => ({
  issuer: 'https://portail.example.test/portail-backend/saml/metadata',
  audience: `https://erp.example.test/sp?x=1&y="2"`,
  destination: 'https://erp.example.test/acs?a=<1>',
  inResponseTo: '_request-1',
  nameId: { format: NAME_ID_FORMATS.persistent, value: AWKWARD },
  sessionIndex: '_session&"42"',
  authnInstant: new Date(Date.now() - 60_000),
  authnContext: 'password',
  attributes: [
    { name: 'postes', values: ['Agence Lille/Agent', AWKWARD] },
    { name: `nom "bizarre" <&>\t`, values: ['x'] },
  ],
  now: new Date(),
})

/** Every signature of the document, each checked by xml-crypto against the element it references. */
function checkedSignatures(xml: string): string[] {
  const document = new DOMParser().parseFromString(xml, 'text/xml')
  const signatures = Array.from(
    document.getElementsByTagNameNS('http://www.w3.org/2000/09/xmldsig#', 'Signature') as unknown as ArrayLike<Node>,
  )
  return signatures.map((signature) => {
    const check = new SignedXml({ publicCert: certificate, getCertFromKeyInfo: () => null })
    check.loadSignature(signature)
    expect(check.checkSignature(xml), 'the signature checks with xml-crypto’s canonicalisation').toBe(true)
    return check.getReferences()[0]?.uri ?? ''
  })
}

describe('signatures made from canonical templates', () => {
  it.each([
    { assertion: true, response: false },
    { assertion: false, response: true },
    { assertion: true, response: true },
  ])('check with xml-crypto: %o', (sign) => {
    const xml = signedResponse(facts(), signer, sign)
    const references = checkedSignatures(xml)
    expect(references).toHaveLength(Number(sign.assertion) + Number(sign.response))
    // Changed after signing: refused.
    const changed = xml.replace('Agence Lille/Agent', 'Direction/Directeur')
    expect(() => checkedSignatures(changed)).toThrow()
  })

  it('keep every value as it was given, the characters XML forbids left out', () => {
    const xml = signedResponse(facts(), signer, { assertion: true, response: false })
    const document = new DOMParser().parseFromString(xml, 'text/xml')
    const values = Array.from(
      document.getElementsByTagNameNS(
        'urn:oasis:names:tc:SAML:2.0:assertion',
        'AttributeValue',
      ) as unknown as ArrayLike<{
        textContent: string
      }>,
    ).map((value) => value.textContent)
    expect(values).toEqual(['Agence Lille/Agent', AWKWARD.replace('\u0001', ''), 'x'])
  })

  it('check with xml-crypto for a status response and a logout request sent by HTTP-POST', () => {
    const status = signedStatusResponse(
      {
        issuer: 'https://portail.example.test/idp',
        destination: 'https://sp/acs',
        inResponseTo: '_r',
        now: new Date(),
      },
      signer,
      STATUS.noPassive,
    )
    expect(checkedSignatures(status)).toHaveLength(1)
    const id = messageId()
    const request = logoutRequestXml(id, {
      issuer: 'https://portail.example.test/idp',
      destination: 'https://sp/logout',
      audience: 'https://sp/metadata',
      nameId: { format: NAME_ID_FORMATS.transient, value: AWKWARD },
      sessionIndex: '_s1',
      now: new Date(),
    })
    const posted = Buffer.from(signedPostValue(request, id, signer), 'base64').toString('utf8')
    expect(checkedSignatures(posted)).toEqual([`#${id}`])
  })
})
