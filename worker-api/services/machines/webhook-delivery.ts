import { sql } from 'kysely'
import { addSeconds, nowIso, todayIso } from '../../contract/dates'
import { batch, namedBatch } from '../../db/client'
import { mailLanguage, webhookDisabledMail } from '../../lib/mail/templates'
import { administersPath } from '../../lib/scope'
import type { Ctx } from '../../lib/types'
import { webhookHeaders } from '../../lib/webhook-signature'
import { eventOf } from '../core/events'
import { enqueue } from '../core/jobs'
import { deliverable } from '../core/outbound'
import { mailQueued, queueMail } from '../core/outbox'
import { signingSecrets } from './webhooks'

/**
 * Webhook deliveries (issue 65): the trigger of migration 0046 queues one row per event and subscription in the
 * change's batch; this sends them, from the jobs queue (a message after each write that told of a change) and the
 * minute's cron. A sender leases what it takes, so that no delivery is posted twice at once; a subscription receives
 * a person's events one at a time and in order; a failure is tried again on Standard Webhooks' schedule, for a day
 * and more, then the subscription stops and its administrator is told. An address that answers 410 Gone stops it at
 * once.
 */

/** The delays before each new attempt (Standard Webhooks' schedule): 8 attempts over 27 h 35 min. */
export const WEBHOOK_RETRY_DELAYS_SECONDS = [5, 300, 1800, 7200, 18_000, 36_000, 36_000]
export const WEBHOOK_ATTEMPTS = WEBHOOK_RETRY_DELAYS_SECONDS.length + 1
/** How long a receiver has to answer (the standard asks 15 to 30 s). */
export const WEBHOOK_TIMEOUT_MS = 15_000
/** The longest a receiver's `Retry-After` puts the next attempt off. */
const RETRY_AFTER_MAX_SECONDS = 86_400
/** Past the timeout, so that an attempt still running is never taken again. */
const LEASE_SECONDS = 60
/**
 * Deliveries taken at once: a Worker has 6 connections waiting for an answer at a time, so each of the 6 has its whole
 * timeout (more would wait their turn while their timeout runs), and a round ends well within its lease.
 */
export const WEBHOOK_BATCH = 6
/** How long a delivery waits when its subscription's administrator no longer administers its structure. */
const OWNER_WAIT_SECONDS = 3600
/** A receiver's answer kept in the log, at most. */
const ERROR_CHARS = 200

/** Whether a delivery is due: asked after every write that told of a change, so that it takes no write lock. */
const DUE = `SELECT 1 FROM webhook_livraison d JOIN webhook w ON w.id = d.webhook_id
  WHERE d.sent_at IS NULL AND d.abandoned_at IS NULL AND d.next_attempt_at <= ? AND w.actif = 1
  LIMIT 1`

/**
 * Takes up to `limit` due deliveries (a lease: `locked_until`), the oldest first, each only once every earlier event
 * of its person for its subscription is settled (delivered or given up): the order per subject.
 */
const CLAIM = `UPDATE webhook_livraison SET locked_until = ?1, attempts = attempts + 1
  WHERE id IN (
    SELECT d.id FROM webhook_livraison d JOIN webhook w ON w.id = d.webhook_id
    WHERE d.sent_at IS NULL AND d.abandoned_at IS NULL AND d.next_attempt_at <= ?2
      AND (d.locked_until IS NULL OR d.locked_until <= ?2) AND w.actif = 1
      AND NOT EXISTS (
        SELECT 1 FROM webhook_livraison earlier
        WHERE earlier.webhook_id = d.webhook_id AND earlier.sujet_cle = d.sujet_cle
          AND earlier.evenement_id < d.evenement_id AND earlier.sent_at IS NULL AND earlier.abandoned_at IS NULL)
    ORDER BY d.next_attempt_at, d.evenement_id
    LIMIT ?3)
  RETURNING id, webhook_id, evenement_id, attempts, locked_until`

/** A subscription as its deliveries need it: where, the secrets, whether it is live, whom to tell. */
type HookRow = {
  id: number
  url: string
  secret_scelle: string
  ancien_secret_scelle: string | null
  ancien_secret_expire: string | null
  cree_par: number | null
  live: number
  owner_mail: string | null
  owner_nom: string | null
  owner_prenom: string | null
  owner_login: string | null
  owner_langue: string | null
}

