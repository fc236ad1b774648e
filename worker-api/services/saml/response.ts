import type { KeyObject } from 'node:crypto'
import { SignedXml } from 'xml-crypto'
import { SAML_NS } from '../../lib/saml/xml'
import { certificateBase64 } from '../../lib/saml-keys'
import { xmlEscape } from './metadata'

/** The XML names of a response. */
const NS = {
  protocol: SAML_NS.protocol,
  assertion: SAML_NS.assertion,
  xs: 'http://www.w3.org/2001/XMLSchema',
  xsi: 'http://www.w3.org/2001/XMLSchema-instance',
} as const

/** RSA-SHA256 over exclusive canonicalisation, the digest SHA-256, the signature enveloped. */
const ALGORITHMS = {
  signature: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  digest: 'http://www.w3.org/2001/04/xmlenc#sha256',
  canonicalization: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  enveloped: 'http://www.w3.org/2000/09/xmldsig#enveloped-signature',
} as const

/** How long an assertion may be presented, and how far behind the service provider's clock may be. */
export const ASSERTION_LIFETIME_SECONDS = 300
export const CLOCK_SKEW_SECONDS = 60

/**
 * How the user proved who they are, as `AuthnContextClassRef` says it: a password alone, or more (a second factor, or a
 * passkey, which is a device and a PIN or a fingerprint: REFEDS' multi-factor profile).
 */
export const AUTHN_CONTEXTS = {
  password: 'urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport',
  multiFactor: 'https://refeds.org/profile/mfa',
} as const

export type SamlAttribute = { name: string; values: string[] }

export type AssertionFacts = {
  /** The portal's entityID. */
  issuer: string
  /** The service provider's entityID (the audience) and the assertion consumer service the response goes to. */
  audience: string
  destination: string
  /** The request's ID, or null for a response nobody asked for (a launch from the launcher). */
  inResponseTo: string | null
  nameId: { format: string; value: string }
  /** The portal session's id (single logout names it), and when its user signed in. */
  sessionIndex: string
  authnInstant: Date
  authnContext: keyof typeof AUTHN_CONTEXTS
  attributes: SamlAttribute[]
  now: Date
}

/** The signing key and its certificate (PEM or base64), which each signature's KeyInfo carries. */
export type Signer = { key: KeyObject; certificate: string }

/** An xs:dateTime in UTC, to the second. */
export const instant = (date: Date) => `${date.toISOString().slice(0, 19)}Z`

/** A message's ID: an NCName (it starts with a letter or `_`), 160 random bits. */
export const messageId = () =>
  `_${Array.from(crypto.getRandomValues(new Uint8Array(20)), (b) => b.toString(16).padStart(2, '0')).join('')}`

/**
 * A name identifier, qualified by the service provider it is for (all but an e-mail address): written the same in the
 * assertion and in a logout request, which the service provider compares with what it was given.
 */
export function nameIdXml(nameId: { format: string; value: string }, audience: string): string {
  const qualifier = nameId.format.endsWith(':emailAddress') ? '' : ` SPNameQualifier="${xmlEscape(audience)}"`
  return `<saml:NameID Format="${xmlEscape(nameId.format)}"${qualifier}>${xmlEscape(nameId.value)}</saml:NameID>`
}

function assertionXml(id: string, facts: AssertionFacts): string {
  const e = xmlEscape
  const until = instant(new Date(facts.now.getTime() + ASSERTION_LIFETIME_SECONDS * 1000))
  const inResponseTo = facts.inResponseTo === null ? '' : ` InResponseTo="${e(facts.inResponseTo)}"`
  const attributes = facts.attributes
    .filter((attribute) => attribute.values.length > 0)
    .map(
      (attribute) =>
        `<saml:Attribute Name="${e(attribute.name)}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic">${attribute.values
          .map((value) => `<saml:AttributeValue xsi:type="xs:string">${e(value)}</saml:AttributeValue>`)
          .join('')}</saml:Attribute>`,
    )
    .join('')
  return [
    `<saml:Assertion xmlns:saml="${NS.assertion}" xmlns:xs="${NS.xs}" xmlns:xsi="${NS.xsi}" ID="${id}" Version="2.0" IssueInstant="${instant(facts.now)}">`,
    `<saml:Issuer>${e(facts.issuer)}</saml:Issuer>`,
    '<saml:Subject>',
    nameIdXml(facts.nameId, facts.audience),
    '<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">',
    `<saml:SubjectConfirmationData${inResponseTo} Recipient="${e(facts.destination)}" NotOnOrAfter="${until}"/>`,
    '</saml:SubjectConfirmation>',
    '</saml:Subject>',
    `<saml:Conditions NotBefore="${instant(new Date(facts.now.getTime() - CLOCK_SKEW_SECONDS * 1000))}" NotOnOrAfter="${until}">`,
    `<saml:AudienceRestriction><saml:Audience>${e(facts.audience)}</saml:Audience></saml:AudienceRestriction>`,
    '</saml:Conditions>',
    `<saml:AuthnStatement AuthnInstant="${instant(facts.authnInstant)}" SessionIndex="${e(facts.sessionIndex)}">`,
    `<saml:AuthnContext><saml:AuthnContextClassRef>${AUTHN_CONTEXTS[facts.authnContext]}</saml:AuthnContextClassRef></saml:AuthnContext>`,
    '</saml:AuthnStatement>',
    attributes ? `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>` : '',
    '</saml:Assertion>',
  ].join('')
}

