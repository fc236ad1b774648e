import { Buffer } from 'node:buffer'
import { createVerify } from 'node:crypto'
import { inflateRawSync } from 'node:zlib'
import { SignedXml } from 'xml-crypto'
import type { ServiceProviderMetadata } from '../../lib/saml/sp-metadata'
import { children, parseXml, SAML_NS, SamlInputError, text, type XmlElement } from '../../lib/saml/xml'
import { certificatePublicKey } from '../../lib/saml-keys'

/**
 * What a service provider sends the portal (an authentication request, a logout request, a logout response), as it
 * arrives by HTTP-Redirect or HTTP-POST: decoded within bounds, its signature checked by what it references.
 */

/** The largest message the portal reads, encoded and once inflated (a request is a few kilobytes). */
export const REQUEST_MAX_BYTES = 16 * 1024
/** The most elements a message may have (a request has about ten; each costs its signature check a scan). */
export const REQUEST_MAX_ELEMENTS = 200
/** The longest RelayState passed back to the service provider. */
export const RELAY_STATE_MAX = 2000

/** The signature algorithms accepted on a message: RSA with SHA-256 or SHA-512 (never SHA-1). */
const SIGNATURE_ALGORITHMS: Record<string, string> = {
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256': 'RSA-SHA256',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512': 'RSA-SHA512',
}
/** The digests and transforms accepted in a message's enveloped signature. */
const DIGEST_ALGORITHMS = ['http://www.w3.org/2001/04/xmlenc#sha256', 'http://www.w3.org/2001/04/xmlenc#sha512']
const TRANSFORMS = [
  'http://www.w3.org/2000/09/xmldsig#enveloped-signature',
  'http://www.w3.org/2001/10/xml-exc-c14n#',
  'http://www.w3.org/2001/10/xml-exc-c14n#WithComments',
]

/** The entries of an algorithm table kept for these names. */
const pick = <T extends Record<string, unknown>>(table: T, names: string[]) =>
  Object.fromEntries(Object.entries(table).filter(([name]) => names.includes(name))) as T

/** What the portal checks a service provider's messages with. */
export type SigningServiceProvider = Pick<ServiceProviderMetadata, 'entityId' | 'certificates'>

/** The form a message is posted in, each field once. */
export type SamlForm = { SAMLRequest?: string; SAMLResponse?: string; RelayState?: string }

/** What arrived at a service of the portal, by one binding or the other. */
export type SamlMessage = { binding: 'redirect'; query: string } | { binding: 'post'; form: SamlForm }

/** Which parameter carries the message: a request, or a response to a request of the portal's. */
export type SamlParameter = 'SAMLRequest' | 'SAMLResponse'

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
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) throw new SamlInputError('MALFORMED', 'The message is not base64')
  return Buffer.from(compact, 'base64')
}

/** A deflated message, inflated to 16 KiB at most (a small message may not expand into a large one). */
function inflated(bytes: Buffer): string {
  try {
    return inflateRawSync(bytes, { maxOutputLength: REQUEST_MAX_BYTES }).toString('utf8')
  } catch {
    throw new SamlInputError('MALFORMED', 'The message does not inflate to a message of at most 16 KiB')
  }
}

/** The service provider's signing keys, from its certificates (one that is no certificate is left out). */
const keysOf = (sp: SigningServiceProvider) =>
  [...new Set(sp.certificates)].map(certificatePublicKey).filter((key): key is NonNullable<typeof key> => key !== null)

const badSignature = () =>
  new SamlInputError('BAD_SIGNATURE', 'The message’s signature does not check with the service provider’s certificates')

/**
 * SAML Bindings §3.4.4.1: the Redirect binding's signature over `SAMLRequest=…&RelayState=…&SigAlg=…` (or
 * `SAMLResponse=…`) as sent.
 */
function checkRedirectSignature(params: Map<string, string>, sp: SigningServiceProvider): boolean {
  const signature = params.get('Signature')
  if (signature === undefined) return false
  const algorithm = SIGNATURE_ALGORITHMS[decoded(params.get('SigAlg') ?? '')]
  if (!algorithm)
    throw new SamlInputError('UNSUPPORTED', 'The message is signed with an algorithm other than RSA-SHA256')
  const signed = ['SAMLRequest', 'SAMLResponse', 'RelayState', 'SigAlg']
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
  if (!valid) throw badSignature()
  return true
}

/**
 * The POST binding's enveloped signature, checked by what it references: the one signature of the document, a child
 * of the message, referencing the message itself by its ID, and nothing else. Answers what was signed, from which the
 * message is read again, so that nothing unsigned is ever used (no signature wrapping); null when it is not signed.
 */
