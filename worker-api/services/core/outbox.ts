import type { Expression, SelectQueryBuilder } from 'kysely'
import { addSeconds } from '../../contract/dates'
import { type DB, insertWhen } from '../../db/client'
import type { Database, MailKind, OutboxRow } from '../../db/schema'
import { type MailProvider, mailProvider } from '../../lib/mail/providers'
import type { RenderedMail } from '../../lib/mail/render'
import type { Ctx } from '../../lib/types'
import {
  INVITATION_TTL_HOURS,
  MAIL_CHANGE_TTL_HOURS,
  PASSWORD_RESET_TTL_HOURS,
  REGISTRATION_TTL_HOURS,
} from './mail-tokens'

/**
 * The outbox (DESIGN §5). A mail is inserted in the same D1 batch as whatever it announces (the
 * token it carries), so one never exists without the other. Delivery happens after the response
 * (`waitUntil`) and again from the cron for whatever failed, with growing delays. A sender first
 * leases the rows it takes, in one statement, so the request and the cron never send a mail twice.
 */

/** Wait after the n-th failed attempt; the last entry repeats. 27.9 hours in all (100 380 s). */
export const RETRY_DELAYS_SECONDS = [60, 120, 300, 900, 1800, 3600, 7200, 14_400, 28_800, 43_200]
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1
/** Longer than a provider call may take (10 s timeout), so a live sender never loses its lease. */
const LEASE_SECONDS = 60
const CRON_BATCH = 25

/**
 * The insert to put in the batch of the write the mail belongs to; returns the new row's id. With
 * `onlyIf`, the mail is written only when that query finds a row at that point of the batch (the
 * notice of a change that may lose a race).
 */
export function queueMail(
  db: DB,
  mail: RenderedMail & { to: string; userId: number | null | Expression<number>; kind: MailKind },
  now = new Date(),
  onlyIf?: SelectQueryBuilder<Database, keyof Database, unknown>,
) {
  const row = {
    utilisateur_id: mail.userId,
    to_address: mail.to,
    subject: mail.subject,
    html: mail.html,
    text: mail.text,
    kind: mail.kind,
    created_at: now.toISOString(),
    next_attempt_at: now.toISOString(),
  }
  const insert = onlyIf ? insertWhen(db, 'outbox', row, onlyIf) : db.insertInto('outbox').values(row)
  return insert.returning('id')
}

/**
 * The mail a batch's `queueMail` statements queued, handed to the request: the API's middleware
 * delivers it once the response is sent (app.ts). Answers the ids.
 */
export function mailQueued(ctx: Ctx, results: (D1Result | undefined)[]): number[] {
  const ids = results.flatMap((result) =>
    ((result?.results ?? []) as { id?: unknown }[]).flatMap((row) => (typeof row.id === 'number' ? [row.id] : [])),
  )
  ctx.mail.push(...ids)
  return ids
}

type Claimed = Pick<OutboxRow, 'id' | 'created_at' | 'to_address' | 'subject' | 'html' | 'text' | 'attempts' | 'kind'>

/**
 * Mails whose body carries a token, and how long it lives: once a real provider has them the outbox
 * keeps no copy, and one still undelivered when its link expires is not sent at all.
 */
const TOKEN_LIFETIME_SECONDS: Partial<Record<MailKind, number>> = {
  PASSWORD_RESET: PASSWORD_RESET_TTL_HOURS * 3600,
  MAIL_CHANGE_CONFIRM: MAIL_CHANGE_TTL_HOURS * 3600,
  INVITATION: INVITATION_TTL_HOURS * 3600,
  REGISTRATION: REGISTRATION_TTL_HOURS * 3600,
}
/** Workers allow six simultaneous outgoing connections; a provider call waiting for one must not time out. */
const SEND_CONCURRENCY = 5

/** Leases the due, undelivered mails (all of them, or the given ids) and counts the attempt. */
async function claim(ctx: Ctx, now: Date, ids: number[] | null, limit: number): Promise<Claimed[]> {
  const at = now.toISOString()
  const only = ids ? `AND id IN (${ids.map(() => '?').join(', ')})` : ''
  const { results } = await ctx.d1
    .prepare(
      `UPDATE outbox SET locked_until = ?, attempts = attempts + 1
     WHERE id IN (
       SELECT id FROM outbox
       WHERE sent_at IS NULL AND next_attempt_at <= ? AND attempts < ?
         AND (locked_until IS NULL OR locked_until <= ?) ${only}
       ORDER BY next_attempt_at LIMIT ?)
     RETURNING id, created_at, to_address, subject, html, text, attempts, kind`,
    )
    .bind(addSeconds(LEASE_SECONDS, now).toISOString(), at, MAX_ATTEMPTS, at, ...(ids ?? []), limit)
    .all<Claimed>()
  return results
}

