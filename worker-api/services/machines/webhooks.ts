import { sql } from 'kysely'
import { nowIso } from '../../contract/dates'
import { PREVIOUS_SECRET_HOURS } from '../../contract/machines/service-accounts'
import type {
  Webhook,
  WebhookCreate,
  WebhookCreated,
  WebhookListQuery,
  WebhookSecretInput,
  WebhookUpdate,
} from '../../contract/machines/webhooks'
import { isClientUri } from '../../contract/oidc/oidc'
import { type DB, insertWhen, namedBatch } from '../../db/client'
import { isLocalEnvironment } from '../../env'
import { openWithToken, sealWithToken } from '../../lib/crypto'
import { BusinessError, notFound } from '../../lib/errors'
import { containsEveryWord, onePage, WHOLE_LIST_READ, wholeList } from '../../lib/query'
import { pathInScope, type Viewer } from '../../lib/scope'
import { foldSearchText } from '../../lib/search-text'
import type { Ctx, Env } from '../../lib/types'
import { newWebhookSecret } from '../../lib/webhook-signature'
import { adminWith, type Caller, liveAdmin, viewerOf } from '../core/actor'
import { adminLogWhen } from '../core/audit'
import { inScopeOrFail, structureInScopeQuery } from '../organisation/structures'

/**
 * Webhook subscriptions (issue 65, migration 0045): made by an administrator on a structure of their scope, read and
 * changed by the administrators whose scope holds it; each write in one batch with its audit entry, the scope checked
 * again inside it. The secret is sealed with WEBHOOK_SECRET_KEY (it signs each delivery, so it is read back) and
 * answered once.
 */

const PURPOSE = 'webhook-secret'

const keyOf = (env: Pick<Env, 'WEBHOOK_SECRET_KEY'>) => {
  const key = env.WEBHOOK_SECRET_KEY
  if (!key || key.length < 32) {
    throw new BusinessError('TECHNICAL_ERROR', 503, 'WEBHOOK_SECRET_KEY is not configured on this server')
  }
  return key
}

/** A new secret and its sealed form, for a subscription's row. */
async function sealedSecret(env: Pick<Env, 'WEBHOOK_SECRET_KEY'>) {
  const secret = newWebhookSecret()
  return { secret, sealed: await sealWithToken(keyOf(env), PURPOSE, secret) }
}

/**
 * The secrets that sign a subscription's deliveries at `now`: its own, then the former one while it still signs. None
 * when they cannot be opened (the key changed): nothing is signed with a secret the integrator no longer holds.
 */
export async function signingSecrets(
  env: Pick<Env, 'WEBHOOK_SECRET_KEY'>,
  row: { secret_scelle: string; ancien_secret_scelle: string | null; ancien_secret_expire: string | null },
  now = nowIso(),
): Promise<string[]> {
  const key = env.WEBHOOK_SECRET_KEY
  if (!key) return []
  const current = await openWithToken(key, PURPOSE, row.secret_scelle)
  if (current === null) return []
  const former =
    row.ancien_secret_scelle !== null && row.ancien_secret_expire !== null && row.ancien_secret_expire > now
      ? await openWithToken(key, PURPOSE, row.ancien_secret_scelle)
      : null
  return former === null ? [current] : [current, former]
}

/** The address's host as this server accepts it: loopback in development and tests only (400 on `url`). */
function requireDeliverable(ctx: Ctx, url: string | undefined) {
  if (url === undefined || isClientUri(url, { loopback: isLocalEnvironment(ctx.env) })) return
  throw new BusinessError('VALIDATION_FAILED', 400, 'A loopback address is accepted in development only', [
    { field: 'url', message: 'validation.clientUriLocal' },
  ])
}

/** The subscriptions of the viewer's scope, under `w` with their structure `s`. */
export function webhooksQuery(db: DB, viewer: Viewer) {
  return db
    .selectFrom('webhook as w')
    .innerJoin('structure as s', 's.id', 'w.structure_id')
    .leftJoin('utilisateur as responsable', 'responsable.id', 'w.cree_par')
    .select([
      'w.id',
      'w.url',
      'w.evenements',
      'w.description',
      'w.actif',
      'w.structure_id',
      's.nom as structure_nom',
      'w.cree_par',
      'responsable.nom as responsable_nom',
      'responsable.prenom as responsable_prenom',
      'w.ancien_secret_expire',
      'w.desactive_motif',
      'w.desactive_le',
      'w.created_at',
      'w.updated_at',
    ])
    .where(pathInScope(db, viewer, sql.ref<string>('s.path')))
}

type WebhookRow = Awaited<ReturnType<ReturnType<typeof webhooksQuery>['execute']>>[number]

