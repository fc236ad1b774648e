import { Buffer } from 'node:buffer'
import { createVerify } from 'node:crypto'
import { inflateRawSync } from 'node:zlib'
import { SignedXml } from 'xml-crypto'
import type { ServiceProviderMetadata } from '../../lib/saml/sp-metadata'
import {
  attribute,
  children,
  parseXml,
  SAML_BINDINGS,
  SAML_NS,
  SamlInputError,
  text,
  type XmlElement,
} from '../../lib/saml/xml'
import { certificatePublicKey } from '../../lib/saml-keys'

/** The largest request the portal reads, encoded and once inflated (a request is a few kilobytes). */
export const REQUEST_MAX_BYTES = 16 * 1024
/** How old a request may be when it arrives, and how far ahead of the portal's clock its sender's may be. */
export const REQUEST_MAX_AGE_SECONDS = 300
export const REQUEST_CLOCK_SKEW_SECONDS = 60
/** The most elements a request may have (a request has about ten; each costs its signature check a scan). */
export const REQUEST_MAX_ELEMENTS = 200
/** The longest RelayState passed back to the service provider. */
export const RELAY_STATE_MAX = 2000

/** The signature algorithms accepted on a request: RSA with SHA-256 or SHA-512 (never SHA-1). */
const SIGNATURE_ALGORITHMS: Record<string, string> = {
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256': 'RSA-SHA256',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512': 'RSA-SHA512',
}
/** The digests and transforms accepted in a request's enveloped signature. */
const DIGEST_ALGORITHMS = ['http://www.w3.org/2001/04/xmlenc#sha256', 'http://www.w3.org/2001/04/xmlenc#sha512']
const TRANSFORMS = [
  'http://www.w3.org/2000/09/xmldsig#enveloped-signature',
  'http://www.w3.org/2001/10/xml-exc-c14n#',
  'http://www.w3.org/2001/10/xml-exc-c14n#WithComments',
]

/** The entries of an algorithm table kept for these names. */
const pick = <T extends Record<string, unknown>>(table: T, names: string[]) =>
  Object.fromEntries(Object.entries(table).filter(([name]) => names.includes(name))) as T

/** A service provider as the portal knows it: its metadata's facts. */
export type KnownServiceProvider = Pick<
  ServiceProviderMetadata,
  'entityId' | 'assertionConsumerServices' | 'certificates' | 'authnRequestsSigned'
>

/** An authentication request, checked: who asks, where the answer goes, what it asks for. */
export type AuthnRequest = {
  id: string
  issuer: string
  issueInstant: Date
  /** The registered assertion consumer service the response goes to. */
  acsUrl: string
  forceAuthn: boolean
  isPassive: boolean
  /** The name identifier format asked for, if any. */
  nameIdFormat: string | null
  relayState: string | null
  signed: boolean
}

/** What arrived at the single sign-on service, by one binding or the other. */
export type SsoMessage =
  | { binding: 'redirect'; query: string }
  | { binding: 'post'; form: { SAMLRequest?: string; RelayState?: string } }

/** The raw (still URL-encoded) value of each parameter of a query, as the signature covers them. */
function rawParams(query: string): Map<string, string> {
  const params = new Map<string, string>()
  for (const part of query.replace(/^\?/, '').split('&')) {
    const at = part.indexOf('=')
    const name = decoded(at < 0 ? part : part.slice(0, at))
    if (params.has(name)) throw new SamlInputError('MALFORMED', `The parameter ${name} is repeated`)
    params.set(name, at < 0 ? '' : part.slice(at + 1))
  }
  return params
}

const decoded = (raw: string) => {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '))
  } catch {
    throw new SamlInputError('MALFORMED', 'A parameter is not URL-encoded')
  }
}

function base64(value: string): Buffer {
  const compact = value.replace(/\s+/g, '')
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) throw new SamlInputError('MALFORMED', 'SAMLRequest is not base64')
  return Buffer.from(compact, 'base64')
}

