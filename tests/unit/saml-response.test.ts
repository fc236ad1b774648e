import { createPrivateKey } from 'node:crypto'
import { SAML, ValidateInResponseTo } from '@node-saml/node-saml'
import { beforeAll, describe, expect, it } from 'vitest'
import { samlPair } from '../../scripts/saml-pair.mjs'
import { NAME_ID_FORMATS } from '../../worker-api/services/saml/metadata'
import {
  ASSERTION_LIFETIME_SECONDS,
  type AssertionFacts,
  AUTHN_CONTEXTS,
  type Signer,
  signedResponse,
} from '../../worker-api/services/saml/response'

/**
 * The portal's signed responses, read by an independent SAML library (node-saml, a service provider's): what it
 * accepts, and what it refuses once anything signed is changed.
 */
const IDP = 'https://portail.example.test/portail-backend/saml/metadata'
const SP = 'https://erp.example.test/mellon/metadata'
const ACS = 'https://erp.example.test/mellon/postResponse'

let signer: Signer
let idpCert: string
let otherCert: string

beforeAll(async () => {
  const pair = await samlPair('Portail SAML IdP (unit)')
  signer = { key: createPrivateKey(pair.key), certificate: pair.cert }
  idpCert = pair.cert
  otherCert = (await samlPair('Another IdP')).cert
})

const facts = (overrides: Partial<AssertionFacts> = {}): AssertionFacts => ({
  issuer: IDP,
  audience: SP,
  destination: ACS,
  inResponseTo: '_request-1',
  nameId: { format: NAME_ID_FORMATS.email, value: 'agent@example.test' },
  sessionIndex: 'session-42',
  authnInstant: new Date(Date.now() - 60_000),
  authnContext: 'multiFactor',
  attributes: [
    { name: 'mail', values: ['agent@example.test'] },
    { name: 'postes', values: ['Agence Lille/Agent', 'Direction Nord/Référent <&>'] },
    { name: 'vide', values: [] },
    // A line break kept as it is, a character XML 1.0 forbids left out (a libxml2 reader would refuse the response).
    { name: 'adresse', values: ['1 quai\r\nLille\u0001'] },
  ],
  now: new Date(),
  ...overrides,
})

/** A service provider as node-saml is one, expecting what `wants` says signed. */
async function serviceProvider(wants: { assertion: boolean; response: boolean }, cert = idpCert) {
  const saml = new SAML({
    issuer: SP,
    audience: SP,
    callbackUrl: ACS,
    idpCert: cert,
    idpIssuer: IDP,
    wantAssertionsSigned: wants.assertion,
    wantAuthnResponseSigned: wants.response,
    validateInResponseTo: ValidateInResponseTo.always,
    acceptedClockSkewMs: 0,
  })
  await saml.cacheProvider.saveAsync('_request-1', new Date().toISOString())
  return saml
}

const posted = (xml: string) => ({ SAMLResponse: Buffer.from(xml).toString('base64') })

describe('a signed SAML response, as a service provider reads it', () => {
  it.each([
    { assertion: true, response: false },
    { assertion: false, response: true },
    { assertion: true, response: true },
  ])('is accepted signed as %o, with its subject, session, context and attributes', async (sign) => {
    const xml = signedResponse(facts(), signer, sign)
    const { profile } = await (await serviceProvider(sign)).validatePostResponseAsync(posted(xml))
    expect(profile).toMatchObject({
      issuer: IDP,
      nameID: 'agent@example.test',
      nameIDFormat: NAME_ID_FORMATS.email,
      sessionIndex: 'session-42',
      inResponseTo: '_request-1',
      mail: 'agent@example.test',
      postes: ['Agence Lille/Agent', 'Direction Nord/Référent <&>'],
      adresse: '1 quai\r\nLille',
    })
    expect(profile).not.toHaveProperty('vide')
    expect(xml).toContain(`<saml:AuthnContextClassRef>${AUTHN_CONTEXTS.multiFactor}</saml:AuthnContextClassRef>`)
    expect(xml).toContain('SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"')
    expect(xml).toContain('CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"')
  })

  it('is refused once anything signed is changed, or signed by another key', async () => {
    const xml = signedResponse(facts(), signer, { assertion: true, response: false })
    const sp = await serviceProvider({ assertion: true, response: false })
    for (const tampered of [
      xml.replace('>agent@example.test</saml:NameID>', '>admin@example.test</saml:NameID>'),
      xml.replace('Agence Lille/Agent', 'Direction Nord/Administrateur'),
      xml.replace(`<saml:Audience>${SP}`, '<saml:Audience>https://other.example.test'),
    ]) {
      expect(tampered).not.toBe(xml)
      await expect(sp.validatePostResponseAsync(posted(tampered))).rejects.toThrow()
    }
    const foreign = await serviceProvider({ assertion: true, response: false }, otherCert)
    await expect(foreign.validatePostResponseAsync(posted(xml))).rejects.toThrow(/signature/i)
  })

  it('is refused unsigned where the service provider wants it signed', async () => {
    const xml = signedResponse(facts(), signer, { assertion: false, response: true })
    const sp = await serviceProvider({ assertion: true, response: false })
    await expect(sp.validatePostResponseAsync(posted(xml))).rejects.toThrow()
  })

  it('is refused by another audience, and once its lifetime has passed', async () => {
    const xml = signedResponse(facts({ audience: 'https://other.example.test' }), signer, {
      assertion: true,
      response: false,
    })
    await expect(
      (await serviceProvider({ assertion: true, response: false })).validatePostResponseAsync(posted(xml)),
    ).rejects.toThrow(/audience/i)
    const old = signedResponse(facts({ now: new Date(Date.now() - (ASSERTION_LIFETIME_SECONDS + 1) * 1000) }), signer, {
      assertion: true,
      response: false,
    })
    await expect(
      (await serviceProvider({ assertion: true, response: false })).validatePostResponseAsync(posted(old)),
    ).rejects.toThrow(/subject confirmation|expired/i)
  })

  it('answers a request by its ID, and a launch with none', async () => {
    const unsolicited = signedResponse(facts({ inResponseTo: null }), signer, { assertion: true, response: false })
    expect(unsolicited).not.toContain('InResponseTo')
    const sp = new SAML({
      issuer: SP,
      audience: SP,
      callbackUrl: ACS,
      idpCert,
      wantAuthnResponseSigned: false,
      validateInResponseTo: ValidateInResponseTo.ifPresent,
    })
    const { profile } = await sp.validatePostResponseAsync(posted(unsolicited))
    expect(profile?.nameID).toBe('agent@example.test')
  })
})