/**
 * A mail whose link has expired before it could be delivered would only bring a dead link: it is
 * given up (attempts at the maximum), with the reason, and its body (the token) is dropped.
 */
async function dropExpiredLinks(ctx: Ctx, now: Date) {
  const statements = Object.entries(TOKEN_LIFETIME_SECONDS).map(([kind, lifetime]) =>
    ctx.d1
      .prepare(
        `UPDATE outbox SET html = '', text = '', attempts = ?, locked_until = NULL,
         last_error = 'Link expired before delivery'
       WHERE sent_at IS NULL AND kind = ? AND created_at <= ?
         AND (locked_until IS NULL OR locked_until <= ?) AND attempts < ?`,
      )
      .bind(MAX_ATTEMPTS, kind, addSeconds(-(lifetime ?? 0), now).toISOString(), now.toISOString(), MAX_ATTEMPTS),
  )
  if (statements.length > 0) await ctx.d1.batch(statements)
}

function record(statement: D1PreparedStatement) {
  return statement.run().catch((error: unknown) => console.error('Outbox outcome not recorded', error))
}

export const retryDelaySeconds = (attempts: number) =>
  RETRY_DELAYS_SECONDS[Math.min(attempts, RETRY_DELAYS_SECONDS.length) - 1] ?? 60

/**
 * Sends what is due (or just `ids`, right after they were queued) through the provider, recording
 * each outcome. Never throws: a failure is kept on the row (`last_error`) for the next attempt.
 */
export async function deliverOutbox(
  ctx: Ctx,
  {
    ids = null,
    now = new Date(),
    provider = mailProvider(ctx.env),
  }: {
    ids?: number[] | null
    now?: Date
    provider?: MailProvider
  } = {},
) {
  if (ids?.length === 0) return { sent: 0, failed: 0 }
  if (!ids) await dropExpiredLinks(ctx, now)
  const claimed = await claim(ctx, now, ids, ids?.length ?? CRON_BATCH)
  const outcomes: boolean[] = []
  for (let start = 0; start < claimed.length; start += SEND_CONCURRENCY) {
    outcomes.push(...(await Promise.all(claimed.slice(start, start + SEND_CONCURRENCY).map(sendOne))))
  }
  const sent = outcomes.filter(Boolean).length
  return { sent, failed: outcomes.length - sent }

  async function sendOne(mail: Claimed): Promise<boolean> {
    let messageId: string | null
    try {
      ;({ messageId } = await provider.send({
        id: mail.id,
        createdAt: mail.created_at,
        to: mail.to_address,
        subject: mail.subject,
        html: mail.html,
        text: mail.text,
      }))
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      console.error(`Mail #${mail.id} not delivered (attempt ${mail.attempts}): ${message}`)
      await record(
        ctx.d1
          .prepare('UPDATE outbox SET last_error = ?, locked_until = NULL, next_attempt_at = ? WHERE id = ?')
          .bind(message.slice(0, 500), addSeconds(retryDelaySeconds(mail.attempts), now).toISOString(), mail.id),
      )
      return false
    }
    // Should this record fail, the lease runs out and a later attempt sends again: the provider's
    // idempotency key turns that into a no-op.
    // Tokens are stored hashed (DESIGN §5); the delivered copy of a link would undo that. The log
    // provider keeps it: that outbox is the development mailbox.
    const redact = provider.name !== 'log' && TOKEN_LIFETIME_SECONDS[mail.kind] !== undefined
    await record(
      ctx.d1
        .prepare(
          `UPDATE outbox SET sent_at = ?, locked_until = NULL, last_error = NULL, provider_message_id = ?
             ${redact ? ", html = '', text = ''" : ''} WHERE id = ?`,
        )
        .bind(new Date().toISOString(), messageId, mail.id),
    )
    return true
  }
}
