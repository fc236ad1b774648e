import { calculateJwkThumbprint, importJWK, type JWK, SignJWT } from 'jose'
import { base64url } from './crypto'

/**
 * The provider's signing keys (DESIGN §4b): ES256, a private JWK in the secret OIDC_SIGNING_KEY (the
 * one that signs) and, during a rotation, OIDC_SIGNING_KEY_NEXT (published ahead, so that clients
 * caching the JWKS know it before it signs). `kid` is the key's RFC 7638 thumbprint: the same in every
 * isolate and deploy.
 */

/** A secret's key, as env.ts checks it (`signingKeyProblem`): an EC P-256 private JWK. */
type PrivateEcJwk = { kty: 'EC'; crv: 'P-256'; x: string; y: string; d: string }

/** A published key (RFC 7517 §4): a signing key's public half, its thumbprint, what it signs with. */
type PublicJwk = Omit<PrivateEcJwk, 'd'> & { kid: string; alg: typeof ID_TOKEN_ALG; use: 'sig' }

/** The JWK Set the provider publishes (RFC 7517 §5). */
export type Jwks = { keys: PublicJwk[] }

/** `key` signs; `publicKey` verifies (an ID token hint coming back). */
export type SigningKey = { kid: string; key: CryptoKey; publicKey: CryptoKey; publicJwk: PublicJwk }

export const ID_TOKEN_ALG = 'ES256'

/** What a secret must hold: an EC P-256 private key as a JWK (the README's command makes one). */
export function signingKeyProblem(secret: string | undefined, name: string): string | null {
  if (secret === undefined || secret === '') return null
  try {
    const jwk = JSON.parse(secret) as JWK
    if (jwk.kty === 'EC' && jwk.crv === 'P-256' && jwk.x && jwk.y && jwk.d) return null
  } catch {
    // Said below.
  }
  return `${name} must be an EC P-256 private key as a JWK (see README, "OpenID Connect")`
}

const cache = new Map<string, Promise<SigningKey>>()

/** The key of a secret, imported once per isolate. */
export function signingKey(secret: string): Promise<SigningKey> {
  let key = cache.get(secret)
  if (!key) {
    key = (async () => {
      const { kty, crv, x, y, d } = JSON.parse(secret) as PrivateEcJwk
      const publicPart = { kty, crv, x, y }
      const kid = await calculateJwkThumbprint(publicPart, 'sha256')
      const imported = (await importJWK({ kty, crv, x, y, d }, ID_TOKEN_ALG)) as CryptoKey
      const publicKey = (await importJWK(publicPart, ID_TOKEN_ALG)) as CryptoKey
      return { kid, key: imported, publicKey, publicJwk: { ...publicPart, kid, alg: ID_TOKEN_ALG, use: 'sig' } }
    })()
    cache.set(secret, key)
  }
  return key
}

export type SigningEnv = { OIDC_SIGNING_KEY?: string; OIDC_SIGNING_KEY_NEXT?: string }

/** Whether the provider can sign: without a key, OpenID Connect is off (its endpoints answer 404). */
export const oidcEnabled = (env: SigningEnv) => Boolean(env.OIDC_SIGNING_KEY)

/** The JWKS: the current key and the next one, if a rotation is under way. */
export async function jwks(env: SigningEnv): Promise<Jwks> {
  const secrets = [env.OIDC_SIGNING_KEY, env.OIDC_SIGNING_KEY_NEXT].filter((s): s is string => Boolean(s))
  const keys = await Promise.all(secrets.map(signingKey))
  return { keys: keys.map((k) => k.publicJwk) }
}

/** A JWT signed with the current key: `typ` says what it is (`JWT`, `logout+jwt`). */
export async function signJwt(env: SigningEnv, claims: Record<string, unknown>, typ = 'JWT'): Promise<string> {
  const { kid, key } = await signingKey(env.OIDC_SIGNING_KEY as string)
  return new SignJWT(claims).setProtectedHeader({ alg: ID_TOKEN_ALG, kid, typ }).sign(key)
}

/** OIDC Core §3.1.3.6: the left half of the access token's SHA-256, base64url. */
export async function atHash(accessToken: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(accessToken)))
  return base64url(digest.slice(0, 16))
}
