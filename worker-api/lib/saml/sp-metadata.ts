import {
  isServiceProviderUri,
  SP_ACS_MAX,
  SP_CERTIFICATES_MAX,
  SP_METADATA_MAX_BYTES,
  SP_URI_MAX_LENGTH,
} from '../../contract/saml/saml'
import { certificatePublicKey } from '../saml-keys'
import {
  attribute,
  SAML_BINDINGS as BINDING,
  children,
  parseXml,
  SAML_NS,
  SamlInputError,
  text,
  type XmlElement,
} from './xml'

/** What the portal keeps of a service provider's metadata. */
export type ServiceProviderMetadata = {
  entityId: string
  /** Where responses are posted (HTTP-POST only), the default first: a launch from the launcher uses the first. */
  assertionConsumerServices: { url: string; index: number | null }[]
  /** Where the portal sends a logout request, Redirect preferred; null if it has none. */
  singleLogoutService: { url: string; binding: 'HTTP-Redirect' | 'HTTP-POST' } | null
  /** Its signing certificates, base64 DER (a rotation may publish two). */
  certificates: string[]
  /** It says it signs its authentication requests: an unsigned one is then refused. */
  authnRequestsSigned: boolean
}

const bool = (value: string | null) => value === 'true' || value === '1'

/** An address of the metadata the portal may send a browser to (https; http on this machine), else refused. */
function address(value: string): string {
  if (value.length > SP_URI_MAX_LENGTH || !isServiceProviderUri(value)) {
    throw new SamlInputError(
      'NOT_METADATA',
      `${value.slice(0, 100)} is not an https address the portal can send a browser to`,
    )
  }
  return value
}

/**
 * Reads a service provider's metadata (SAML 2.0 Metadata §2.4.4): one `EntityDescriptor` with an `SPSSODescriptor` for
 * SAML 2.0. Refused with a message naming what is missing: no DTD, no second entity, at least one assertion consumer
 * service by HTTP-POST (the only binding the portal answers with), https addresses (http on this machine), RSA signing
 * certificates of 2048 bits or more.
 */
export function parseSpMetadata(xml: string): ServiceProviderMetadata {
  const root = parseXml(xml, SP_METADATA_MAX_BYTES).documentElement
  if (root.namespaceURI !== SAML_NS.metadata || root.localName !== 'EntityDescriptor') {
    throw new SamlInputError('NOT_METADATA', 'The metadata is not one EntityDescriptor')
  }
  const entityId = root.getAttribute('entityID').trim()
  if (!entityId) throw new SamlInputError('NOT_METADATA', 'The EntityDescriptor has no entityID')
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  if (entityId.length > 1024 || /[\u0000-\u001f\u007f]/.test(entityId)) {
    throw new SamlInputError('NOT_METADATA', 'The entityID is longer than 1024 characters or holds control characters')
  }
  const sp = children(root, SAML_NS.metadata, 'SPSSODescriptor').find((d) =>
    d.getAttribute('protocolSupportEnumeration').split(/\s+/).includes(SAML_NS.protocol),
  )
  if (!sp) throw new SamlInputError('NOT_METADATA', 'The metadata has no SPSSODescriptor for SAML 2.0')

  const acs = children(sp, SAML_NS.metadata, 'AssertionConsumerService')
    .filter((e) => e.getAttribute('Binding') === BINDING.post && e.getAttribute('Location').trim())
    .map((e, order) => ({
      url: address(e.getAttribute('Location').trim()),
      index: /^\d{1,5}$/.test(e.getAttribute('index')) ? Number(e.getAttribute('index')) : null,
      isDefault: bool(e.getAttribute('isDefault')),
      order,
    }))
    .sort(
      (a, b) => Number(b.isDefault) - Number(a.isDefault) || (a.index ?? 1e6) - (b.index ?? 1e6) || a.order - b.order,
    )
  if (acs.length === 0) {
    throw new SamlInputError('NOT_METADATA', 'The metadata has no AssertionConsumerService with the HTTP-POST binding')
  }
  if (acs.length > SP_ACS_MAX) {
    throw new SamlInputError('TOO_LARGE', `The metadata has more than ${SP_ACS_MAX} assertion consumer services`)
  }

  const logout = children(sp, SAML_NS.metadata, 'SingleLogoutService')
  const sloOf = (binding: string, name: 'HTTP-Redirect' | 'HTTP-POST') => {
    const url = (logout.find((e) => e.getAttribute('Binding') === binding)?.getAttribute('Location') ?? '').trim()
    return url ? { url: address(url), binding: name } : null
  }

  const certificates = children(sp, SAML_NS.metadata, 'KeyDescriptor')
    // Without `use`, a key is for signing and encryption both.
    .filter((k) => (attribute(k, 'use') ?? 'signing') === 'signing')
    .flatMap((k) => children(k, SAML_NS.dsig, 'KeyInfo'))
    .flatMap((info) => children(info, SAML_NS.dsig, 'X509Data'))
    .flatMap((data) => children(data, SAML_NS.dsig, 'X509Certificate'))
    .map((c: XmlElement) => text(c).replace(/\s+/g, ''))
    .filter((c) => c !== '')
  if (certificates.some((c) => !certificatePublicKey(c))) {
    throw new SamlInputError(
      'NOT_METADATA',
      'A signing certificate of the metadata is not an RSA certificate of 2048+ bits',
    )
  }
  if (certificates.length > SP_CERTIFICATES_MAX) {
    throw new SamlInputError('TOO_LARGE', `The metadata has more than ${SP_CERTIFICATES_MAX} signing certificates`)
  }

  return {
    entityId,
    assertionConsumerServices: acs.map(({ url, index }) => ({ url, index })),
    singleLogoutService: sloOf(BINDING.redirect, 'HTTP-Redirect') ?? sloOf(BINDING.post, 'HTTP-POST'),
    certificates: [...new Set(certificates)],
    authnRequestsSigned: bool(sp.getAttribute('AuthnRequestsSigned')),
  }
}