/**
 * Signs the element of `xml` with this ID, the signature enveloped right after that element's Issuer (where the schema
 * puts it), the certificate in its KeyInfo.
 */
export function signElement(xml: string, id: string, signer: Signer): string {
  const signed = new SignedXml({
    privateKey: signer.key,
    signatureAlgorithm: ALGORITHMS.signature,
    canonicalizationAlgorithm: ALGORITHMS.canonicalization,
    // The certificate as the metadata publishes it. Not xml-crypto's own KeyInfo: it re-reads the certificate with
    // node:crypto's X509Certificate, which workerd under wrangler does not implement.
    getKeyInfoContent: (args) => {
      const ns = args?.prefix ? `${args.prefix}:` : ''
      return `<${ns}X509Data><${ns}X509Certificate>${certificateBase64(signer.certificate)}</${ns}X509Certificate></${ns}X509Data>`
    },
  })
  const element = `//*[@ID='${id}']`
  signed.addReference({
    xpath: element,
    digestAlgorithm: ALGORITHMS.digest,
    transforms: [ALGORITHMS.enveloped, ALGORITHMS.canonicalization],
  })
  signed.computeSignature(xml, {
    prefix: 'ds',
    location: { reference: `${element}/*[local-name(.)='Issuer']`, action: 'after' },
  })
  return signed.getSignedXml()
}

/**
 * A `<samlp:Response>` carrying one assertion about the user (SAML 2.0 Core §3.3.3, Web Browser SSO profile §4.1.4),
 * its assertion signed, its response too, or both, as the application asks.
 */
export function signedResponse(
  facts: AssertionFacts,
  signer: Signer,
  sign: { assertion: boolean; response: boolean },
): string {
  const assertionId = messageId()
  const responseId = messageId()
  let assertion = assertionXml(assertionId, facts)
  if (sign.assertion) assertion = signElement(assertion, assertionId, signer)
  const status = '<samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/>'
  const response = responseXml(responseId, facts, status, assertion)
  return sign.response ? signElement(response, responseId, signer) : response
}

/** A `<samlp:Response>` around its status code(s) and its assertion, if any. */
function responseXml(
  id: string,
  facts: Pick<AssertionFacts, 'issuer' | 'destination' | 'inResponseTo' | 'now'>,
  statusCode: string,
  assertion = '',
): string {
  const inResponseTo = facts.inResponseTo === null ? '' : ` InResponseTo="${xmlEscape(facts.inResponseTo)}"`
  return [
    `<samlp:Response xmlns:samlp="${NS.protocol}" xmlns:saml="${NS.assertion}" ID="${id}" Version="2.0" IssueInstant="${instant(facts.now)}" Destination="${xmlEscape(facts.destination)}"${inResponseTo}>`,
    `<saml:Issuer>${xmlEscape(facts.issuer)}</saml:Issuer>`,
    `<samlp:Status>${statusCode}</samlp:Status>`,
    assertion,
    '</samlp:Response>',
  ].join('')
}

/** A response's second-level status (SAML Core §3.2.2.2): why the identity provider answers without an assertion. */
export const STATUS = {
  responder: 'urn:oasis:names:tc:SAML:2.0:status:Responder',
  noPassive: 'urn:oasis:names:tc:SAML:2.0:status:NoPassive',
} as const

/**
 * A signed `<samlp:Response>` that carries no assertion, only its status: the request could not be answered as asked
 * (`IsPassive` and nobody signed in: Responder / NoPassive).
 */
export function signedStatusResponse(
  facts: Pick<AssertionFacts, 'issuer' | 'destination' | 'inResponseTo' | 'now'>,
  signer: Signer,
  status: (typeof STATUS)[keyof typeof STATUS],
): string {
  const id = messageId()
  const codes = `<samlp:StatusCode Value="${STATUS.responder}"><samlp:StatusCode Value="${status}"/></samlp:StatusCode>`
  return signElement(responseXml(id, facts, codes), id, signer)
}
