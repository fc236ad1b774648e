import { addSeconds } from '../../contract/dates'
import { oidcEnabled, signJwt } from '../../lib/oidc-keys'
import type { Ctx } from '../../lib/types'
import { deliverable } from '../core/outbound'
import { MAX_ATTEMPTS, retryDelaySeconds } from '../core/outbox'

/**
 * Back-channel logout (OpenID Connect Back-Channel Logout 1.0; DESIGN §4b): an ended session's client gets a signed
 * logout token, right after the request that ended it and again from the cron with the outbox's delays. A trigger
 * (migration 0022) writes the rows in the ending batch; a sender leases what it takes, so none is posted twice.
 */

const LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout'
/** A logout token is short-lived (the specification says two minutes at most is best). */
const LOGOUT_TOKEN_TTL_SECONDS = 120
const LEASE_SECONDS = 60
const BATCH = 25
const TIMEOUT_MS = 10_000

type Claimed = {
  id: number
  family_id: string
  application_id: number
  utilisateur_id: number
  issuer: string
  attempts: number
}

/** The logout token of an ended session, signed now. */
export async function logoutToken(ctx: Ctx, delivery: Claimed, clientId: string, now = Date.now()) {
  const iat = Math.floor(now / 1000)
  return signJwt(
    ctx.env,
    {
      iss: delivery.issuer,
      aud: clientId,
      iat,
      exp: iat + LOGOUT_TOKEN_TTL_SECONDS,
      jti: crypto.randomUUID(),
      sub: String(delivery.utilisateur_id),
      sid: delivery.family_id,
      events: { [LOGOUT_EVENT]: {} },
    },
    'logout+jwt',
  )
}

/**
 * Posts what is due, recording each outcome; never throws. `fetcher` is the network (a test passes
 * its receiver).
 */
export async function deliverLogouts(
  ctx: Ctx,
  { now = new Date(), fetcher = fetch }: { now?: Date; fetcher?: typeof fetch } = {},
): Promise<{ sent: number; failed: number }> {
  if (!oidcEnabled(ctx.env)) return { sent: 0, failed: 0 }
  const at = now.toISOString()
  // Asked after every write: a read first, so that the usual answer (nothing due) takes no write lock.
  const due = await ctx.d1
    .prepare('SELECT 1 FROM logout_delivery WHERE sent_at IS NULL AND next_attempt_at <= ? AND attempts < ? LIMIT 1')
    .bind(at, MAX_ATTEMPTS)
    .first()
  if (!due) return { sent: 0, failed: 0 }
  const { results: claimed } = await ctx.d1
    .prepare(
      `UPDATE logout_delivery SET locked_until = ?, attempts = attempts + 1
     WHERE id IN (
       SELECT id FROM logout_delivery
       WHERE sent_at IS NULL AND next_attempt_at <= ? AND attempts < ?
         AND (locked_until IS NULL OR locked_until <= ?)
       ORDER BY next_attempt_at LIMIT ?)
     RETURNING id, family_id, application_id, utilisateur_id, issuer, attempts`,
    )
    .bind(addSeconds(LEASE_SECONDS, now).toISOString(), at, MAX_ATTEMPTS, at, BATCH)
    .all<Claimed>()
  if (claimed.length === 0) return { sent: 0, failed: 0 }
  const clients = await ctx.db
    .selectFrom('oidc_client')
    .select(['application_id', 'client_id', 'backchannel_logout_uri'])
    .where('application_id', 'in', [...new Set(claimed.map((d) => d.application_id))])
    .execute()
  const byApplication = new Map(clients.map((c) => [c.application_id, c]))
  const outcomes = await Promise.all(
    claimed.map(async (delivery) => {
      const client = byApplication.get(delivery.application_id)
      const uri = client?.backchannel_logout_uri ?? null
      let error: string | null = null
      let final = false
      if (!client || !uri) {
        ;[error, final] = ['The client no longer has a back-channel logout URI', true]
      } else if (!deliverable(ctx.env, uri)) {
        ;[error, final] = ['Address not allowed here (loopback in development only, https elsewhere)', true]
      } else {
        error = await post(fetcher, uri, await logoutToken(ctx, delivery, client.client_id, now.getTime()))
      }
      await record(ctx, delivery, error, final, now)
      return error === null
    }),
  )
  const sent = outcomes.filter(Boolean).length
  return { sent, failed: outcomes.length - sent }
}

/** The POST of a logout token; null when the client took it (any 2xx), else why not. */
async function post(fetcher: typeof fetch, uri: string, token: string): Promise<string | null> {
  try {
    const response = await fetcher(uri, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ logout_token: token }).toString(),
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    })
    await response.body?.cancel()
    return response.ok ? null : `HTTP ${response.status}`
  } catch (error) {
    return String(error).slice(0, 200)
  }
}

function record(ctx: Ctx, delivery: Claimed, error: string | null, final: boolean, now: Date) {
  const statement =
    error === null
      ? ctx.d1
          .prepare('UPDATE logout_delivery SET sent_at = ?, locked_until = NULL, last_error = NULL WHERE id = ?')
          .bind(now.toISOString(), delivery.id)
      : ctx.d1
          .prepare(
            'UPDATE logout_delivery SET last_error = ?, locked_until = NULL, next_attempt_at = ?, attempts = ? WHERE id = ?',
          )
          .bind(
            error,
            addSeconds(retryDelaySeconds(delivery.attempts), now).toISOString(),
            final ? MAX_ATTEMPTS : delivery.attempts,
            delivery.id,
          )
  return statement.run().catch((failure: unknown) => console.error('Logout delivery outcome not recorded', failure))
}
