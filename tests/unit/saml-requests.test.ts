import { deflateRawSync, inflateRawSync } from 'node:zlib'
import { SAML } from '@node-saml/node-saml'
import { beforeAll, describe, expect, it } from 'vitest'
import { SignedXml } from 'xml-crypto'
import { samlPair } from '../../scripts/saml-pair.mjs'
import { parseSpMetadata } from '../../worker-api/lib/saml/sp-metadata'
import {
  type KnownServiceProvider,
  REQUEST_MAX_AGE_SECONDS,
  readAuthnRequest,
  type SsoMessage,
} from '../../worker-api/services/saml/authn-request'

/**
 * What the portal reads from service providers: their metadata, and their authentication requests by HTTP-Redirect and
 * HTTP-POST, made by an independent SAML library (node-saml, a service provider's), signed or not.
 */
const SSO = 'https://portail.example.test/portail-backend/saml/sso'
const SP = 'https://erp.example.test/mellon/metadata'
const ACS = 'https://erp.example.test/mellon/postResponse'

let sp: { key: string; cert: string }
let stranger: { key: string; cert: string }
const body = (pem: string) => pem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '')

beforeAll(async () => {
  sp = await samlPair('ERP (unit)')
  stranger = await samlPair('Someone else (unit)')
})

/** node-saml as the application's service provider, signing with `key` when given. */
const serviceProvider = (options: { key?: string; binding?: 'HTTP-POST' | 'HTTP-Redirect'; acs?: string } = {}) =>
  new SAML({
    issuer: SP,
    callbackUrl: options.acs ?? ACS,
    logoutCallbackUrl: 'https://erp.example.test/mellon/logout',
    entryPoint: SSO,
    idpCert: sp.cert,
    audience: SP,
    privateKey: options.key,
    signatureAlgorithm: 'sha256',
    digestAlgorithm: 'sha256',
    authnRequestBinding: options.binding ?? 'HTTP-Redirect',
  })

/** What the portal knows of the ERP: its metadata, as node-saml publishes it. */
const known = (overrides: Partial<KnownServiceProvider> = {}): KnownServiceProvider => ({
  entityId: SP,
  assertionConsumerServices: [{ url: ACS, index: 0 }],
  certificates: [body(sp.cert)],
  authnRequestsSigned: true,
  ...overrides,
})

async function redirectRequest(options: Parameters<typeof serviceProvider>[0] = {}, relayState = '/compta/factures') {
  const url = new URL(await serviceProvider(options).getAuthorizeUrlAsync(relayState, undefined, {}))
  return { binding: 'redirect', query: url.search.slice(1) } as const
}

