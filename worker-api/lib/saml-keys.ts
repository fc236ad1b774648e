import { Buffer } from 'node:buffer'
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto'
import { AsnConvert } from '@peculiar/asn1-schema'
import { Certificate } from '@peculiar/asn1-x509'

/**
 * The SAML identity provider's key and certificates (issue 62): an RSA private key, PKCS#8 PEM, in the secret
 * SAML_IDP_KEY; its certificate, PEM, in SAML_IDP_CERT; during a rotation, SAML_IDP_CERT_NEXT, a second certificate the
 * metadata publishes (the next key's before it signs, or the previous one's while service providers refresh).
 */
export type SamlEnv = { SAML_IDP_KEY?: string; SAML_IDP_CERT?: string; SAML_IDP_CERT_NEXT?: string }

/** The smallest RSA key the provider signs with. */
export const SAML_MIN_KEY_BITS = 2048

/** Whether the provider can sign: without its key and certificate, SAML is off (its endpoints answer 404). */
export const samlEnabled = (env: SamlEnv) => Boolean(env.SAML_IDP_KEY && env.SAML_IDP_CERT)

/** A PEM as a secret may hold it: with its line breaks, or with them written `\n` (one line of .dev.vars). */
const pem = (text: string) => text.replaceAll('\\n', '\n').trim()

/** A certificate's DER in base64, one line (what `<ds:X509Certificate>` holds), from its PEM or its base64. */
export const certificateBase64 = (text: string) =>
  pem(text)
    .replace(/-----(BEGIN|END) CERTIFICATE-----/g, '')
    .replace(/\s+/g, '')

let imported: { secret: string; key: KeyObject } | undefined

/** The signing key, imported once per isolate (not its PEM parsed again for every signature). */
export function samlSigningKey(env: SamlEnv): KeyObject {
  const secret = env.SAML_IDP_KEY as string
  if (imported?.secret !== secret) imported = { secret, key: createPrivateKey(pem(secret)) }
  return imported.key
}

/** What signs: the key, and the current certificate (PEM) a signature's KeyInfo carries. */
export const samlSigner = (env: SamlEnv) => ({
  key: samlSigningKey(env),
  certificate: pem(env.SAML_IDP_CERT as string),
})

/** The certificates the metadata publishes, in base64: the current one first. */
export const samlCertificates = (env: SamlEnv): string[] =>
  [env.SAML_IDP_CERT, env.SAML_IDP_CERT_NEXT].filter((c): c is string => Boolean(c)).map(certificateBase64)

/** What keeps the settings from signing, each naming its setting (the Worker refuses to serve with any of them). */
export function samlKeyProblems(env: SamlEnv): string[] {
  if (!env.SAML_IDP_KEY && !env.SAML_IDP_CERT) {
    return env.SAML_IDP_CERT_NEXT ? ['SAML_IDP_CERT_NEXT is set without SAML_IDP_KEY and SAML_IDP_CERT'] : []
  }
  if (!env.SAML_IDP_KEY || !env.SAML_IDP_CERT) return ['SAML_IDP_KEY and SAML_IDP_CERT are set together or not at all']
  const problems: string[] = []
  let key: KeyObject | undefined
  try {
    key = createPrivateKey(pem(env.SAML_IDP_KEY))
    const bits = key.asymmetricKeyDetails?.modulusLength ?? 0
    if (key.asymmetricKeyType !== 'rsa' || bits < SAML_MIN_KEY_BITS) key = undefined
  } catch {
    key = undefined
  }
  if (!key)
    problems.push(
      `SAML_IDP_KEY must be an RSA private key of ${SAML_MIN_KEY_BITS}+ bits, PKCS#8 PEM (see README, "SAML 2.0")`,
    )
  for (const name of ['SAML_IDP_CERT', 'SAML_IDP_CERT_NEXT'] as const) {
    const text = env[name]
    if (!text) continue
    const publicKey = certificateKey(text)
    if (!publicKey) problems.push(`${name} must be an X.509 certificate, PEM`)
    else if (name === 'SAML_IDP_CERT' && key && !publicKey.equals(spki(key))) {
      problems.push('SAML_IDP_CERT is not the certificate of SAML_IDP_KEY')
    }
  }
  return problems
}

/** A key's public half, DER (SubjectPublicKeyInfo). */
const spki = (key: KeyObject) => createPublicKey(key).export({ type: 'spki', format: 'der' })

/**
 * The public key a PEM certificate holds, DER, or null if the text is no certificate. Read with the ASN.1 schemas the
 * passkeys' attestation already brings (workerd's `X509Certificate` and `createPublicKey` do not read certificates).
 */
function certificateKey(text: string): Buffer | null {
  if (!pem(text).startsWith('-----BEGIN CERTIFICATE-----')) return null
  return spkiOfCertificate(certificateBase64(text))
}

/** The SubjectPublicKeyInfo of a certificate given as base64 DER, or null if it is none. */
function spkiOfCertificate(base64: string): Buffer | null {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) return null
  try {
    const certificate = AsnConvert.parse(Buffer.from(base64, 'base64'), Certificate)
    return Buffer.from(AsnConvert.serialize(certificate.tbsCertificate.subjectPublicKeyInfo))
  } catch {
    return null
  }
}

/**
 * The public key of a certificate given as base64 DER (a service provider's, from its metadata), or null unless it is
 * an RSA key of 2048 bits or more (what the portal accepts a signature from).
 */
export function certificatePublicKey(base64: string): KeyObject | null {
  const spki = spkiOfCertificate(base64)
  if (!spki) return null
  try {
    const key = createPublicKey({ key: spki, format: 'der', type: 'spki' })
    const bits = key.asymmetricKeyDetails?.modulusLength ?? 0
    return key.asymmetricKeyType === 'rsa' && bits >= SAML_MIN_KEY_BITS ? key : null
  } catch {
    return null
  }
}

/** Short names of the subject's usual attributes. */
const NAME_ATTRIBUTES: Record<string, string> = {
  '2.5.4.3': 'CN',
  '2.5.4.6': 'C',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
}

/** A certificate given as base64 DER, as an administrator recognises it: its subject and its expiry; null if it is none. */
export function certificateSummary(base64: string): { sujet: string; expire: string | null } | null {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) return null
  try {
    const { tbsCertificate } = AsnConvert.parse(Buffer.from(base64, 'base64'), Certificate)
    const sujet = tbsCertificate.subject
      .flatMap((rdn) => rdn.map((a) => `${NAME_ATTRIBUTES[a.type] ?? a.type}=${a.value.toString()}`))
      .join(', ')
    const notAfter = tbsCertificate.validity.notAfter.getTime()
    return { sujet, expire: Number.isNaN(notAfter.getTime()) ? null : notAfter.toISOString() }
  } catch {
    return null
  }
}