function toWebhook(row: WebhookRow, now = nowIso()): Webhook {
  return {
    id: row.id,
    url: row.url,
    evenements: JSON.parse(row.evenements) as string[],
    description: row.description,
    actif: row.actif === 1,
    structure: { id: row.structure_id, nom: row.structure_nom },
    responsable:
      row.cree_par === null
        ? null
        : { id: row.cree_par, nom: row.responsable_nom ?? '', prenom: row.responsable_prenom ?? '' },
    ancienSecretExpire:
      row.ancien_secret_expire !== null && row.ancien_secret_expire > now ? row.ancien_secret_expire : null,
    desactivation:
      row.actif === 0 && row.desactive_motif !== null && row.desactive_le !== null
        ? { motif: row.desactive_motif, date: row.desactive_le }
        : null,
    creation: row.created_at,
    modification: row.updated_at,
  }
}

/** The subscription `id` while its structure is in the viewer's scope and the caller still administers, as a guard. */
export const webhookInScope = (ctx: Ctx, caller: Caller, viewer: Viewer, id: number) =>
  webhooksQuery(ctx.db, viewer).clearSelect().select('w.id').where('w.id', '=', id).where(liveAdmin(ctx, caller))

const sortedEvents = (events: readonly string[]) => JSON.stringify([...events].sort())

/** What the list's search reads of a subscription: its address and description, folded. */
const searched = (url: string, description: string | null) => foldSearchText(`${url}\n${description ?? ''}`)

export const unknownWebhook = () => notFound('Unknown webhook subscription')

/** The checked administrator and the subscription `id` of their scope (404 for none), in one round trip. */
async function knownWebhook(ctx: Ctx, caller: Caller, viewer: Viewer, id: number) {
  const { actor, rows } = await adminWith(ctx, caller, { rows: webhooksQuery(ctx.db, viewer).where('w.id', '=', id) })
  const known = rows[0]
  if (!known) throw unknownWebhook()
  return { actor, known }
}

/** GET rest/bd/webhook: the subscriptions of the caller's scope, by address; with `page`, one page and the total. */
export async function listWebhooks(
  ctx: Ctx,
  caller: Caller,
  query: WebhookListQuery,
): Promise<{ items: Webhook[]; total: number | null }> {
  const db = ctx.db
  const search = containsEveryWord(['w.recherche'], query.q)
  const matching =
    search === null ? webhooksQuery(db, viewerOf(caller)) : webhooksQuery(db, viewerOf(caller)).where(search)
  const ordered = matching.orderBy('w.url').orderBy('w.id')
  const { rows, total } = await adminWith(ctx, caller, {
    // A whole list reads one more than it may answer: past WHOLE_LIST_MAX, 400 LIST_TOO_LARGE (ask for pages).
    rows: query.page === undefined ? ordered.limit(WHOLE_LIST_READ) : onePage(ordered, query),
    total:
      query.page === undefined ? null : matching.clearSelect().select((eb) => eb.fn.countAll<number>().as('total')),
  })
  return { items: wholeList(rows.map((row) => toWebhook(row))), total: total?.[0]?.total ?? null }
}

/** GET rest/bd/webhook/{id}: one subscription of the caller's scope. */
export async function getWebhook(ctx: Ctx, caller: Caller, id: number): Promise<Webhook> {
  return toWebhook((await knownWebhook(ctx, caller, viewerOf(caller), id)).known)
}

/** POST rest/bd/webhook: a subscription on a structure of the caller's scope; its secret in this answer only. */
export async function createWebhook(ctx: Ctx, caller: Caller, input: WebhookCreate): Promise<WebhookCreated> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const { actor, structure } = await adminWith(ctx, caller, {
    structure: structureInScopeQuery(db, viewer, input.structure.id, false),
  })
  const target = inScopeOrFail(structure[0])
  requireDeliverable(ctx, input.url)
  const { secret, sealed } = await sealedSecret(ctx.env)
  const now = nowIso()
  const inScope = db
    .selectFrom('structure as s')
    .select('s.id')
    .where('s.id', '=', target.id)
    .where(pathInScope(db, viewer, sql.ref<string>('s.path')))
    .where(liveAdmin(ctx, caller))
  const events = sortedEvents(input.evenements)
  const { created } = await namedBatch(ctx.d1, {
    created: insertWhen(
      db,
      'webhook',
      {
        url: input.url,
        evenements: events,
        description: input.description || null,
        recherche: searched(input.url, input.description || null),
        actif: input.actif === false ? 0 : 1,
        structure_id: target.id,
        cree_par: actor.id,
        domain: actor.domain,
        secret_scelle: sealed,
        ancien_secret_scelle: null,
        ancien_secret_expire: null,
        created_at: now,
        updated_at: now,
      },
      inScope,
    ).returning('id'),
    log: adminLogWhen(
      db,
      actor,
      'WEBHOOK_CREATION',
      `${input.url} : ${target.nom}, ${JSON.parse(events).join(' ')}`,
      ctx.request.userAgent,
      inScope,
    ),
  })
  const id = created?.results[0]?.id
  // The structure left the caller's scope, or the caller their rights, between the check and the write.
  if (id === undefined) throw new BusinessError('FORBIDDEN', 403, 'This structure is outside your scope')
  return { id, secret }
}

