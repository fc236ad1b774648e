import { SAML_NS } from '../../lib/saml/xml'
import { afterIssuer, c14nAttribute, c14nText, envelopedSignature, type Signer, signedMessage } from './signature'

export type { Signer } from './signature'

/** The XML names of a response. */
const NS = {
  protocol: SAML_NS.protocol,
  assertion: SAML_NS.assertion,
  xs: 'http://www.w3.org/2001/XMLSchema',
  xsi: 'http://www.w3.org/2001/XMLSchema-instance',
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

/** An xs:dateTime in UTC, to the second. */
export const instant = (date: Date) => `${date.toISOString().slice(0, 19)}Z`

/** A message's ID: an NCName (it starts with a letter or `_`), 160 random bits. */
export const messageId = () =>
  `_${Array.from(crypto.getRandomValues(new Uint8Array(20)), (b) => b.toString(16).padStart(2, '0')).join('')}`

/**
 * A name identifier, qualified by the service provider it is for (all but an e-mail address): written the same in the
 * assertion and in a logout request, which the service provider compares with what it was given. `declared`: with the
 * `saml` namespace on it (its parent does not use it).
 */
export function nameIdXml(nameId: { format: string; value: string }, audience: string, declared = false): string {
  const qualifier = nameId.format.endsWith(':emailAddress') ? '' : ` SPNameQualifier="${c14nAttribute(audience)}"`
  const ns = declared ? ` xmlns:saml="${NS.assertion}"` : ''
  return `<saml:NameID${ns} Format="${c14nAttribute(nameId.format)}"${qualifier}>${c14nText(nameId.value)}</saml:NameID>`
}

/** The portal's `Issuer`, declaring `saml` (a protocol message's root does not use it). */
export const issuerXml = (issuer: string) =>
  `<saml:Issuer xmlns:saml="${NS.assertion}">${c14nText(issuer)}</saml:Issuer>`

/**
 * The assertion, in exclusive canonical form (services/saml/signature.ts): attributes in order, `xsi` declared where it
 * is used; `canonical` false adds `xs`, which only the schema of `xsi:type`'s value reads (canonicalisation leaves it
 * out).
 */
function assertionXml(id: string, facts: AssertionFacts, canonical: boolean): string {
  const a = c14nAttribute
  const until = instant(new Date(facts.now.getTime() + ASSERTION_LIFETIME_SECONDS * 1000))
  const inResponseTo = facts.inResponseTo === null ? '' : ` InResponseTo="${a(facts.inResponseTo)}"`
  const value = `<saml:AttributeValue${canonical ? '' : ` xmlns:xs="${NS.xs}"`} xmlns:xsi="${NS.xsi}" xsi:type="xs:string">`
  const attributes = facts.attributes
    .filter((attribute) => attribute.values.length > 0)
    .map(
      (attribute) =>
        `<saml:Attribute Name="${a(attribute.name)}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic">${attribute.values
          .map((v) => `${value}${c14nText(v)}</saml:AttributeValue>`)
          .join('')}</saml:Attribute>`,
    )
    .join('')
  return [
    `<saml:Assertion xmlns:saml="${NS.assertion}" ID="${id}" IssueInstant="${instant(facts.now)}" Version="2.0">`,
    `<saml:Issuer>${c14nText(facts.issuer)}</saml:Issuer>`,
    '<saml:Subject>',
    nameIdXml(facts.nameId, facts.audience),
    '<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">',
    `<saml:SubjectConfirmationData${inResponseTo} NotOnOrAfter="${until}" Recipient="${a(facts.destination)}"></saml:SubjectConfirmationData>`,
    '</saml:SubjectConfirmation>',
    '</saml:Subject>',
    `<saml:Conditions NotBefore="${instant(new Date(facts.now.getTime() - CLOCK_SKEW_SECONDS * 1000))}" NotOnOrAfter="${until}">`,
    `<saml:AudienceRestriction><saml:Audience>${c14nText(facts.audience)}</saml:Audience></saml:AudienceRestriction>`,
    '</saml:Conditions>',
    `<saml:AuthnStatement AuthnInstant="${instant(facts.authnInstant)}" SessionIndex="${a(facts.sessionIndex)}">`,
    `<saml:AuthnContext><saml:AuthnContextClassRef>${AUTHN_CONTEXTS[facts.authnContext]}</saml:AuthnContextClassRef></saml:AuthnContext>`,
    '</saml:AuthnStatement>',
    attributes ? `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>` : '',
    '</saml:Assertion>',
  ].join('')
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
  let assertion = (canonical: boolean) => assertionXml(assertionId, facts, canonical)
  if (sign.assertion) {
    const signature = envelopedSignature(assertion(true), assertionId, signer)
    const unsigned = assertion
    assertion = (canonical) => afterIssuer(unsigned(canonical), signature)
  }
  const status = `<samlp:StatusCode Value="${SUCCESS}"></samlp:StatusCode>`
  const response = (canonical: boolean) => responseXml(responseId, facts, status, assertion(canonical))
  return sign.response ? signedMessage(response, responseId, signer) : response(false)
}

/** A `<samlp:Response>` around its status code(s) and its assertion, if any: in exclusive canonical form. */
function responseXml(
  id: string,
  facts: Pick<AssertionFacts, 'issuer' | 'destination' | 'inResponseTo' | 'now'>,
  statusCode: string,
  assertion = '',
): string {
  const inResponseTo = facts.inResponseTo === null ? '' : ` InResponseTo="${c14nAttribute(facts.inResponseTo)}"`
  return [
    `<samlp:Response xmlns:samlp="${NS.protocol}" Destination="${c14nAttribute(facts.destination)}" ID="${id}"${inResponseTo} IssueInstant="${instant(facts.now)}" Version="2.0">`,
    issuerXml(facts.issuer),
    `<samlp:Status>${statusCode}</samlp:Status>`,
    assertion,
    '</samlp:Response>',
  ].join('')
}

const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success'

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
  const codes = `<samlp:StatusCode Value="${STATUS.responder}"><samlp:StatusCode Value="${status}"></samlp:StatusCode></samlp:StatusCode>`
  return signedMessage(() => responseXml(id, facts, codes), id, signer)
}