function signedXmlOf(xml: string, root: XmlElement, sp: SigningServiceProvider): string | null {
  type Searchable = { getElementsByTagNameNS(ns: string, n: string): ArrayLike<XmlElement> }
  const signatures = Array.from(
    (root as unknown as { ownerDocument: Searchable }).ownerDocument.getElementsByTagNameNS(SAML_NS.dsig, 'Signature'),
  )
  if (signatures.length === 0) return null
  const own = children(root, SAML_NS.dsig, 'Signature')
  if (signatures.length > 1 || own.length !== 1) {
    throw new SamlInputError('BAD_SIGNATURE', 'The message carries a signature that is not its own')
  }
  const digests = Array.from((own[0] as unknown as Searchable).getElementsByTagNameNS(SAML_NS.dsig, 'DigestMethod'))
  if (digests.some((digest) => !DIGEST_ALGORITHMS.includes(digest.getAttribute('Algorithm')))) {
    throw new SamlInputError('UNSUPPORTED', 'The message’s signature digests with an algorithm other than SHA-256')
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
        throw new SamlInputError('UNSUPPORTED', 'The message is signed with an algorithm other than RSA-SHA256')
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
  throw badSignature()
}

/** A message as it arrived, decoded: its XML, its root, the issuer it names, its RelayState. Nothing is checked yet. */
export type ReceivedMessage = {
  xml: string
  root: XmlElement
  issuer: string
  relayState: string | null
  /** The Redirect binding's parameters, as sent (its signature covers them); null for the POST binding. */
  params: Map<string, string> | null
}

/**
 * Decodes a message sent by HTTP-Redirect or HTTP-POST in `parameter`: bounded before and after inflating, no DOCTYPE,
 * its root one of `roots` (SAML protocol elements). Who sent it is then looked up by its issuer, and `checkSigned`
 * checks its signature.
 */
export function receiveMessage(message: SamlMessage, parameter: SamlParameter, roots: string[]): ReceivedMessage {
  let xml: string
  let relayState: string | null
  let params: Map<string, string> | null = null
  if (message.binding === 'redirect') {
    params = rawParams(message.query)
    const encoded = params.get(parameter)
    if (!encoded) throw new SamlInputError('NOT_A_REQUEST', `The address carries no ${parameter}`)
    if (encoded.length > REQUEST_MAX_BYTES) throw new SamlInputError('TOO_LARGE', 'The message is too large')
    xml = inflated(base64(decoded(encoded)))
    relayState = params.has('RelayState') ? decoded(params.get('RelayState') as string) : null
  } else {
    const encoded = message.form[parameter]
    if (typeof encoded !== 'string' || !encoded)
      throw new SamlInputError('NOT_A_REQUEST', `The form carries no ${parameter}`)
    if (encoded.length > (REQUEST_MAX_BYTES * 4) / 3 + 4)
      throw new SamlInputError('TOO_LARGE', 'The message is too large')
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
  if (root.namespaceURI !== SAML_NS.protocol || !roots.includes(root.localName)) {
    throw new SamlInputError('NOT_A_REQUEST', `The message is not ${roots.join(' or ')}`)
  }
  const issuer = text(children(root, SAML_NS.assertion, 'Issuer')[0])
  return { xml, root, issuer, relayState, params }
}

/**
 * The message's signature, checked with the service provider's certificates: the Redirect binding's over its
 * parameters, or the POST binding's enveloped one. Answers the root to read (for the POST binding, the one signed) and
 * whether it was signed at all; a signature that does not check is refused.
 */
export function checkSigned(
  received: ReceivedMessage,
  sp: SigningServiceProvider,
): { signed: boolean; root: XmlElement } {
  const { xml, params, issuer } = received
  if (params) return { signed: checkRedirectSignature(params, sp), root: received.root }
  const signedXml = signedXmlOf(xml, received.root, sp)
  if (signedXml === null) return { signed: false, root: received.root }
  const root = parseXml(signedXml, REQUEST_MAX_BYTES, REQUEST_MAX_ELEMENTS).documentElement
  if (text(children(root, SAML_NS.assertion, 'Issuer')[0]) !== issuer) {
    throw new SamlInputError('BAD_SIGNATURE', 'The message’s signed issuer is not the one it names')
  }
  return { signed: true, root }
}

/** Whether a message was issued within `maxAgeSeconds`, its sender's clock at most `skewSeconds` ahead of the portal's. */
export function checkRecent(root: XmlElement, now: Date, maxAgeSeconds: number, skewSeconds: number): Date {
  const issued = new Date(root.getAttribute('IssueInstant'))
  const age = (now.getTime() - issued.getTime()) / 1000
  if (Number.isNaN(age) || age > maxAgeSeconds + skewSeconds || age < -skewSeconds) {
    throw new SamlInputError('TOO_OLD', `The message was not issued within the last ${maxAgeSeconds / 60} minutes`)
  }
  return issued
}

/** A SAML 2.0 message's ID (an NCName), else it is refused. */
export function messageIdOf(root: XmlElement): string {
  const id = root.getAttribute('ID')
  if (!/^[A-Za-z_][\w.-]{0,255}$/.test(id) || root.getAttribute('Version') !== '2.0') {
    throw new SamlInputError('MALFORMED', 'The message has no valid ID, or is not SAML 2.0')
  }
  return id
}
