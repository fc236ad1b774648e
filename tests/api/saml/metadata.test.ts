import { env } from 'cloudflare:test'
import { DOMParser } from '@xmldom/xmldom'
import { describe, expect, it } from 'vitest'
import { configurationProblems } from '../../../worker-api/env'
import { call, ORIGIN } from '../helpers'

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata'
const DS = 'http://www.w3.org/2000/09/xmldsig#'
const [NEXT, SP] = env.TEST_SAML_PAIRS

/** A certificate's base64 as metadata carries it. */
const body = (pem: string) => pem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '')

async function metadata(init: Parameters<typeof call>[1] = {}) {
  const response = await call('/saml/metadata', init)
  expect(response.status).toBe(200)
  expect(response.headers.get('Content-Type')).toBe('application/samlmetadata+xml; charset=utf-8')
  const document = new DOMParser().parseFromString(await response.text(), 'text/xml')
  const all = (ns: string, name: string) => Array.from(document.getElementsByTagNameNS(ns, name))
  const services = (name: string) =>
    all(MD, name).map((e) => [e.getAttribute('Binding'), e.getAttribute('Location')] as const)
  return {
    response,
    entityId: document.documentElement?.getAttribute('entityID'),
    certificates: all(DS, 'X509Certificate').map((e) => e.textContent),
    uses: all(MD, 'KeyDescriptor').map((e) => e.getAttribute('use')),
    sso: services('SingleSignOnService'),
    slo: services('SingleLogoutService'),
    formats: all(MD, 'NameIDFormat').map((e) => e.textContent),
    signedRequests: all(MD, 'IDPSSODescriptor')[0]?.getAttribute('WantAuthnRequestsSigned'),
  }
}

describe('GET /portail-backend/saml/metadata', () => {
  it('describes the identity provider: its entityID is that URL, its certificate, its services and name formats', async () => {
    const read = await metadata()
    const base = `${ORIGIN}/portail-backend/saml`
    expect(read.entityId).toBe(`${base}/metadata`)
    expect(read.certificates).toEqual([body(env.SAML_IDP_CERT as string)])
    expect(read.uses).toEqual(['signing'])
    const redirect = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect'
    const post = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST'
    expect(read.sso).toEqual([
      [redirect, `${base}/sso`],
      [post, `${base}/sso`],
    ])
    expect(read.slo).toEqual([
      [redirect, `${base}/slo`],
      [post, `${base}/slo`],
    ])
    expect(read.formats).toEqual([
      'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
      'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
      'urn:oasis:names:tc:SAML:2.0:nameid-format:transient',
    ])
    expect(read.signedRequests).toBe('false')
    expect(read.response.headers.get('Cache-Control')).toBe('public, max-age=300')
    expect(read.response.headers.get('Vary')).toBe('Host')
  })

  it('names the origin the request came to', async () => {
    const read = await metadata({ origin: 'https://portail.example.test' })
    expect(read.entityId).toBe('https://portail.example.test/portail-backend/saml/metadata')
    expect(read.sso[0]?.[1]).toBe('https://portail.example.test/portail-backend/saml/sso')
  })

  it('publishes a second certificate during a rotation, the current one first', async () => {
    const read = await metadata({ env: { SAML_IDP_CERT_NEXT: NEXT.cert } })
    expect(read.certificates).toEqual([body(env.SAML_IDP_CERT as string), body(NEXT.cert)])
    expect(read.uses).toEqual(['signing', 'signing'])
  })

  it('answers 404 while SAML has no key', async () => {
    const response = await call('/saml/metadata', { env: { SAML_IDP_KEY: undefined, SAML_IDP_CERT: undefined } })
    expect(response.status).toBe(404)
  })
})

describe('the SAML settings', () => {
  const problems = (overrides: Partial<typeof env>) =>
    configurationProblems({ ...env, ...overrides }).filter((p) => p.startsWith('SAML'))

  it('accepts the key with its certificate, a next certificate, or neither', () => {
    expect(problems({})).toEqual([])
    expect(problems({ SAML_IDP_CERT_NEXT: NEXT.cert })).toEqual([])
    expect(problems({ SAML_IDP_KEY: undefined, SAML_IDP_CERT: undefined })).toEqual([])
    // A PEM written on one line, its breaks as \n (a .dev.vars line).
    expect(problems({ SAML_IDP_KEY: (env.SAML_IDP_KEY as string).replaceAll('\n', '\\n') })).toEqual([])
  })

  it('refuses a key without its certificate, another key’s certificate, a key that is not RSA, text that is no PEM', () => {
    expect(problems({ SAML_IDP_CERT: undefined })).toEqual([
      'SAML_IDP_KEY and SAML_IDP_CERT are set together or not at all',
    ])
    expect(problems({ SAML_IDP_CERT: SP.cert })).toEqual(['SAML_IDP_CERT is not the certificate of SAML_IDP_KEY'])
    expect(problems({ SAML_IDP_KEY: 'not a key' })).toEqual([
      'SAML_IDP_KEY must be an RSA private key of 2048+ bits, PKCS#8 PEM (see README, "SAML 2.0")',
    ])
    expect(problems({ SAML_IDP_CERT_NEXT: 'not a certificate' })).toEqual([
      'SAML_IDP_CERT_NEXT must be an X.509 certificate, PEM',
    ])
    expect(problems({ SAML_IDP_KEY: undefined, SAML_IDP_CERT: undefined, SAML_IDP_CERT_NEXT: NEXT.cert })).toEqual([
      'SAML_IDP_CERT_NEXT is set without SAML_IDP_KEY and SAML_IDP_CERT',
    ])
  })
})
