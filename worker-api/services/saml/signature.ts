import { createHash, createSign, type KeyObject } from 'node:crypto'
import { certificateBase64 } from '../../lib/saml-keys'
import { withoutForbiddenCharacters } from './metadata'

/**
 * The portal's enveloped XML signatures (XML-DSig, RSA-SHA256 over exclusive canonicalisation, SHA-256 digest), made
 * without parsing anything: every message the portal signs is written from templates already in its exclusive canonical
 * form (W3C Exclusive XML Canonicalization 1.0: no XML declaration, attributes in order, each namespace declared on the
 * element that first uses it, empty elements as start and end tags, C14N's escapes), so that the canonical form a
 * verifier computes is the very text digested here. `tests/unit/saml-signature.test.ts` checks it against xml-crypto's
 * canonicalisation, and node-saml and mod_auth_mellon verify the signatures.
 */

export const ALGORITHMS = {
  signature: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  digest: 'http://www.w3.org/2001/04/xmlenc#sha256',
  canonicalization: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  enveloped: 'http://www.w3.org/2000/09/xmldsig#enveloped-signature',
} as const

const DSIG = 'http://www.w3.org/2000/09/xmldsig#'

/** The signing key and its certificate (PEM or base64), which each signature's KeyInfo carries. */
export type Signer = { key: KeyObject; certificate: string }

/** A text node's value as canonical XML writes it (C14N 1.0 §2.3), the characters XML 1.0 forbids left out. */
export const c14nText = (value: string) =>
  withoutForbiddenCharacters(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\r/g, '&#xD;')

/** An attribute's value as canonical XML writes it (C14N 1.0 §2.3), the characters XML 1.0 forbids left out. */
export const c14nAttribute = (value: string) =>
  withoutForbiddenCharacters(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/"/g, '&quot;')
    .replace(/\t/g, '&#x9;')
    .replace(/\n/g, '&#xA;')
    .replace(/\r/g, '&#xD;')

/** The element `<ds:tag Algorithm="…"></ds:tag>`, canonical. */
const method = (tag: string, algorithm: string) => `<ds:${tag} Algorithm="${algorithm}"></ds:${tag}>`

/** `SignedInfo` referencing the element of this ID by its digest; `declared`: with the `ds` namespace on it. */
function signedInfo(id: string, digest: string, declared: boolean) {
  return [
    `<ds:SignedInfo${declared ? ` xmlns:ds="${DSIG}"` : ''}>`,
    method('CanonicalizationMethod', ALGORITHMS.canonicalization),
    method('SignatureMethod', ALGORITHMS.signature),
    `<ds:Reference URI="#${c14nAttribute(id)}">`,
    `<ds:Transforms>${method('Transform', ALGORITHMS.enveloped)}${method('Transform', ALGORITHMS.canonicalization)}</ds:Transforms>`,
    method('DigestMethod', ALGORITHMS.digest),
    `<ds:DigestValue>${digest}</ds:DigestValue>`,
    '</ds:Reference>',
    '</ds:SignedInfo>',
  ].join('')
}

/**
 * The enveloped signature of an element, given that element's canonical text without its signature: the digest of
 * that text; the signature over `SignedInfo` as canonicalised on its own (where it declares `ds`); the certificate in
 * `KeyInfo`. The element returned is canonical too, where it goes: right after the signed element's `Issuer`.
 */
export function envelopedSignature(canonical: string, id: string, signer: Signer): string {
  const digest = createHash('sha256').update(canonical, 'utf8').digest('base64')
  const value = createSign('RSA-SHA256')
    .update(signedInfo(id, digest, true), 'utf8')
    .sign(signer.key, 'base64')
  return [
    `<ds:Signature xmlns:ds="${DSIG}">`,
    signedInfo(id, digest, false),
    `<ds:SignatureValue>${value}</ds:SignatureValue>`,
    `<ds:KeyInfo><ds:X509Data><ds:X509Certificate>${certificateBase64(signer.certificate)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo>`,
    '</ds:Signature>',
  ].join('')
}

/** An element's text with its signature put right after its `Issuer` (where the schema puts it: the first one). */
export function afterIssuer(xml: string, signature: string): string {
  const at = xml.indexOf('</saml:Issuer>') + '</saml:Issuer>'.length
  return `${xml.slice(0, at)}${signature}${xml.slice(at)}`
}

/**
 * A message signed (enveloped), from its template written twice: `canonical` as a verifier will canonicalise it once
 * the signature is removed, `sent` as it goes (the same, but for declarations only a schema reads, `xmlns:xs`).
 */
export function signedMessage(write: (canonical: boolean) => string, id: string, signer: Signer): string {
  const signature = envelopedSignature(write(true), id, signer)
  return afterIssuer(write(false), signature)
}
