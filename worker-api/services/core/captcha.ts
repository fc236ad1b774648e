import { createChallenge, extractParams, verifySolution } from 'altcha-lib'
import type { Challenge } from 'altcha-lib/types'
import { namedBatch, rawStatement } from '../../db/client'
import { base64url, hmacSha256, randomToken, timingSafeEqual } from '../../lib/crypto'
import { BusinessError } from '../../lib/errors'
import type { Ctx } from '../../lib/types'
import { clientCounter } from './rate-limit'

/**
 * Human verification (DESIGN §6): CAPTCHA_PROVIDER `altcha` (default, self-hosted proof of work) or `turnstile`
 * (Cloudflare's, needs JavaScript). Without JavaScript, ALTCHA asks a signed question instead, a few times per client
 * address and minute. An accepted payload is remembered until it expires, so none is accepted twice.
 */
const CHALLENGE_TTL_SECONDS = 10 * 60
/** Clock difference tolerated between the isolate that issued a challenge and the one checking it. */
const CLOCK_SKEW_SECONDS = 30
const DEFAULT_MAX_NUMBER = 50_000

export type CaptchaVerdict = 'ok' | 'invalid' | 'malformed'

/** The hash of the challenges we issue (altcha-lib's default); a payload naming another is malformed. */
const ALTCHA_ALGORITHM = 'SHA-256'

export async function newChallenge(ctx: Ctx): Promise<Challenge> {
  return createChallenge({
    algorithm: ALTCHA_ALGORITHM,
    hmacKey: ctx.env.CAPTCHA_HMAC_KEY,
    maxnumber: Number(ctx.env.CAPTCHA_MAX_NUMBER ?? DEFAULT_MAX_NUMBER),
    expires: new Date(Date.now() + CHALLENGE_TTL_SECONDS * 1000),
  })
}

/** A question for browsers without JavaScript: two small numbers to add, signed by the server. */
export async function newQuestion(ctx: Ctx, now = Date.now()) {
  const a = 1 + Math.floor(Math.random() * 9)
  const b = 1 + Math.floor(Math.random() * 9)
  const body = `${a}.${b}.${now + CHALLENGE_TTL_SECONDS * 1000}.${randomToken(12)}`
  const signature = base64url(await hmacSha256(ctx.env.CAPTCHA_HMAC_KEY, `question:${body}`))
  return { a, b, question: `${body}.${signature}` }
}

export const isTurnstile = (ctx: Ctx) => ctx.env.CAPTCHA_PROVIDER === 'turnstile'

type Parsed =
  | { kind: 'altcha'; raw: string; signature: string }
  | { kind: 'question'; question: string; answer: string }
  | { kind: 'turnstile'; token: string }

function parse(payload: string, ctx: Ctx): Parsed | null {
  if (payload.length > 4096 || !/^[A-Za-z0-9+/=_.-]+$/.test(payload)) return null
  let data: unknown
  try {
    data = JSON.parse(atob(payload))
  } catch {
    // Turnstile tokens are opaque strings, not base64 JSON.
    return isTurnstile(ctx) ? { kind: 'turnstile', token: payload } : null
  }
  if (typeof data !== 'object' || data === null) return null
  const record = data as Record<string, unknown>
  if (typeof record.question === 'string' && typeof record.answer === 'string') {
    return { kind: 'question', question: record.question, answer: record.answer }
  }
  if (
    record.algorithm === ALTCHA_ALGORITHM &&
    typeof record.challenge === 'string' &&
    typeof record.number === 'number' &&
    typeof record.salt === 'string' &&
    typeof record.signature === 'string'
  ) {
    return { kind: 'altcha', raw: payload, signature: record.signature }
  }
  return null
}

async function questionIsAnswered(ctx: Ctx, question: string, answer: string, now: number) {
  const parts = question.split('.')
  if (parts.length !== 5) return false
  const [a, b, expires, nonce, signature] = parts as [string, string, string, string, string]
  const expected = base64url(await hmacSha256(ctx.env.CAPTCHA_HMAC_KEY, `question:${a}.${b}.${expires}.${nonce}`))
  if (!timingSafeEqual(expected, signature) || Number(expires) < now) return false
  return answer.trim() === String(Number(a) + Number(b))
}

