import type { ServiceProviderMetadata } from '../../lib/saml/sp-metadata'
import { attribute, children, SAML_BINDINGS, SAML_NS, SamlInputError } from '../../lib/saml/xml'
import {
  checkRecent,
  checkSigned,
  messageIdOf,
  type ReceivedMessage,
  receiveMessage,
  type SamlMessage,
} from './inbound'

export { RELAY_STATE_MAX, REQUEST_MAX_BYTES, REQUEST_MAX_ELEMENTS } from './inbound'

/** How old a request may be when it arrives, and how far ahead of the portal's clock its sender's may be. */
export const REQUEST_MAX_AGE_SECONDS = 300
export const REQUEST_CLOCK_SKEW_SECONDS = 60

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
export type SsoMessage = SamlMessage

/** A request as it arrived, decoded (see `receiveMessage`). */
export type ReceivedRequest = ReceivedMessage

/**
 * Decodes an `AuthnRequest` (SAML Core §3.4.1) sent to the single sign-on service by HTTP-Redirect or HTTP-POST. Who
 * sent it is then looked up by its issuer, and `checkAuthnRequest` does the rest.
 */
export const receiveAuthnRequest = (message: SsoMessage): ReceivedRequest =>
  receiveMessage(message, 'SAMLRequest', ['AuthnRequest'])

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
  const { issuer, relayState } = received
  if (!sp)
    throw new SamlInputError(
      'UNKNOWN_SP',
      `No application of the portal is the service provider ${issuer || '(none named)'}`,
    )
  const { signed, root } = checkSigned(received, sp)
  if (!signed && sp.authnRequestsSigned) {
    throw new SamlInputError('UNSIGNED', 'The service provider signs its requests, and this one is not signed')
  }
  const id = messageIdOf(root)
  const issued = checkRecent(root, now, REQUEST_MAX_AGE_SECONDS, REQUEST_CLOCK_SKEW_SECONDS)
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