/** An attribute's value as the form's HTML escapes it. */
const unescapeHtml = (value: string) =>
  value
    .replace(/&#x([0-9a-f]+);/gi, (_, hex) => String.fromCodePoint(Number.parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_, decimal) => String.fromCodePoint(Number(decimal)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')

async function postRequest(options: Parameters<typeof serviceProvider>[0] = {}) {
  const html = await serviceProvider({ ...options, binding: 'HTTP-POST' }).getAuthorizeFormAsync(
    '/compta',
    undefined,
    {},
  )
  const field = (name: string) => unescapeHtml(new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '')
  return { binding: 'post', form: { SAMLRequest: field('SAMLRequest'), RelayState: field('RelayState') } } as const
}

const read = (message: SsoMessage, spAs = known(), now = new Date()) =>
  readAuthnRequest(message, (entityId) => (entityId === spAs.entityId ? spAs : null), { destination: SSO, now })

const reason = (attempt: () => unknown) => {
  try {
    attempt()
  } catch (error) {
    return (error as { reason?: string }).reason
  }
  return 'accepted'
}

describe("a service provider's metadata", () => {
  it('gives its entityID, where responses go, where logouts go, its certificate and whether it signs', () => {
    const xml = serviceProvider({ key: sp.key }).generateServiceProviderMetadata(null, sp.cert)
    expect(parseSpMetadata(xml)).toEqual({
      entityId: SP,
      assertionConsumerServices: [{ url: ACS, index: 1 }],
      singleLogoutService: { url: 'https://erp.example.test/mellon/logout', binding: 'HTTP-POST' },
      certificates: [body(sp.cert)],
      authnRequestsSigned: true,
    })
  })

  it('reads mod_auth_mellon’s: the default service first, Redirect logout preferred, the signing certificate only', () => {
    const xml = `<?xml version="1.0"?>
<EntityDescriptor entityID="${SP}" xmlns="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#">
  <SPSSODescriptor AuthnRequestsSigned="true" WantAssertionsSigned="true" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>
${body(sp.cert)
  .match(/.{1,64}/g)
  ?.join('\n')}
    </ds:X509Certificate></ds:X509Data></ds:KeyInfo></KeyDescriptor>
    <KeyDescriptor use="encryption"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${body(stranger.cert)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></KeyDescriptor>
    <SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:SOAP" Location="https://erp.example.test/mellon/logout"/>
    <SingleLogoutService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://erp.example.test/mellon/logout"/>
    <NameIDFormat>urn:oasis:names:tc:SAML:2.0:nameid-format:transient</NameIDFormat>
    <AssertionConsumerService index="0" Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Artifact" Location="https://erp.example.test/mellon/artifactResponse"/>
    <AssertionConsumerService index="1" Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://erp.example.test/mellon/postResponse"/>
    <AssertionConsumerService index="2" isDefault="true" Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://erp.example.test/mellon/paosResponse2"/>
  </SPSSODescriptor>
</EntityDescriptor>`
    expect(parseSpMetadata(xml)).toEqual({
      entityId: SP,
      assertionConsumerServices: [
        { url: 'https://erp.example.test/mellon/paosResponse2', index: 2 },
        { url: ACS, index: 1 },
      ],
      singleLogoutService: { url: 'https://erp.example.test/mellon/logout', binding: 'HTTP-Redirect' },
      certificates: [body(sp.cert)],
      authnRequestsSigned: true,
    })
  })

  it('keeps a key without `use` (signing and encryption both); refuses an address a browser cannot be sent to, a weak key', async () => {
    const withoutUse = serviceProvider({ key: sp.key })
      .generateServiceProviderMetadata(null, sp.cert)
      .replace(/<KeyDescriptor use="signing">/, '<KeyDescriptor>')
    expect(withoutUse).not.toContain('use="signing"')
    expect(parseSpMetadata(withoutUse).certificates).toEqual([body(sp.cert)])
    const metadata = serviceProvider().generateServiceProviderMetadata(null, sp.cert)
    for (const url of [
      'javascript:alert(document.domain)',
      '/acs',
      'data:text/html,x',
      'http://erp.example.test/acs',
    ]) {
      expect([url, reason(() => parseSpMetadata(metadata.replace(ACS, url)))]).toEqual([url, 'NOT_METADATA'])
    }
    const weak = await samlPair('Weak (unit)', 30, 1024)
    expect(
      reason(() =>
        parseSpMetadata(serviceProvider({ key: weak.key }).generateServiceProviderMetadata(null, weak.cert)),
      ),
    ).toBe('NOT_METADATA')
  })

  it('refuses a DOCTYPE, what is not one entity, a service provider without an HTTP-POST service, a file too large', () => {
    const metadata = serviceProvider().generateServiceProviderMetadata(null)
    const refusal = (xml: string) => reason(() => parseSpMetadata(xml))
    expect(
      refusal(`<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>${metadata.replace(/^<\?xml[^>]*>/, '')}`),
    ).toBe('MALFORMED')
    expect(refusal('<EntitiesDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata"/>')).toBe('NOT_METADATA')
    expect(refusal(metadata.replace(/urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST/g, 'urn:x'))).toBe('NOT_METADATA')
    expect(refusal('<EntityDescriptor')).toBe('MALFORMED')
    expect(refusal(`${metadata}<!--${'x'.repeat(70_000)}-->`)).toBe('TOO_LARGE')
  })
})

describe('an authentication request by HTTP-Redirect', () => {
  it('is read signed: its ID, issuer, where the answer goes, its RelayState', async () => {
    const { request } = read(await redirectRequest({ key: sp.key }))
    expect(request).toMatchObject({
      issuer: SP,
      acsUrl: ACS,
      relayState: '/compta/factures',
      signed: true,
      forceAuthn: false,
      isPassive: false,
      nameIdFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
    })
    expect(request.id).toMatch(/^_/)
  })

  it('is read unsigned from a service provider that does not sign, and refused from one that does', async () => {
    const unsigned = await redirectRequest()
    expect(read(unsigned, known({ authnRequestsSigned: false })).request.signed).toBe(false)
    expect(reason(() => read(unsigned))).toBe('UNSIGNED')
  })

  it('is refused signed by another key, changed after signing, or signed with SHA-1', async () => {
    const foreign = await redirectRequest({ key: stranger.key })
    expect(reason(() => read(foreign))).toBe('BAD_SIGNATURE')
    const signed = await redirectRequest({ key: sp.key })
    const changed = { ...signed, query: signed.query.replace(/RelayState=[^&]*/, 'RelayState=%2Fadmin') }
    expect(reason(() => read(changed))).toBe('BAD_SIGNATURE')
    const sha1 = {
      ...signed,
      query: signed.query.replace(
        /SigAlg=[^&]*/,
        `SigAlg=${encodeURIComponent('http://www.w3.org/2000/09/xmldsig#rsa-sha1')}`,
      ),
    }
    expect(reason(() => read(sha1))).toBe('UNSUPPORTED')
  })

  it('is refused from an unknown service provider, to an unregistered address, too old, or addressed elsewhere', async () => {
    const signed = await redirectRequest({ key: sp.key })
    expect(reason(() => read(signed, known({ entityId: 'https://other.example.test' })))).toBe('UNKNOWN_SP')
    const elsewhere = await redirectRequest({ key: sp.key, acs: 'https://evil.example.test/acs' })
    expect(reason(() => read(elsewhere))).toBe('ACS_NOT_REGISTERED')
    const later = new Date(Date.now() + (REQUEST_MAX_AGE_SECONDS + 120) * 1000)
    expect(reason(() => read(signed, known(), later))).toBe('TOO_OLD')
    expect(
      reason(() =>
        readAuthnRequest(signed, () => known(), { destination: 'https://other.example.test/sso', now: new Date() }),
      ),
    ).toBe('MALFORMED')
  })

  it('is read without the optional attributes: the default service, or the one its index names', () => {
    const bare = (attributes: string) =>
      ({
        binding: 'redirect',
        query: `SAMLRequest=${encodeURIComponent(
          deflateRawSync(
            `<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_bare" Version="2.0" IssueInstant="${new Date().toISOString()}"${attributes}><saml:Issuer>${SP}</saml:Issuer><samlp:NameIDPolicy AllowCreate="true"/></samlp:AuthnRequest>`,
          ).toString('base64'),
        )}`,
      }) as const
    const two = known({
      authnRequestsSigned: false,
      assertionConsumerServices: [
        { url: ACS, index: 3 },
        { url: 'https://erp.example.test/second', index: 7 },
      ],
    })
    expect(read(bare(''), two).request).toMatchObject({ acsUrl: ACS, nameIdFormat: null, signed: false })
    expect(read(bare(' AssertionConsumerServiceIndex="7"'), two).request.acsUrl).toBe('https://erp.example.test/second')
  })

  it('is refused, never failing, with a badly encoded parameter name', async () => {
    const signed = await redirectRequest({ key: sp.key })
    expect(reason(() => read({ ...signed, query: `%=1&${signed.query}` }))).toBe('MALFORMED')
    expect(reason(() => read({ ...signed, query: `${signed.query}&%E0%A4%A=1` }))).toBe('MALFORMED')
  })

  it('is refused when it inflates beyond 16 KiB, or is no request at all', () => {
    const bomb = deflateRawSync(Buffer.from(`<samlp:AuthnRequest>${' '.repeat(1_000_000)}`)).toString('base64')
    expect(reason(() => read({ binding: 'redirect', query: `SAMLRequest=${encodeURIComponent(bomb)}` }))).toBe(
      'MALFORMED',
    )
    expect(reason(() => read({ binding: 'redirect', query: 'RelayState=x' }))).toBe('NOT_A_REQUEST')
    expect(reason(() => read({ binding: 'redirect', query: 'SAMLRequest=%%%' }))).toBe('MALFORMED')
  })
})

const resend = (text: string) =>
  ({ binding: 'post', form: { SAMLRequest: Buffer.from(text).toString('base64') } }) as const

describe('an authentication request by HTTP-POST', () => {
  it('is refused, never failing, with a broken signature, one over a SHA-1 digest, or a field that is no text', async () => {
    const request = `<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_x1" Version="2.0" IssueInstant="${new Date().toISOString()}"><saml:Issuer>${SP}</saml:Issuer>`
    const broken = `${request}<ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:SignedInfo><ds:SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"/></ds:SignedInfo></ds:Signature></samlp:AuthnRequest>`
    expect(reason(() => read(resend(broken)))).toBe('BAD_SIGNATURE')

    const sha1 = new SignedXml({
      privateKey: sp.key,
      signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
      canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
    })
    sha1.addReference({
      xpath: "//*[@ID='_x1']",
      digestAlgorithm: 'http://www.w3.org/2000/09/xmldsig#sha1',
      transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    })
    sha1.computeSignature(`${request}</samlp:AuthnRequest>`, {
      prefix: 'ds',
      location: { reference: "//*[local-name(.)='Issuer']", action: 'after' },
    })
    expect(reason(() => read(resend(sha1.getSignedXml())))).toBe('UNSUPPORTED')

    const file = { binding: 'post', form: { SAMLRequest: new Blob(['x']) as unknown as string } } as const
    expect(reason(() => read(file))).toBe('NOT_A_REQUEST')
  })

  it('is read with its enveloped signature', async () => {
    const { request } = read(await postRequest({ key: sp.key }))
    expect(request).toMatchObject({ issuer: SP, acsUrl: ACS, relayState: '/compta', signed: true })
  })

  it('is refused changed after signing, signed by another key, or wrapped around its signed copy', async () => {
    const signed = await postRequest({ key: sp.key })
    // node-saml deflates it; the binding's own form, the XML in base64, is what is sent again.
    const xml = inflateRawSync(Buffer.from(signed.form.SAMLRequest as string, 'base64')).toString()
    expect(read(resend(xml)).request.signed).toBe(true)
    expect(reason(() => read(resend(xml.replace(ACS, 'https://evil.example.test/acs'))))).toBe('BAD_SIGNATURE')
    const foreign = await postRequest({ key: stranger.key })
    expect(reason(() => read(foreign))).toBe('BAD_SIGNATURE')

    // A forged request with the same ID, the signed original tucked inside it.
    const id = /ID="([^"]+)"/.exec(xml)?.[1] as string
    const original = xml.replace(/^<\?xml[^>]*>/, '')
    const forged = `<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${id}" Version="2.0" IssueInstant="${new Date().toISOString()}" AssertionConsumerServiceURL="https://evil.example.test/acs"><saml:Issuer>${SP}</saml:Issuer><samlp:Extensions>${original}</samlp:Extensions></samlp:AuthnRequest>`
    expect(reason(() => read(resend(forged)))).toBe('BAD_SIGNATURE')
    // The same, its signature moved up to the forged request: it references an ID two elements carry.
    const signature = /<(\w+:)?Signature[\s\S]*<\/(\w+:)?Signature>/.exec(original)?.[0] as string
    const moved = forged
      .replace(original, original.replace(signature, ''))
      .replace(`<saml:Issuer>${SP}</saml:Issuer>`, `<saml:Issuer>${SP}</saml:Issuer>${signature}`)
    expect(moved).toContain('Extensions')
    expect(reason(() => read(resend(moved)))).toBe('BAD_SIGNATURE')
  })
})