type Claimed = { id: number; webhook_id: number; evenement_id: number; attempts: number; locked_until: string }

/** What one attempt came to: delivered, or why not, and whether to try again. */
type Outcome =
  | { sent: true; status: number }
  | { sent: false; status: number | null; error: string; retryAfter?: number; stop?: 'GONE' | 'OWNER' }

/** The delay before the attempt after the `attempts`-th, or null when it was the last. */
export const webhookRetryDelay = (attempts: number): number | null => WEBHOOK_RETRY_DELAYS_SECONDS[attempts - 1] ?? null

export type DeliveryOptions = {
  now?: Date
  /** The network (a test passes its own to time out quickly, or to count). */
  fetcher?: typeof fetch
  timeoutMs?: number
  limit?: number
}

/**
 * Sends what is due, recording each outcome; never throws for a receiver's failure. Answers how many went and
 * failed, and whether a full batch was taken (more may be due).
 */
export async function deliverWebhooks(
  ctx: Ctx,
  { now = new Date(), fetcher = fetch, timeoutMs = WEBHOOK_TIMEOUT_MS, limit = WEBHOOK_BATCH }: DeliveryOptions = {},
): Promise<{ sent: number; failed: number; more: boolean }> {
  const due = await ctx.d1.prepare(DUE).bind(nowIso(now)).first()
  if (!due) return { sent: 0, failed: 0, more: false }
  return sendDue(ctx, { now, fetcher, timeoutMs, limit })
}

/** `deliverWebhooks` once a delivery is known to be due. */
async function sendDue(ctx: Ctx, { now, fetcher, timeoutMs, limit }: Required<DeliveryOptions>) {
  const total = { sent: 0, failed: 0, more: false }
  // Each round on the clock as it runs (a caller's `now` shifts it: a test's later time), so that a lease is taken for
  // its round's own minute.
  const offset = now.getTime() - Date.now()
  // A person's next event waits for the one before it: each round sends what the last one freed.
  for (let round = 0; round < ROUNDS; round++) {
    const at = new Date(Date.now() + offset)
    const { sent, failed, claimed } = await deliveryRound(ctx, at, fetcher, timeoutMs, limit)
    total.sent += sent
    total.failed += failed
    total.more = claimed > 0 && round === ROUNDS - 1
    if (claimed === 0 || sent === 0) break
  }
  return total
}

/** The rounds one run sends at most: a message's work stays short, the next message (or the cron) goes on. */
const ROUNDS = 10

