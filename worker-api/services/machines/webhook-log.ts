import { type SqlBool, sql } from 'kysely'
import { nowIso } from '../../contract/dates'
import type { WebhookDeliveriesQuery, WebhookDelivery, WebhookDeliveryState } from '../../contract/machines/webhooks'
import { insertWhen, namedBatch } from '../../db/client'
import { notFound } from '../../lib/errors'
import { onePage } from '../../lib/query'
import type { Ctx } from '../../lib/types'
import { adminWith, type Caller, viewerOf } from '../core/actor'
import { adminLog } from '../core/audit'
import { afterOneRow } from '../core/events'
import { unknownWebhook, webhookInScope, webhooksQuery } from './webhooks'

/**
 * A subscription's delivery log (issue 65): each event it was due, its state, attempts and the receiver's last answer,
 * newest first; and "send again", which makes one due at once, whatever came of it, with its entry in the history.
 */

/** A page of the log when none is asked. */
export const WEBHOOK_LOG_PAGE = 20

const stateOf = (row: { sent_at: string | null; abandoned_at: string | null }): WebhookDeliveryState =>
  row.sent_at !== null ? 'LIVREE' : row.abandoned_at !== null ? 'ABANDONNEE' : 'EN_ATTENTE'

const STATE_SQL = {
  EN_ATTENTE: sql<SqlBool>`d.sent_at is null and d.abandoned_at is null`,
  LIVREE: sql<SqlBool>`d.sent_at is not null`,
  ABANDONNEE: sql<SqlBool>`d.abandoned_at is not null`,
} as const

type DeliveryRow = {
  id: number
  evenement_id: number
  type: string
  date: string
  attempts: number
  last_status: number | null
  last_error: string | null
  last_attempt_at: string | null
  next_attempt_at: string
  sent_at: string | null
  abandoned_at: string | null
}

function toDelivery(row: DeliveryRow): WebhookDelivery {
  const etat = stateOf(row)
  return {
    id: row.id,
    evenement: { id: row.evenement_id, type: row.type, date: row.date },
    etat,
    tentatives: row.attempts,
    dernierCode: row.last_status,
    derniereErreur: row.last_error,
    derniereTentative: row.last_attempt_at,
    prochaineTentative: etat === 'EN_ATTENTE' ? row.next_attempt_at : null,
    livreeLe: row.sent_at,
  }
}

/** The deliveries of the subscription `id` while it is in the viewer's scope. */
function deliveriesQuery(ctx: Ctx, caller: Caller, id: number) {
  return ctx.db
    .selectFrom('webhook_livraison as d')
    .innerJoin('evenement as e', 'e.id', 'd.evenement_id')
    .select([
      'd.id',
      'd.evenement_id',
      'e.type',
      'e.date',
      'd.attempts',
      'd.last_status',
      'd.last_error',
      'd.last_attempt_at',
      'd.next_attempt_at',
      'd.sent_at',
      'd.abandoned_at',
    ])
    .where('d.webhook_id', '=', id)
    .where(
      'd.webhook_id',
      'in',
      webhooksQuery(ctx.db, viewerOf(caller)).clearSelect().select('w.id').where('w.id', '=', id),
    )
}

/** GET rest/bd/webhook/{id}/livraisons: a page of the log (the total in X-Total-Count), in one round trip. */
export async function listDeliveries(
  ctx: Ctx,
  caller: Caller,
  id: number,
  query: WebhookDeliveriesQuery,
): Promise<{ items: WebhookDelivery[]; total: number }> {
  const all = deliveriesQuery(ctx, caller, id)
  const matching = query.etat ? all.where(STATE_SQL[query.etat]) : all
  const { hook, rows, total } = await adminWith(ctx, caller, {
    hook: webhooksQuery(ctx.db, viewerOf(caller)).clearSelect().select('w.id').where('w.id', '=', id),
    rows: onePage(matching.orderBy('d.id', 'desc'), {
      page: query.page ?? 1,
      taille: query.taille ?? WEBHOOK_LOG_PAGE,
    }),
    total: matching.clearSelect().select((eb) => eb.fn.countAll<number>().as('total')),
  })
  if (hook.length === 0) throw unknownWebhook()
  return { items: rows.map(toDelivery), total: total[0]?.total ?? 0 }
}

/**
 * POST rest/bd/webhook/{id}/livraisons/{livraisonId}/renvoi: the delivery due at once, its attempts counted afresh
 * (one being sent right now is left to finish). It goes while its subscription is on, after the earlier events of its
 * person; the history says who sent it again. Answers it as it now stands.
 */
export async function resendDelivery(
  ctx: Ctx,
  caller: Caller,
  id: number,
  livraisonId: number,
): Promise<WebhookDelivery> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const { actor, rows } = await adminWith(ctx, caller, {
    rows: deliveriesQuery(ctx, caller, id)
      .innerJoin('webhook as hook', 'hook.id', 'd.webhook_id')
      .select('hook.url')
      .where('d.id', '=', livraisonId),
  })
  const known = rows[0]
  if (!known) throw notFound('Unknown delivery of this subscription')
  const now = nowIso()
  const { after } = await namedBatch(ctx.d1, {
    reset: db
      .updateTable('webhook_livraison')
      .set({ sent_at: null, abandoned_at: null, attempts: 0, next_attempt_at: now, locked_until: null })
      .where('id', '=', livraisonId)
      .where('webhook_id', 'in', webhookInScope(ctx, caller, viewer, id))
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)])),
    log: insertWhen(
      db,
      'log',
      adminLog(actor, 'WEBHOOK_RENVOI', `${known.url} : ${known.type} #${known.evenement_id}`, ctx.request.userAgent),
      db.selectNoFrom(sql<number>`1`.as('one')).where(afterOneRow),
    ),
    after: deliveriesQuery(ctx, caller, id).where('d.id', '=', livraisonId),
  })
  const row = after?.results[0] as DeliveryRow | undefined
  if (!row) throw notFound('Unknown delivery of this subscription')
  return toDelivery(row)
}
