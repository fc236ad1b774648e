import { DOMParser } from '@xmldom/xmldom'

/** The SAML namespaces the provider reads and writes. */
export const SAML_NS = {
  metadata: 'urn:oasis:names:tc:SAML:2.0:metadata',
  protocol: 'urn:oasis:names:tc:SAML:2.0:protocol',
  assertion: 'urn:oasis:names:tc:SAML:2.0:assertion',
  dsig: 'http://www.w3.org/2000/09/xmldsig#',
} as const

/** The SAML bindings the provider speaks. */
export const SAML_BINDINGS = {
  redirect: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect',
  post: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
} as const

/** What a SAML message or metadata may not be, said in terms its sender can act on. */
export class SamlInputError extends Error {
  constructor(
    readonly reason:
      | 'MALFORMED'
      | 'TOO_LARGE'
      | 'NOT_METADATA'
      | 'NOT_A_REQUEST'
      | 'UNKNOWN_SP'
      | 'ACS_NOT_REGISTERED'
      | 'TOO_OLD'
      | 'UNSIGNED'
      | 'BAD_SIGNATURE'
      | 'UNSUPPORTED'
      | 'REPLAYED'
      | 'UNEXPECTED'
      | 'OFF',
    message: string,
  ) {
    super(message)
    this.name = 'SamlInputError'
  }
}

/** What the provider reads of a parsed document (xmldom's nodes; the Worker's own `Element` is HTMLRewriter's). */
export interface XmlNode {
  nodeType: number
  textContent: string | null
}
export interface XmlElement extends XmlNode {
  namespaceURI: string | null
  localName: string
  childNodes: ArrayLike<XmlNode>
  /** xmldom answers '' for an attribute that is not there: read attributes with `attribute`. */
  getAttribute(name: string): string
  hasAttribute(name: string): boolean
}
export interface XmlDocument {
  documentElement: XmlElement | null
}

/** An attribute's value, null when the element has none (not xmldom's ''). */
export const attribute = (element: XmlElement, name: string): string | null =>
  element.hasAttribute(name) ? element.getAttribute(name) : null

/**
 * An XML document from outside, parsed with no DTD at all: a `DOCTYPE` (entities, external references) is refused before
 * the parser sees it, as is anything larger than `maxBytes`, with more than `maxElements` elements (each costs the
 * signature check its scans), or not well formed.
 */
export function parseXml(
  text: string,
  maxBytes: number,
  maxElements = 2000,
): XmlDocument & { documentElement: XmlElement } {
  if (text.length > maxBytes) throw new SamlInputError('TOO_LARGE', `The XML is larger than ${maxBytes} bytes`)
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new SamlInputError('MALFORMED', 'The XML declares a DOCTYPE')
  if ((text.match(/<[^/!?]/g)?.length ?? 0) > maxElements) {
    throw new SamlInputError('TOO_LARGE', `The XML has more than ${maxElements} elements`)
  }
  const problems: string[] = []
  const document = new DOMParser({
    locator: {},
    errorHandler: {
      warning: () => {},
      error: (message: string) => problems.push(message),
      fatalError: (message: string) => problems.push(message),
    },
  }).parseFromString(text, 'text/xml')
  if (problems.length > 0 || !document?.documentElement) {
    throw new SamlInputError('MALFORMED', `The XML is not well formed${problems[0] ? `: ${problems[0]}` : ''}`)
  }
  return document as unknown as XmlDocument & { documentElement: XmlElement }
}

/** The element's children of this namespace and local name (not its descendants). */
export const children = (parent: XmlElement, ns: string, name: string): XmlElement[] =>
  Array.from(parent.childNodes).filter(
    (node): node is XmlElement =>
      node.nodeType === 1 && (node as XmlElement).namespaceURI === ns && (node as XmlElement).localName === name,
  )

/** The text of an element, trimmed; empty for none. */
export const text = (element: XmlElement | undefined) => (element?.textContent ?? '').trim()