/** One round: what is due is taken, sent at once, and each outcome recorded. */
async function deliveryRound(ctx: Ctx, now: Date, fetcher: typeof fetch, timeoutMs: number, limit: number) {
  const at = nowIso(now)
  const { results: claimed } = await ctx.d1
    .prepare(CLAIM)
    .bind(nowIso(addSeconds(LEASE_SECONDS, now)), at, limit)
    .all<Claimed>()
  if (claimed.length === 0) return { sent: 0, failed: 0, claimed: 0 }
  const db = ctx.db
  const { events, hooks } = await namedBatch(ctx.d1, {
    events: db
      .selectFrom('evenement')
      .select(['id', 'type', 'date', 'acteur', 'sujet', 'data'])
      .where('id', 'in', [...new Set(claimed.map((d) => d.evenement_id))]),
    hooks: db
      .selectFrom('webhook as w')
      .innerJoin('structure as s', 's.id', 'w.structure_id')
      .leftJoin('utilisateur as owner', 'owner.id', 'w.cree_par')
      .select(['w.id', 'w.url', 'w.secret_scelle', 'w.ancien_secret_scelle', 'w.ancien_secret_expire', 'w.cree_par'])
      .select([
        'owner.mail as owner_mail',
        'owner.nom as owner_nom',
        'owner.prenom as owner_prenom',
        'owner.login as owner_login',
        'owner.langue as owner_langue',
      ])
      // Its administrator still administers its structure: else it delivers nothing, as a service account acts for
      // nobody once its administrator is gone.
      .select(sql<number>`coalesce(${administersPath('w.cree_par', 's.path', todayIso(now))}, 0)`.as('live'))
      .where('w.id', 'in', [...new Set(claimed.map((d) => d.webhook_id))]),
  })
  const eventById = new Map((events?.results ?? []).map((e) => [e.id, e]))
  const hookById = new Map<number, HookRow>((hooks?.results ?? []).map((h) => [h.id, h]))
  const secrets = new Map<number, Promise<string[]>>()
  const outcomes = await Promise.all(
    claimed.map(async (delivery): Promise<Outcome> => {
      const event = eventById.get(delivery.evenement_id)
      const hook = hookById.get(delivery.webhook_id)
      if (!event || !hook) return { sent: false, status: null, error: 'Gone before it was sent' }
      if (!hook.live) {
        return {
          sent: false,
          status: null,
          error: "Its administrator no longer administers the subscription's structure",
          stop: 'OWNER',
        }
      }
      if (!deliverable(ctx.env, hook.url)) {
        return {
          sent: false,
          status: null,
          error: 'Address not allowed here (loopback in development only, https on a public host elsewhere)',
        }
      }
      if (!secrets.has(hook.id)) secrets.set(hook.id, signingSecrets(ctx.env, hook, at))
      const signing = await (secrets.get(hook.id) as Promise<string[]>)
      if (signing.length === 0) return { sent: false, status: null, error: 'Its secret cannot be read on this server' }
      return post(fetcher, hook.url, `evt_${event.id}`, JSON.stringify(eventOf(event)), signing, timeoutMs)
    }),
  )
  await record(ctx, claimed, outcomes, hookById, now)
  const sent = outcomes.filter((outcome) => outcome.sent).length
  return { sent, failed: outcomes.length - sent, claimed: claimed.length }
}

/** One signed POST (Standard Webhooks): any 2xx delivers; a redirect is no answer (3xx: a failure). */
async function post(
  fetcher: typeof fetch,
  url: string,
  id: string,
  body: string,
  secrets: string[],
  timeoutMs: number,
): Promise<Outcome> {
  try {
    const response = await fetcher(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': 'Portail-Webhooks/1',
        ...(await webhookHeaders(secrets, id, new Date(), body)),
      },
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    })
    if (response.ok) {
      await response.body?.cancel()
      return { sent: true, status: response.status }
    }
    const text = await answerStart(response)
    const retryAfter = Number(response.headers.get('Retry-After'))
    return {
      sent: false,
      status: response.status,
      error: `HTTP ${response.status}${text ? `: ${text}` : ''}`,
      ...(Number.isInteger(retryAfter) && retryAfter > 0
        ? { retryAfter: Math.min(retryAfter, RETRY_AFTER_MAX_SECONDS) }
        : {}),
      ...(response.status === 410 ? { stop: 'GONE' as const } : {}),
    }
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')
    return {
      sent: false,
      status: null,
      error: timedOut ? `No answer within ${timeoutMs / 1000} s` : String(error).slice(0, ERROR_CHARS),
    }
  }
}

/** The first `ERROR_CHARS` characters of an answer, the rest never read (a receiver may answer a huge body). */
async function answerStart(response: Response): Promise<string> {
  const reader = response.body?.getReader()
  if (!reader) return ''
  const decoder = new TextDecoder()
  let text = ''
  try {
    while (text.length < ERROR_CHARS) {
      const { done, value } = await reader.read()
      if (done) break
      text += decoder.decode(value, { stream: true })
    }
  } catch {
    // What was read is enough to say why.
  } finally {
    await reader.cancel().catch(() => {})
  }
  return text.slice(0, ERROR_CHARS)
}

/**
 * Each outcome in one batch: a delivery settled (sent, or given up after its last attempt, or stopped), else put off
 * by the schedule (or the receiver's `Retry-After`, if later). A subscription whose address answered 410, or whose
 * delivery was given up, stops, and its administrator is told once (the stop's own condition).
 */
