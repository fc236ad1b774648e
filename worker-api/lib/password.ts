import { base64url, fromBase64url, hmacSha256, timingSafeEqual } from './crypto'

/** The production Workers limit for PBKDF2 (local workerd does not enforce it; a unit test pins it). */
export const PBKDF2_ITERATIONS = 100_000
const ALGORITHM = 'pbkdf2-sha512'

async function derive(password: string, pepper: string, salt: Uint8Array<ArrayBuffer>, iterations: number) {
  // The pepper keys an HMAC of the password, so a stolen database alone cannot be brute-forced.
  const peppered = await hmacSha256(pepper, password)
  const key = await crypto.subtle.importKey('raw', peppered, 'PBKDF2', false, ['deriveBits'])
  const bits = await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-512', salt, iterations }, key, 512)
  return base64url(new Uint8Array(bits))
}

/** Returns a self-describing hash: `pbkdf2-sha512$<iterations>$<salt>$<hash>`. */
export async function hashPassword(password: string, pepper: string, iterations = PBKDF2_ITERATIONS) {
  const salt = crypto.getRandomValues(new Uint8Array(16))
  return `${ALGORITHM}$${iterations}$${base64url(salt)}$${await derive(password, pepper, salt, iterations)}`
}

/** Spent on unknown identifiers so that their answer takes as long as a real check. */
const DUMMY_HASH = `${ALGORITHM}$${PBKDF2_ITERATIONS}$AAAAAAAAAAAAAAAAAAAAAA$invalid`

export async function verifyPassword(password: string, stored: string | null, pepper: string) {
  const [algorithm, iterationsText, salt, expected] = (stored ?? DUMMY_HASH).split('$')
  const iterations = Number(iterationsText)
  if (algorithm !== ALGORITHM || !salt || !expected || !Number.isInteger(iterations) || iterations < 1) {
    return { ok: false, needsRehash: false }
  }
  const actual = await derive(password, pepper, fromBase64url(salt), Math.min(iterations, PBKDF2_ITERATIONS))
  const ok = stored !== null && timingSafeEqual(actual, expected)
  return { ok, needsRehash: ok && iterations !== PBKDF2_ITERATIONS }
}