/** PATCH rest/bd/webhook/{id}: its address, events, description or whether it delivers; answered as it is now. */
export async function updateWebhook(ctx: Ctx, caller: Caller, id: number, input: WebhookUpdate): Promise<Webhook> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const { actor, known } = await knownWebhook(ctx, caller, viewer, id)
  requireDeliverable(ctx, input.url)
  const changes = {
    ...(input.url !== undefined ? { url: input.url } : {}),
    ...(input.evenements !== undefined ? { evenements: sortedEvents(input.evenements) } : {}),
    ...(input.description !== undefined ? { description: input.description || null } : {}),
    ...(input.actif !== undefined ? { actif: input.actif ? 1 : 0 } : {}),
    // Switched on again (or off by hand): the portal's reason for stopping it no longer stands.
    ...(input.actif !== undefined ? { desactive_motif: null, desactive_le: null } : {}),
  }
  const recherche = searched(
    input.url ?? known.url,
    input.description !== undefined ? input.description || null : known.description,
  )
  const said = Object.entries(changes)
    .filter(([name]) => !name.startsWith('desactive_'))
    .map(([name, value]) => `${name}=${value}`)
    .join(' ')
  const { updated, after } = await namedBatch(ctx.d1, {
    log: adminLogWhen(
      db,
      actor,
      'WEBHOOK_MODIFICATION',
      `${known.url} : ${said}`,
      ctx.request.userAgent,
      webhookInScope(ctx, caller, viewer, id),
    ),
    updated: db
      .updateTable('webhook')
      .set({ ...changes, recherche, updated_at: nowIso() })
      .where('id', 'in', webhookInScope(ctx, caller, viewer, id))
      .returning('id'),
    after: webhooksQuery(db, viewer).where('w.id', '=', id),
  })
  const row = after?.results[0] as WebhookRow | undefined
  if ((updated?.results.length ?? 0) === 0 || !row) throw unknownWebhook()
  return toWebhook(row)
}

/** DELETE rest/bd/webhook/{id}: nothing more is delivered to it; the history keeps its address. */
export async function deleteWebhook(ctx: Ctx, caller: Caller, id: number): Promise<void> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const { actor, known } = await knownWebhook(ctx, caller, viewer, id)
  const { deleted } = await namedBatch(ctx.d1, {
    log: adminLogWhen(
      db,
      actor,
      'WEBHOOK_SUPPRESSION',
      `${known.url} : ${known.structure_nom}`,
      ctx.request.userAgent,
      webhookInScope(ctx, caller, viewer, id),
    ),
    deleted: db
      .deleteFrom('webhook')
      .where('id', 'in', webhookInScope(ctx, caller, viewer, id))
      .returning('id'),
  })
  if ((deleted?.results.length ?? 0) === 0) throw unknownWebhook()
}

/**
 * POST rest/bd/webhook/{id}/secret: a new secret, in this answer only; the former one signs beside it
 * `PREVIOUS_SECRET_HOURS` hours (the time to deploy the new one on the receiver), or stops at once (`revoquerAncien`).
 */
export async function rotateWebhookSecret(
  ctx: Ctx,
  caller: Caller,
  id: number,
  input: WebhookSecretInput,
): Promise<{ url: string; secret: string; ancienSecretExpire: string | null }> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const { actor, known } = await knownWebhook(ctx, caller, viewer, id)
  const { secret, sealed } = await sealedSecret(ctx.env)
  const until = input.revoquerAncien ? null : new Date(Date.now() + PREVIOUS_SECRET_HOURS * 3_600_000).toISOString()
  const { rotated } = await namedBatch(ctx.d1, {
    log: adminLogWhen(
      db,
      actor,
      'WEBHOOK_SECRET',
      `${known.url}${until === null ? ' : ancien secret révoqué' : ''}`,
      ctx.request.userAgent,
      webhookInScope(ctx, caller, viewer, id),
    ),
    rotated: db
      .updateTable('webhook')
      .set({
        secret_scelle: sealed,
        ancien_secret_scelle: until === null ? null : sql<string>`secret_scelle`,
        ancien_secret_expire: until,
        updated_at: nowIso(),
      })
      .where('id', 'in', webhookInScope(ctx, caller, viewer, id))
      .returning(['id', 'url']),
  })
  const [row] = rotated?.results ?? []
  if (!row) throw unknownWebhook()
  // The address as it stands when the secret changed: the one whose receiver must take it.
  return { url: row.url, secret, ancienSecretExpire: until }
}