async function record(ctx: Ctx, claimed: Claimed[], outcomes: Outcome[], hooks: Map<number, HookRow>, now: Date) {
  const db = ctx.db
  const at = nowIso(now)
  const stopped = new Map<number, 'GONE' | 'ECHECS'>()
  const statements = claimed.map((delivery, index) => {
    const outcome = outcomes[index] as Outcome
    // Under its own lease: an attempt whose lease ran out (and was taken again) records nothing over the next one's.
    const settle = db
      .updateTable('webhook_livraison')
      .where('id', '=', delivery.id)
      .where('locked_until', '=', delivery.locked_until)
      .set({ locked_until: null, last_attempt_at: at, last_status: outcome.status })
    if (outcome.sent) return settle.set({ sent_at: at, last_error: null })
    const delay = webhookRetryDelay(delivery.attempts)
    // Its administrator may be given their post back, or another take it over: put off an hour, the attempt uncounted.
    if (outcome.stop === 'OWNER') {
      return settle.set({
        last_error: outcome.error,
        attempts: delivery.attempts - 1,
        next_attempt_at: nowIso(addSeconds(OWNER_WAIT_SECONDS, now)),
      })
    }
    if (outcome.stop === 'GONE' || delay === null) {
      stopped.set(delivery.webhook_id, outcome.stop === 'GONE' ? 'GONE' : 'ECHECS')
      return settle.set({ last_error: outcome.error, abandoned_at: at })
    }
    const next = addSeconds(Math.max(delay, outcome.retryAfter ?? 0), now)
    return settle.set({ last_error: outcome.error, next_attempt_at: nowIso(next) })
  })
  const stops = [...stopped].flatMap(([webhookId, motif]) => {
    const hook = hooks.get(webhookId)
    return hook ? stopWrites(ctx, hook, motif, now) : []
  })
  try {
    const results = await batch(ctx.d1, [...statements, ...stops.map((stop) => stop.statement)])
    mailQueued(
      ctx,
      results.slice(statements.length).filter((_, index) => stops[index]?.mail),
    )
  } catch (error) {
    // The leases run out and the deliveries are tried again: at least once, never lost.
    console.error('Webhook delivery outcomes not recorded', error)
  }
}

/** A subscription stopped (`motif`), and its administrator's mail, both only while it was still on. */
function stopWrites(ctx: Ctx, hook: HookRow, motif: 'GONE' | 'ECHECS', now: Date) {
  const db = ctx.db
  const at = nowIso(now)
  const stillOn = db.selectFrom('webhook').select('id').where('id', '=', hook.id).where('actif', '=', 1)
  const owner = hook.owner_mail
    ? {
        statement: queueMail(
          db,
          {
            ...webhookDisabledMail(
              mailLanguage(hook.owner_langue ?? 'fr'),
              { nom: hook.owner_nom ?? '', prenom: hook.owner_prenom ?? '', login: hook.owner_login ?? '' },
              hook.url,
              motif === 'GONE' ? 'gone' : 'failing',
            ),
            to: hook.owner_mail,
            userId: hook.cree_par,
            kind: 'WEBHOOK_DISABLED',
          },
          now,
          // Before the stop, under the condition it changes: told once.
          stillOn,
        ),
        mail: true,
      }
    : null
  return [
    ...(owner ? [owner] : []),
    {
      statement: db
        .updateTable('webhook')
        .set({ actif: 0, desactive_motif: motif, desactive_le: at, updated_at: at })
        .where('id', '=', hook.id)
        .where('actif', '=', 1),
      mail: false,
    },
  ]
}

/**
 * After a write that told of a change, and from the minute's cron: if a delivery is due, a message on the jobs queue
 * sends it (the consumer: `deliverWebhooks`); without a queue (a local run), it is sent here.
 */
export async function startDeliveries(ctx: Ctx, now = new Date()): Promise<boolean> {
  const due = await ctx.d1.prepare(DUE).bind(nowIso(now)).first()
  if (!due) return false
  if (ctx.env.JOBS) await enqueue(ctx, { kind: 'webhook-delivery' })
  else await sendDue(ctx, { now, fetcher: fetch, timeoutMs: WEBHOOK_TIMEOUT_MS, limit: WEBHOOK_BATCH })
  return true
}