/** A deflated request, inflated to 16 KiB at most (a small request may not expand into a large one). */
function inflated(bytes: Buffer): string {
  try {
    return inflateRawSync(bytes, { maxOutputLength: REQUEST_MAX_BYTES }).toString('utf8')
  } catch {
    throw new SamlInputError('MALFORMED', 'SAMLRequest does not inflate to a request of at most 16 KiB')
  }
}

/** The service provider's signing keys, from its certificates (one that is no certificate is left out). */
const keysOf = (sp: KnownServiceProvider) =>
  [...new Set(sp.certificates)].map(certificatePublicKey).filter((key): key is NonNullable<typeof key> => key !== null)

/** SAML Bindings §3.4.4.1: the Redirect binding's signature over `SAMLRequest=…&RelayState=…&SigAlg=…` as sent. */
function checkRedirectSignature(params: Map<string, string>, sp: KnownServiceProvider): boolean {
  const signature = params.get('Signature')
  if (signature === undefined) return false
  const algorithm = SIGNATURE_ALGORITHMS[decoded(params.get('SigAlg') ?? '')]
  if (!algorithm)
    throw new SamlInputError('UNSUPPORTED', 'The request is signed with an algorithm other than RSA-SHA256')
  const signed = ['SAMLRequest', 'RelayState', 'SigAlg']
    .filter((name) => params.has(name))
    .map((name) => `${name}=${params.get(name)}`)
    .join('&')
  const value = base64(decoded(signature))
  const valid = keysOf(sp).some((key) => {
    try {
      return createVerify(algorithm).update(signed).verify(key, value)
    } catch {
      return false
    }
  })
  if (!valid)
    throw new SamlInputError(
      'BAD_SIGNATURE',
      'The request’s signature does not check with the service provider’s certificates',
    )
  return true
}

/**
 * The POST binding's enveloped signature, checked by what it references: the one signature of the document, a child
 * of the request, referencing the request itself by its ID, and nothing else; then the request is read again from
 * what was signed, so that nothing unsigned is ever used (no signature wrapping).
 */
function signedRequestXml(xml: string, root: XmlElement, sp: KnownServiceProvider): string | null {
  const signatures = Array.from(
    (
      root as unknown as { ownerDocument: { getElementsByTagNameNS(ns: string, n: string): ArrayLike<XmlElement> } }
    ).ownerDocument.getElementsByTagNameNS(SAML_NS.dsig, 'Signature'),
  )
  if (signatures.length === 0) return null
  const own = children(root, SAML_NS.dsig, 'Signature')
  if (signatures.length > 1 || own.length !== 1) {
    throw new SamlInputError('BAD_SIGNATURE', 'The request carries a signature that is not its own')
  }
  const digests = Array.from(
    (
      own[0] as unknown as { getElementsByTagNameNS(ns: string, n: string): ArrayLike<XmlElement> }
    ).getElementsByTagNameNS(SAML_NS.dsig, 'DigestMethod'),
  )
  if (digests.some((digest) => !DIGEST_ALGORITHMS.includes(digest.getAttribute('Algorithm')))) {
    throw new SamlInputError('UNSUPPORTED', 'The request’s signature digests with an algorithm other than SHA-256')
  }
  for (const key of keysOf(sp)) {
    const check = new SignedXml({ publicCert: key, getCertFromKeyInfo: () => null })
    // Only the algorithms the portal accepts: xml-crypto refuses any other the signature names, wherever it names it.
    check.SignatureAlgorithms = pick(check.SignatureAlgorithms, Object.keys(SIGNATURE_ALGORITHMS))
    check.HashAlgorithms = pick(check.HashAlgorithms, DIGEST_ALGORITHMS)
    check.CanonicalizationAlgorithms = pick(check.CanonicalizationAlgorithms, TRANSFORMS)
    let valid = false
    try {
      check.loadSignature(own[0] as unknown as Node)
      if (!SIGNATURE_ALGORITHMS[check.signatureAlgorithm ?? '']) {
        throw new SamlInputError('UNSUPPORTED', 'The request is signed with an algorithm other than RSA-SHA256')
      }
      valid = check.checkSignature(xml)
    } catch (error) {
      if (error instanceof SamlInputError) throw error
      valid = false
    }
    const references = check.getReferences()
    const signed = check.getSignedReferences()
    if (
      valid &&
      references.length === 1 &&
      references[0]?.uri === `#${root.getAttribute('ID')}` &&
      signed.length === 1
    ) {
      return signed[0] as string
    }
  }
  throw new SamlInputError(
    'BAD_SIGNATURE',
    'The request’s signature does not check with the service provider’s certificates',
  )
}

