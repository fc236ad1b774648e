import jwt from '@tsndr/cloudflare-worker-jwt'

export const ACCESS_TOKEN_TTL_SECONDS = 5 * 60
const ISSUER = 'portail'
const AUDIENCE = 'portail'

/**
 * `app`: set on the sessions an application opened (a launch code, or OpenID Connect: scoped, DESIGN
 * §4); `scope`: an OpenID Connect session's granted scopes; `cs`: a service account's token (client
 * credentials; `sub` is the account's id), with the scopes granted to it, space-separated.
 */
export type AccessClaims = {
  sub: string
  admin: boolean
  domain: string
  sid: string
  app?: number
  scope?: string
  cs?: string
}

const HS256 = { name: 'HMAC', hash: { name: 'SHA-256' } }

/** The HMAC key of a secret, imported once per isolate rather than at every signature or check. */
const keys = new Map<string, Promise<CryptoKey>>()
function keyOf(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret)
  if (!key) {
    key = crypto.subtle.importKey('raw', new TextEncoder().encode(secret), HS256, false, ['sign', 'verify'])
    keys.set(secret, key)
  }
  return key
}

export async function signAccessToken(secret: string, claims: AccessClaims, now = Date.now()) {
  const iat = Math.floor(now / 1000)
  const payload = { ...claims, iss: ISSUER, aud: AUDIENCE, iat, exp: iat + ACCESS_TOKEN_TTL_SECONDS }
  return jwt.sign(payload, await keyOf(secret), { algorithm: 'HS256' })
}

/** Far above the portal's tokens (about 300 characters): a longer one is refused unread. */
const MAX_TOKEN_LENGTH = 4096

/** How many checked tokens an isolate keeps; past that, the oldest goes first. */
export const CHECKED_TOKENS_KEPT = 1000

/**
 * Tokens whose signature was checked, by secret and whole token (signature included), with their claims
 * and expiry: a session's calls bring the same token for minutes, and checking it again (decoding, HMAC)
 * was a fifth of an API read's CPU. The expiry is checked on every use; whether the session still lives
 * is each call's own check, in SQL.
 */
const checkedTokens = new Map<string, Readonly<{ claims: Readonly<AccessClaims>; exp: number }>>()

/** Returns the claims of a valid token (HS256 only, signature, exp, iss and aud checked), else null. */
export async function verifyAccessToken(secret: string, token: string): Promise<Readonly<AccessClaims> | null> {
  // A compact JWS is three parts; the library would ignore a fourth, which a kept token must not carry.
  if (token.length > MAX_TOKEN_LENGTH || token.split('.').length !== 3) return null
  const key = `${secret}\u0000${token}`
  const checked = checkedTokens.get(key)
  if (checked) {
    // The library's own rule: a token is good until the end of its `exp` second.
    if (checked.exp >= Math.floor(Date.now() / 1000)) return checked.claims
    checkedTokens.delete(key)
    return null
  }
  const claims = await checkAccessToken(secret, token)
  if (claims) {
    if (checkedTokens.size >= CHECKED_TOKENS_KEPT) checkedTokens.delete(checkedTokens.keys().next().value as string)
    checkedTokens.set(key, Object.freeze({ claims: Object.freeze(claims.claims), exp: claims.exp }))
  }
  return claims?.claims ?? null
}

async function checkAccessToken(secret: string, token: string): Promise<{ claims: AccessClaims; exp: number } | null> {
  try {
    const decoded = await jwt.verify<AccessClaims & { iss?: string; aud?: string }>(token, await keyOf(secret), {
      algorithm: 'HS256',
      throwError: true,
    })
    const payload = decoded?.payload
    if (!payload || decoded.header.alg !== 'HS256') return null
    if (payload.iss !== ISSUER || payload.aud !== AUDIENCE || typeof payload.exp !== 'number') return null
    if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string') return null
    const claims: AccessClaims = {
      sub: payload.sub,
      admin: payload.admin === true,
      domain: String(payload.domain),
      sid: payload.sid,
    }
    if (typeof payload.app === 'number') claims.app = payload.app
    if (typeof payload.scope === 'string') claims.scope = payload.scope
    if (typeof payload.cs === 'string') claims.cs = payload.cs
    return { claims, exp: payload.exp }
  } catch {
    return null
  }
}
