import { base64url, fromBase64url, hmacSha256, timingSafeEqual } from './crypto'

/** The production Workers limit for PBKDF2 (local workerd does not enforce it; a unit test pins it). */
export const PBKDF2_ITERATIONS = 100_000
const ALGORITHM = 'pbkdf2-sha512'

/** A pepper and the id stored with every hash made with it, so that it can be rotated. */
export type Pepper = { id: string; secret: string }
/** The pepper new hashes use, and the retired ones older hashes may still need. */
export type PepperKeyring = { current: Pepper; retired: Record<string, string> }

/** Hashes written before peppers had ids were made with the first one. */
export const FIRST_PEPPER_ID = '1'
export const PEPPER_ID = /^[A-Za-z0-9_-]{1,16}$/

/**
 * The keyring from the configuration: PASSWORD_PEPPER (id PASSWORD_PEPPER_ID, default "1") and the
 * retired peppers of PASSWORD_PEPPERS_RETIRED, "id:secret" pairs separated by commas or spaces.
 */
export function pepperKeyring(env: {
  PASSWORD_PEPPER: string
  PASSWORD_PEPPER_ID?: string | undefined
  PASSWORD_PEPPERS_RETIRED?: string | undefined
}): PepperKeyring {
  const retired: Record<string, string> = {}
  for (const [id, secret] of retiredPepperEntries(env.PASSWORD_PEPPERS_RETIRED)) if (id) retired[id] = secret
  return { current: { id: env.PASSWORD_PEPPER_ID || FIRST_PEPPER_ID, secret: env.PASSWORD_PEPPER }, retired }
}

/** The entries of PASSWORD_PEPPERS_RETIRED as [id, secret]; an entry without "id:" has an empty id. */
export function retiredPepperEntries(text: string | undefined): [string, string][] {
  return (text ?? '')
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((entry) => {
      const separator = entry.indexOf(':')
      return separator > 0 ? [entry.slice(0, separator), entry.slice(separator + 1)] : ['', entry]
    })
}

async function derive(password: string, pepper: string, salt: Uint8Array<ArrayBuffer>, iterations: number) {
  // The pepper keys an HMAC of the password, so a stolen database alone cannot be brute-forced.
  const peppered = await hmacSha256(pepper, password)
  const key = await crypto.subtle.importKey('raw', peppered, 'PBKDF2', false, ['deriveBits'])
  const bits = await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-512', salt, iterations }, key, 512)
  return base64url(new Uint8Array(bits))
}

/** Returns a self-describing hash: `pbkdf2-sha512$<iterations>$<pepper id>$<salt>$<hash>`. */
export async function hashPassword(password: string, pepper: Pepper, iterations = PBKDF2_ITERATIONS) {
  const salt = crypto.getRandomValues(new Uint8Array(16))
  const hash = await derive(password, pepper.secret, salt, iterations)
  return `${ALGORITHM}$${iterations}$${pepper.id}$${base64url(salt)}$${hash}`
}

/** Spent on unknown identifiers so that their answer takes as long as a real check. */
const DUMMY_HASH = `${ALGORITHM}$${PBKDF2_ITERATIONS}$${FIRST_PEPPER_ID}$AAAAAAAAAAAAAAAAAAAAAA$invalid`

/** The parts of a stored hash; the four-part form of before pepper ids used the first pepper. */
function parse(stored: string) {
  const parts = stored.split('$')
  const [algorithm, iterationsText] = parts
  const [pepperId, salt, expected] = parts.length === 4 ? [FIRST_PEPPER_ID, parts[2], parts[3]] : parts.slice(2)
  const iterations = Number(iterationsText)
  if (algorithm !== ALGORITHM || !pepperId || !salt || !expected || parts.length > 5) return null
  if (!Number.isInteger(iterations) || iterations < 1) return null
  return { pepperId, salt, expected, iterations }
}

/**
 * Checks a password against its stored hash with the pepper the hash names. `needsRehash` asks for a
 * new hash at the current cost and pepper (sign-in does it), which is how a pepper is rotated without
 * locking anyone out. Unknown users (`stored` null) cost the same work.
 */
export async function verifyPassword(password: string, stored: string | null, keyring: PepperKeyring) {
  const parsed = parse(stored ?? DUMMY_HASH)
  if (!parsed) return { ok: false, needsRehash: false }
  const { current, retired } = keyring
  const pepper =
    parsed.pepperId === current.id
      ? current.secret
      : Object.hasOwn(retired, parsed.pepperId)
        ? retired[parsed.pepperId]
        : undefined
  if (pepper === undefined) console.error(`A password hash names pepper "${parsed.pepperId}", which is not configured`)
  const iterations = Math.min(parsed.iterations, PBKDF2_ITERATIONS)
  const actual = await derive(password, pepper ?? current.secret, fromBase64url(parsed.salt), iterations)
  const ok = stored !== null && pepper !== undefined && timingSafeEqual(actual, parsed.expected)
  return { ok, needsRehash: ok && (parsed.iterations !== PBKDF2_ITERATIONS || parsed.pepperId !== current.id) }
}