/** A request as it arrived, decoded: its XML, its root, the issuer it names, its RelayState. Nothing is checked yet. */
export type ReceivedRequest = {
  xml: string
  root: XmlElement
  issuer: string
  relayState: string | null
  /** The Redirect binding's parameters, as sent (its signature covers them); null for the POST binding. */
  params: Map<string, string> | null
}

/**
 * Decodes an `AuthnRequest` (SAML Core §3.4.1) sent to the single sign-on service by HTTP-Redirect or HTTP-POST: bounded
 * before and after inflating, no DOCTYPE, an AuthnRequest. Who sent it is then looked up by its issuer, and
 * `checkAuthnRequest` does the rest.
 */
export function receiveAuthnRequest(message: SsoMessage): ReceivedRequest {
  let xml: string
  let relayState: string | null
  let params: Map<string, string> | null = null
  if (message.binding === 'redirect') {
    params = rawParams(message.query)
    const encoded = params.get('SAMLRequest')
    if (!encoded) throw new SamlInputError('NOT_A_REQUEST', 'The address carries no SAMLRequest')
    if (encoded.length > REQUEST_MAX_BYTES) throw new SamlInputError('TOO_LARGE', 'The request is too large')
    xml = inflated(base64(decoded(encoded)))
    relayState = params.has('RelayState') ? decoded(params.get('RelayState') as string) : null
  } else {
    const encoded = message.form.SAMLRequest
    if (typeof encoded !== 'string' || !encoded)
      throw new SamlInputError('NOT_A_REQUEST', 'The form carries no SAMLRequest')
    if (encoded.length > (REQUEST_MAX_BYTES * 4) / 3 + 4)
      throw new SamlInputError('TOO_LARGE', 'The request is too large')
    // The binding sends the XML itself; some service providers (node-saml) deflate it as for Redirect.
    const bytes = base64(encoded)
    xml = /^\s*</.test(bytes.subarray(0, 64).toString('utf8')) ? bytes.toString('utf8') : inflated(bytes)
    relayState = typeof message.form.RelayState === 'string' ? message.form.RelayState : null
  }
  // SAML asks for 80 bytes at most; service providers such as mod_auth_mellon send the address to come back to.
  if (relayState !== null && relayState.length > RELAY_STATE_MAX) {
    throw new SamlInputError('TOO_LARGE', `RelayState is longer than ${RELAY_STATE_MAX} characters`)
  }
  const root = parseXml(xml, REQUEST_MAX_BYTES, REQUEST_MAX_ELEMENTS).documentElement
  if (root.namespaceURI !== SAML_NS.protocol || root.localName !== 'AuthnRequest') {
    throw new SamlInputError('NOT_A_REQUEST', 'The message is not an AuthnRequest')
  }
  const issuer = text(children(root, SAML_NS.assertion, 'Issuer')[0])
  return { xml, root, issuer, relayState, params }
}

/**
 * Reads an `AuthnRequest` and checks it against the service provider it names (`find`): see `checkAuthnRequest`.
 */
export function readAuthnRequest(
  message: SsoMessage,
  find: (entityId: string) => KnownServiceProvider | null,
  options: { destination: string; now: Date },
): { request: AuthnRequest; sp: KnownServiceProvider } {
  const received = receiveAuthnRequest(message)
  const sp = received.issuer ? find(received.issuer) : null
  // checkAuthnRequest refuses a request of no known service provider.
  return { request: checkAuthnRequest(received, sp, options), sp: sp as KnownServiceProvider }
}

