import { Buffer } from 'node:buffer'
import { createSign } from 'node:crypto'
import { deflateRawSync } from 'node:zlib'
import { attribute, children, SAML_NS, SamlInputError, text, type XmlElement } from '../../lib/saml/xml'
import {
  checkRecent,
  checkSigned,
  messageIdOf,
  type ReceivedMessage,
  receiveMessage,
  type SamlMessage,
  type SigningServiceProvider,
} from './inbound'
import { instant, issuerXml, nameIdXml } from './response'
import { c14nAttribute, c14nText, type Signer, signedMessage } from './signature'

/**
 * Single logout's messages (SAML 2.0 Core §3.7, Profiles §4.4): the `LogoutRequest` and `LogoutResponse` a service
 * provider sends the portal, checked; the ones the portal sends, written from templates and signed, by HTTP-Redirect
 * (the signature over the address's parameters) or HTTP-POST (enveloped).
 */

/** How old a logout message may be when it arrives, and how far ahead of the portal's clock its sender's may be. */
export const LOGOUT_MAX_AGE_SECONDS = 300
export const LOGOUT_CLOCK_SKEW_SECONDS = 60
/** The most session indexes a logout request may name (one is usual). */
export const LOGOUT_MAX_SESSION_INDEXES = 10

/** RSA-SHA256, which the Redirect binding's `SigAlg` names. */
const SIG_ALG = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256'

export const LOGOUT_STATUS = {
  success: 'urn:oasis:names:tc:SAML:2.0:status:Success',
  partialLogout: 'urn:oasis:names:tc:SAML:2.0:status:PartialLogout',
} as const

/** A service provider's logout request, checked: whose session(s) it ends. */
export type LogoutRequest = {
  id: string
  issuer: string
  nameId: string
  /** The session indexes it names; none: every session of that name identifier at the service provider. */
  sessionIndexes: string[]
  relayState: string | null
}

/** A service provider's answer to the portal's logout request. */
export type LogoutResponse = { issuer: string; inResponseTo: string; success: boolean; relayState: string | null }

/** What arrived at the single logout service: a request from a service provider, or its answer to the portal's. */
export function receiveLogoutMessage(
  message: SamlMessage,
): { kind: 'request'; received: ReceivedMessage } | { kind: 'response'; received: ReceivedMessage } {
  const isResponse =
    message.binding === 'post'
      ? message.form.SAMLResponse !== undefined && message.form.SAMLRequest === undefined
      : /(^|[?&])SAMLResponse=/.test(message.query) && !/(^|[?&])SAMLRequest=/.test(message.query)
  return isResponse
    ? { kind: 'response', received: receiveMessage(message, 'SAMLResponse', ['LogoutResponse']) }
    : { kind: 'request', received: receiveMessage(message, 'SAMLRequest', ['LogoutRequest']) }
}

/**
 * A logout message's common checks: a service provider of the portal's, signed (the front-channel bindings have no
 * other way to say who sent it: SAML Profiles §4.4.3.1), recent, addressed to the portal's single logout service by its
 * `Destination`.
 */
function checkLogoutMessage(
  received: ReceivedMessage,
  sp: SigningServiceProvider | null,
  { destination, now }: { destination: string; now: Date },
): { id: string; root: XmlElement } {
  if (!sp) {
    throw new SamlInputError(
      'UNKNOWN_SP',
      `No application of the portal is the service provider ${received.issuer || '(none named)'}`,
    )
  }
  const { signed, root } = checkSigned(received, sp)
  if (!signed) throw new SamlInputError('UNSIGNED', 'A logout message must be signed, and this one is not')
  const id = messageIdOf(root)
  checkRecent(root, now, LOGOUT_MAX_AGE_SECONDS, LOGOUT_CLOCK_SKEW_SECONDS)
  // A signed message names where it was sent (SAML Bindings §3.4.5.2, §3.5.5.2): one sent to another provider is not
  // the portal's to act on.
  const to = attribute(root, 'Destination')
  if (to !== destination) {
    throw new SamlInputError('MALFORMED', `The message is addressed to ${to ?? 'no one'}, not to the portal`)
  }
  return { id, root }
}

/** Checks a service provider's `LogoutRequest` (see `checkLogoutMessage`): its name identifier and session indexes. */
export function checkLogoutRequest(
  received: ReceivedMessage,
  sp: SigningServiceProvider | null,
  options: { destination: string; now: Date },
): LogoutRequest {
  const { id, root } = checkLogoutMessage(received, sp, options)
  const notOnOrAfter = attribute(root, 'NotOnOrAfter')
  if (notOnOrAfter !== null && !(new Date(notOnOrAfter).getTime() > options.now.getTime())) {
    throw new SamlInputError('TOO_OLD', 'The logout request is past its NotOnOrAfter')
  }
  if (children(root, SAML_NS.assertion, 'EncryptedID').length > 0) {
    throw new SamlInputError('UNSUPPORTED', 'The portal does not read encrypted name identifiers')
  }
  const nameId = text(children(root, SAML_NS.assertion, 'NameID')[0])
  if (!nameId) throw new SamlInputError('MALFORMED', 'The logout request names no NameID')
  const sessionIndexes = children(root, SAML_NS.protocol, 'SessionIndex').map(text)
  if (sessionIndexes.length > LOGOUT_MAX_SESSION_INDEXES || sessionIndexes.some((index) => !index)) {
    throw new SamlInputError('MALFORMED', `The logout request names more than ${LOGOUT_MAX_SESSION_INDEXES} sessions`)
  }
  return { id, issuer: received.issuer, nameId, sessionIndexes, relayState: received.relayState }
}