export const TURNSTILE_VERIFY_URL = 'https://challenges.cloudflare.com/turnstile/v0/siteverify'

async function turnstileAccepts(ctx: Ctx, token: string, remoteIp: string | null) {
  if (!ctx.env.TURNSTILE_SECRET_KEY) return false
  const form = new FormData()
  form.append('secret', ctx.env.TURNSTILE_SECRET_KEY)
  form.append('response', token)
  if (remoteIp) form.append('remoteip', remoteIp)
  try {
    const response = await fetch(TURNSTILE_VERIFY_URL, { method: 'POST', body: form })
    const result = (await response.json()) as { success?: boolean }
    return result.success === true
  } catch (error) {
    // Provider unreachable: the verification fails closed, and the cause is logged.
    console.error('Turnstile siteverify failed', error)
    return false
  }
}

/** A proof-of-work payload must carry an expiry, no further ahead than the challenges we issue. */
function expiresInTime(payload: string, now: number) {
  const expires = Number(extractParams(payload).expires)
  return Number.isSafeInteger(expires) && expires * 1000 <= now + (CHALLENGE_TTL_SECONDS + CLOCK_SKEW_SECONDS) * 1000
}

/**
 * What makes a payload "used": for a proof of work its signature, an HMAC of the challenge, i.e. of
 * salt + number, which a spliced variant of the same solution shares.
 */
function replayKey(parsed: Parsed): string {
  if (parsed.kind === 'altcha') return `altcha:${parsed.signature}`
  if (parsed.kind === 'question') return `question:${parsed.question}`
  return `turnstile:${parsed.token}`
}

/** How long a Turnstile token checked by `validate/captcha` stays usable (Turnstile's own lifetime). */
const TURNSTILE_VERIFIED_SECONDS = 300

/**
 * Turnstile tokens are single use at Cloudflare too: a token checked first (spec: validate, then
 * submit) is remembered as verified, and the submission takes that record instead of asking again.
 */
async function turnstileVerdict(ctx: Ctx, token: string, consume: boolean, remoteIp: string | null) {
  const db = ctx.db
  const verifiedKey = `turnstile-verified:${token}`
  const now = new Date().toISOString()
  if (consume) {
    const taken = await db
      .deleteFrom('captcha_used')
      .where('signature', '=', verifiedKey)
      .where('expires_at', '>', now)
      .returning('signature')
      .executeTakeFirst()
    return taken !== undefined || turnstileAccepts(ctx, token, remoteIp)
  }
  const known = await db
    .selectFrom('captcha_used')
    .select('signature')
    .where('signature', '=', verifiedKey)
    .where('expires_at', '>', now)
    .executeTakeFirst()
  if (known) return true
  if (!(await turnstileAccepts(ctx, token, remoteIp))) return false
  const expiresAt = new Date(Date.now() + TURNSTILE_VERIFIED_SECONDS * 1000).toISOString()
  await db
    .insertInto('captcha_used')
    .values({ signature: verifiedKey, expires_at: expiresAt })
    .onConflict((oc) => oc.doNothing())
    .execute()
  return true
}

/**
 * What a payload proves before D1 is asked whether it was used: malformed, refused, or accepted with
 * the key that marks it used. A question counts against its client's limit even when its answer is
 * wrong (`question`). Turnstile asks Cloudflare (and D1, for a token checked beforehand).
 */
