import { API_BASE } from '../../contract/base'
import { SAML_BINDINGS, SAML_NS } from '../../lib/saml/xml'
import { type SamlEnv, samlCertificates } from '../../lib/saml-keys'

/** The name identifier formats the provider sends (an application chooses one). */
export const NAME_ID_FORMATS = {
  email: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
  persistent: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
  transient: 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient',
} as const

/** The provider's addresses under the origin it is reached at: its entityID is its metadata's URL. */
export const samlEndpoints = (origin: string) => ({
  entityId: `${origin}${API_BASE}/saml/metadata`,
  sso: `${origin}${API_BASE}/saml/sso`,
  slo: `${origin}${API_BASE}/saml/slo`,
})

/** A value without the characters XML 1.0 does not allow (libxml2 refuses the whole document). */
export const withoutForbiddenCharacters = (value: string) =>
  value.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters XML 1.0 forbids are what it removes
    /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
    '',
  )

/**
 * A value written into an attribute or a text node: XML's five characters, tab and line breaks escaped (a service
 * provider would fold them), and the characters XML 1.0 does not allow left out.
 */
export const xmlEscape = (value: string) =>
  withoutForbiddenCharacters(value).replace(
    /[&<>"'\t\n\r]/g,
    (c) =>
      ({
        '&': '&amp;',
        '<': '&lt;',
        '>': '&gt;',
        '"': '&quot;',
        "'": '&apos;',
        '\t': '&#9;',
        '\n': '&#10;',
        '\r': '&#13;',
      })[c] as string,
  )

/**
 * The identity provider's metadata (SAML 2.0 Metadata §2.4.3): its signing certificates (two during a rotation), its
 * single sign-on and single logout services by HTTP-Redirect and HTTP-POST, the name identifier formats it sends. The
 * elements come in the order the schema fixes.
 */
export function idpMetadata(env: SamlEnv, origin: string): string {
  const at = samlEndpoints(origin)
  const keys = samlCertificates(env).map(
    (certificate) =>
      `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${certificate}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`,
  )
  const services = (element: string, location: string) =>
    [SAML_BINDINGS.redirect, SAML_BINDINGS.post].map(
      (binding) => `<md:${element} Binding="${binding}" Location="${xmlEscape(location)}"/>`,
    )
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<md:EntityDescriptor xmlns:md="${SAML_NS.metadata}" xmlns:ds="${SAML_NS.dsig}" entityID="${xmlEscape(at.entityId)}">`,
    `<md:IDPSSODescriptor WantAuthnRequestsSigned="false" protocolSupportEnumeration="${SAML_NS.protocol}">`,
    ...keys,
    ...services('SingleLogoutService', at.slo),
    ...Object.values(NAME_ID_FORMATS).map((format) => `<md:NameIDFormat>${format}</md:NameIDFormat>`),
    ...services('SingleSignOnService', at.sso),
    '</md:IDPSSODescriptor>',
    '</md:EntityDescriptor>',
  ].join('\n')
}