/** Checks a service provider's `LogoutResponse` (see `checkLogoutMessage`): which request it answers, and how. */
export function checkLogoutResponse(
  received: ReceivedMessage,
  sp: SigningServiceProvider | null,
  options: { destination: string; now: Date },
): LogoutResponse {
  const { root } = checkLogoutMessage(received, sp, options)
  const inResponseTo = attribute(root, 'InResponseTo')
  if (!inResponseTo) throw new SamlInputError('MALFORMED', 'The logout response answers no request')
  const status = children(root, SAML_NS.protocol, 'Status')[0]
  const code = status ? children(status, SAML_NS.protocol, 'StatusCode')[0] : undefined
  const success = code !== undefined && attribute(code, 'Value') === LOGOUT_STATUS.success
  return { issuer: received.issuer, inResponseTo, success, relayState: received.relayState }
}

/** The portal's `LogoutRequest` to a service provider: the name identifier and session index it was given. */
export function logoutRequestXml(
  id: string,
  facts: {
    issuer: string
    destination: string
    audience: string
    nameId: { format: string; value: string }
    sessionIndex: string | null
    now: Date
  },
): string {
  const until = instant(new Date(facts.now.getTime() + LOGOUT_MAX_AGE_SECONDS * 1000))
  return [
    `<samlp:LogoutRequest xmlns:samlp="${SAML_NS.protocol}" Destination="${c14nAttribute(facts.destination)}" ID="${id}" IssueInstant="${instant(facts.now)}" NotOnOrAfter="${until}" Version="2.0">`,
    issuerXml(facts.issuer),
    nameIdXml(facts.nameId, facts.audience, true),
    facts.sessionIndex === null ? '' : `<samlp:SessionIndex>${c14nText(facts.sessionIndex)}</samlp:SessionIndex>`,
    '</samlp:LogoutRequest>',
  ].join('')
}

/** The portal's `LogoutResponse` to a service provider's request: success, or partial (some application not told). */
export function logoutResponseXml(
  id: string,
  facts: { issuer: string; destination: string; inResponseTo: string; now: Date },
  partial: boolean,
): string {
  const status = partial
    ? `<samlp:StatusCode Value="${LOGOUT_STATUS.success}"><samlp:StatusCode Value="${LOGOUT_STATUS.partialLogout}"></samlp:StatusCode></samlp:StatusCode>`
    : `<samlp:StatusCode Value="${LOGOUT_STATUS.success}"></samlp:StatusCode>`
  return [
    `<samlp:LogoutResponse xmlns:samlp="${SAML_NS.protocol}" Destination="${c14nAttribute(facts.destination)}" ID="${id}" InResponseTo="${c14nAttribute(facts.inResponseTo)}" IssueInstant="${instant(facts.now)}" Version="2.0">`,
    issuerXml(facts.issuer),
    `<samlp:Status>${status}</samlp:Status>`,
    '</samlp:LogoutResponse>',
  ].join('')
}

/**
 * A message sent by the HTTP-Redirect binding (SAML Bindings §3.4.4): deflated, base64, in the address's `parameter`,
 * with the RelayState, `SigAlg` and the signature over those three as they appear.
 */
export function redirectBinding(
  location: string,
  parameter: 'SAMLRequest' | 'SAMLResponse',
  xml: string,
  relayState: string | null,
  signer: Signer,
): string {
  const query = [
    `${parameter}=${encodeURIComponent(deflateRawSync(Buffer.from(xml, 'utf8')).toString('base64'))}`,
    relayState === null ? null : `RelayState=${encodeURIComponent(relayState)}`,
    `SigAlg=${encodeURIComponent(SIG_ALG)}`,
  ]
    .filter((part) => part !== null)
    .join('&')
  const signature = createSign('RSA-SHA256').update(query).sign(signer.key).toString('base64')
  const url = new URL(location)
  return `${url.origin}${url.pathname}${url.search ? `${url.search}&` : '?'}${query}&Signature=${encodeURIComponent(signature)}`
}

/** A message sent by the HTTP-POST binding: signed (enveloped), base64, as the form's field carries it. */
export const signedPostValue = (xml: string, id: string, signer: Signer) =>
  Buffer.from(
    signedMessage(() => xml, id, signer),
    'utf8',
  ).toString('base64')