async function proveCaptcha(
  ctx: Ctx,
  payload: string | undefined | null,
  { consume, remoteIp }: { consume: boolean; remoteIp: string | null },
): Promise<{ verdict: CaptchaVerdict; signature: string; question: boolean }> {
  if (!payload) return { verdict: 'invalid', signature: '', question: false }
  const parsed = parse(payload, ctx)
  if (!parsed) return { verdict: 'malformed', signature: '', question: false }
  const signature = replayKey(parsed)
  const now = Date.now()
  let valid: boolean
  if (parsed.kind === 'altcha') {
    // The configured widget only: a proof of work is no substitute for Turnstile. altcha-lib ≥ 1.4
    // ends the salt with a delimiter, so digits of the number cannot be moved into it (challenge
    // splicing, CVE-2025-68113); an expiry later than any challenge we issue is refused besides.
    valid =
      !isTurnstile(ctx) &&
      expiresInTime(parsed.raw, now) &&
      (await verifySolution(parsed.raw, ctx.env.CAPTCHA_HMAC_KEY, true))
  } else if (parsed.kind === 'question') {
    // A script reads the question as easily as a person: only with the proof of work as the main
    // widget, and only a few per client address and minute.
    if (isTurnstile(ctx)) return { verdict: 'invalid', signature, question: false }
    valid = await questionIsAnswered(ctx, parsed.question, parsed.answer, now)
  } else {
    valid = await turnstileVerdict(ctx, parsed.token, consume, remoteIp)
  }
  return { verdict: valid ? 'ok' : 'invalid', signature, question: parsed.kind === 'question' }
}

/** How long an accepted payload is remembered: as long as it could still be accepted. */
const usedUntil = () => new Date(Date.now() + (CHALLENGE_TTL_SECONDS + CLOCK_SKEW_SECONDS) * 1000).toISOString()

/**
 * Checks a solved payload without using it: whether it would be accepted now (the widget's
 * `validate/captcha` call).
 */
export async function checkCaptcha(ctx: Ctx, payload: string | undefined | null): Promise<CaptchaVerdict> {
  const proof = await proveCaptcha(ctx, payload, { consume: false, remoteIp: null })
  if (proof.verdict !== 'ok') return proof.verdict
  const used = await ctx.db
    .selectFrom('captcha_used')
    .select('signature')
    .where('signature', '=', proof.signature)
    .executeTakeFirst()
  return used ? 'invalid' : 'ok'
}

type GateOptions = { kind: string; limit: number; captcha: string | undefined | null; remoteIp: string | null }

/**
 * The checks a public write starts with (DESIGN §3, §6): the client's rate for `kind`, then the payload, spent, each
 * only once the ones before passed, so a refused request spends nothing. `passed` is the SQL condition for the
 * statement after them; `check` throws the first refusal.
 */
export async function publicGate(ctx: Ctx, { kind, limit, captcha, remoteIp }: GateOptions) {
  const rate = clientCounter(kind, remoteIp, limit)
  const proof = await proveCaptcha(ctx, captcha, { consume: true, remoteIp })
  const questions = clientCounter('captcha-question', remoteIp, Number(ctx.env.QUESTION_RATE_PER_MINUTE ?? 5))
  const spendable = proof.question ? `${rate.within} AND ${questions.within}` : rate.within
  return {
    statements: {
      rate: rate.statement(),
      questions: proof.question ? questions.statement(rate.within) : null,
      captcha:
        proof.verdict === 'ok'
          ? rawStatement<{ signature: string }>(
              `INSERT INTO captcha_used (signature, expires_at) SELECT ?1, ?2 WHERE ${spendable}
               ON CONFLICT (signature) DO NOTHING RETURNING signature`,
              [proof.signature, usedUntil()],
            )
          : null,
    },
    /** True in the statement right after `captcha` when this request spent the payload. */
    passed: proof.verdict === 'ok' ? 'changes() = 1' : 'false',
    check(results: {
      rate?: D1Result<{ count: number }> | undefined
      questions?: D1Result<{ count: number }> | undefined
      captcha?: D1Result | undefined
    }) {
      rate.check(results.rate?.results[0])
      if (proof.question) questions.check(results.questions?.results[0])
      if (proof.verdict === 'malformed')
        throw new BusinessError('CAPTCHA_CHAR_INVALID', 400, 'Malformed captcha payload')
      if (proof.verdict === 'invalid' || !results.captcha?.results.length)
        throw new BusinessError('CAPTCHA_VALIDATE_FAILED', 400, 'Captcha not valid')
    },
  }
}

/** The gate on its own, in one round trip, for a write whose reads need not share its batch. */
export async function passPublicGate(ctx: Ctx, options: GateOptions) {
  const gate = await publicGate(ctx, options)
  gate.check(await namedBatch(ctx.d1, gate.statements))
}
