import { addSeconds } from '../contract/dates'
import { batch, getDb } from '../db/client'
import type { Env } from '../env'
import { REUSE_GRACE_SECONDS } from './auth'

const HOUR = 3600
const DAY = 24 * HOUR

/**
 * Deletes what can no longer matter (run hourly by the cron trigger): used captchas past their
 * expiry, refresh tokens of families past their absolute lifetime (reuse detection needs nothing
 * older) and the retry copies of rotated ones, forgotten sign-in failures, old rate-limit windows,
 * mail tokens expired a month ago, month-old mail, and the user list's totals of past days (whatever
 * the organisation's time zone: a day before yesterday in UTC).
 */
export async function purgeExpired(env: Env, now = new Date()) {
  const db = getDb(env.DB)
  const at = (seconds: number) => addSeconds(-seconds, now).toISOString()
  const results = await batch(env.DB, [
    db.deleteFrom('captcha_used').where('expires_at', '<', now.toISOString()),
    db.deleteFrom('refresh_token').where('family_expires_at', '<', at(DAY)),
    // Past its grace window a rotated token only ever revokes: the pair it keeps for retries goes.
    db
      .updateTable('refresh_token')
      .set({ successor: null })
      .where('successor', 'is not', null)
      .where('rotated_at', '<', addSeconds(-REUSE_GRACE_SECONDS, now).toISOString()),
    db
      .deleteFrom('login_attempt')
      .where('last_failure_at', '<', at(12 * HOUR))
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now.toISOString())])),
    db.deleteFrom('rate_limit').where('window_start', '<', at(HOUR)),
    db.deleteFrom('mail_token').where('expires_at', '<', at(30 * DAY)),
    // Mail a month old, delivered or given up on, has told what it had to tell.
    db.deleteFrom('outbox').where('created_at', '<', at(30 * DAY)),
    db.deleteFrom('utilisateur_liste_total').where('jour', '<', at(DAY).slice(0, 10)),
  ])
  const [captchas, refreshTokens, successors, loginAttempts, rateLimits, mailTokens, mails, listTotals] = results.map(
    (r) => r.meta.changes,
  )
  return { captchas, refreshTokens, successors, loginAttempts, rateLimits, mailTokens, mails, listTotals }
}
