import { env } from 'cloudflare:test'
import { Buffer } from 'node:buffer'
import { createPrivateKey, createSign } from 'node:crypto'
import { deflateRawSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { SignedXml } from 'xml-crypto'
import { type KnownServiceProvider, readAuthnRequest } from '../../../worker-api/services/saml/authn-request'

/**
 * The authentication requests, read in the Worker's runtime (workerd: its node:zlib, node:crypto and xml-crypto), as a
 * service provider signs them by HTTP-Redirect and by HTTP-POST. The independent library's requests are in
 * tests/unit/saml-requests.test.ts.
 */
const SSO = 'http://localhost:8787/portail-backend/saml/sso'
const SP = 'https://erp.example.test/mellon/metadata'
const ACS = 'https://erp.example.test/mellon/postResponse'
const [, PAIR] = env.TEST_SAML_PAIRS
const key = createPrivateKey(PAIR.key)
const sp: KnownServiceProvider = {
  entityId: SP,
  assertionConsumerServices: [{ url: ACS, index: 0 }],
  certificates: [PAIR.cert.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '')],
  authnRequestsSigned: true,
}
const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256'

const request = (id: string) =>
  `<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${id}" Version="2.0" IssueInstant="${new Date().toISOString()}" Destination="${SSO}" AssertionConsumerServiceURL="${ACS}" ProtocolBinding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"><saml:Issuer>${SP}</saml:Issuer></samlp:AuthnRequest>`

const read = (message: Parameters<typeof readAuthnRequest>[0]) =>
  readAuthnRequest(message, (entityId) => (entityId === SP ? sp : null), { destination: SSO, now: new Date() }).request

describe('an authentication request read in the Worker', () => {
  it('by HTTP-Redirect, deflated and signed over its query', () => {
    const query = [
      `SAMLRequest=${encodeURIComponent(deflateRawSync(Buffer.from(request('_r1'))).toString('base64'))}`,
      `RelayState=${encodeURIComponent('/compta')}`,
      `SigAlg=${encodeURIComponent(RSA_SHA256)}`,
    ].join('&')
    const signature = createSign('RSA-SHA256').update(query).sign(key).toString('base64')
    const signed = `${query}&Signature=${encodeURIComponent(signature)}`
    expect(read({ binding: 'redirect', query: signed })).toMatchObject({
      id: '_r1',
      acsUrl: ACS,
      relayState: '/compta',
      signed: true,
    })
    expect(() =>
      read({ binding: 'redirect', query: signed.replace('RelayState=%2Fcompta', 'RelayState=%2Fadmin') }),
    ).toThrow(/signature/)
  })

  it('by HTTP-POST, with its enveloped signature', () => {
    const signer = new SignedXml({
      privateKey: key,
      signatureAlgorithm: RSA_SHA256,
      canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
    })
    signer.addReference({
      xpath: "//*[@ID='_r2']",
      digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
      transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    })
    signer.computeSignature(request('_r2'), {
      prefix: 'ds',
      location: { reference: "//*[local-name(.)='Issuer']", action: 'after' },
    })
    const xml = signer.getSignedXml()
    const form = (text: string) =>
      ({ binding: 'post', form: { SAMLRequest: Buffer.from(text).toString('base64') } }) as const
    expect(read(form(xml))).toMatchObject({ id: '_r2', acsUrl: ACS, signed: true })
    expect(() => read(form(xml.replace(`ID="_r2"`, `ID="_r2" ForceAuthn="true"`)))).toThrow(/signature/)
  })
})