/**
 * Checks a received request against the service provider its issuer names (null: none of the portal's): signed when
 * its metadata says it signs (with one of its certificates), recent, for this service (`destination`), answered at one
 * of its registered assertion consumer services by HTTP-POST. Whether its ID was seen already is the caller's check, in
 * D1.
 */
export function checkAuthnRequest(
  received: ReceivedRequest,
  sp: KnownServiceProvider | null,
  { destination, now }: { destination: string; now: Date },
): AuthnRequest {
  const { xml, params, issuer, relayState } = received
  let root = received.root
  if (!sp)
    throw new SamlInputError(
      'UNKNOWN_SP',
      `No application of the portal is the service provider ${issuer || '(none named)'}`,
    )

  let signed = false
  if (params) signed = checkRedirectSignature(params, sp)
  else {
    const signedXml = signedRequestXml(xml, root, sp)
    if (signedXml !== null) {
      signed = true
      root = parseXml(signedXml, REQUEST_MAX_BYTES, REQUEST_MAX_ELEMENTS).documentElement
      if (text(children(root, SAML_NS.assertion, 'Issuer')[0]) !== issuer) {
        throw new SamlInputError('BAD_SIGNATURE', 'The request’s signed issuer is not the one it names')
      }
    }
  }
  if (!signed && sp.authnRequestsSigned) {
    throw new SamlInputError('UNSIGNED', 'The service provider signs its requests, and this one is not signed')
  }

  const id = root.getAttribute('ID')
  if (!/^[A-Za-z_][\w.-]{0,255}$/.test(id) || root.getAttribute('Version') !== '2.0') {
    throw new SamlInputError('MALFORMED', 'The request has no valid ID, or is not SAML 2.0')
  }
  const issued = new Date(root.getAttribute('IssueInstant'))
  const age = (now.getTime() - issued.getTime()) / 1000
  if (
    Number.isNaN(age) ||
    age > REQUEST_MAX_AGE_SECONDS + REQUEST_CLOCK_SKEW_SECONDS ||
    age < -REQUEST_CLOCK_SKEW_SECONDS
  ) {
    throw new SamlInputError(
      'TOO_OLD',
      `The request was not issued within the last ${REQUEST_MAX_AGE_SECONDS / 60} minutes`,
    )
  }
  const to = attribute(root, 'Destination')
  if (to !== null && to !== destination) {
    throw new SamlInputError('MALFORMED', `The request is addressed to ${to}, not to the portal`)
  }
  const binding = attribute(root, 'ProtocolBinding')
  if (binding !== null && binding !== SAML_BINDINGS.post) {
    throw new SamlInputError('UNSUPPORTED', 'The portal answers by HTTP-POST only')
  }
  const askedUrl = attribute(root, 'AssertionConsumerServiceURL')
  const askedIndex = attribute(root, 'AssertionConsumerServiceIndex')
  const acs =
    askedUrl !== null
      ? sp.assertionConsumerServices.find((service) => service.url === askedUrl)
      : askedIndex !== null
        ? sp.assertionConsumerServices.find((service) => String(service.index) === askedIndex)
        : sp.assertionConsumerServices[0]
  if (!acs) {
    throw new SamlInputError(
      'ACS_NOT_REGISTERED',
      `${askedUrl ?? `The index ${askedIndex}`} is not an assertion consumer service of the service provider`,
    )
  }
  const policy = children(root, SAML_NS.protocol, 'NameIDPolicy')[0]
  return {
    id,
    issuer,
    issueInstant: issued,
    acsUrl: acs.url,
    forceAuthn: root.getAttribute('ForceAuthn') === 'true',
    isPassive: root.getAttribute('IsPassive') === 'true',
    nameIdFormat: (policy && attribute(policy, 'Format')) || null,
    relayState,
    signed,
  }
}
