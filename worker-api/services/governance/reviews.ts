import { type Expression, type SqlBool, sql } from 'kysely'
import { addDays, fromWireDate, toWireDate } from '../../contract/dates'
import {
  REVIEW_DUE_MAX_DAYS,
  REVIEW_STRUCTURES_SHOWN,
  type Review,
  type ReviewDetail,
  type ReviewInput,
  type ReviewState,
} from '../../contract/governance/access-reviews'
import { aborted, abortUnless, type DB, insertWhen, namedBatch } from '../../db/client'
import { BusinessError, forbidden, invalidField, notFound } from '../../lib/errors'
import { onePage, type PageQuery } from '../../lib/query'
import {
  inScopeColumn,
  pathInScope,
  pathInScopeRoots,
  scopeStructureIds,
  type Viewer,
  withScopeRoots,
} from '../../lib/scope'
import type { Ctx } from '../../lib/types'
import { type ActorAnd, adminWith, type Caller, liveAdmin, viewerOf } from '../core/actor'
import { logEntry } from '../core/audit'
import { afterOneRow, reviewEvent } from '../core/events'
import { enqueue, jobsConfigured } from '../core/jobs'

/** Whether the viewer sees the campaign read under `alias`: its structure in scope, or structures of it with items. */
export function reviewVisible(db: DB, viewer: Viewer, alias = 'r'): Expression<SqlBool> {
  return sql<SqlBool>`(${pathInScope(db, viewer, sql.ref<string>(`${alias}.chemin`))} or exists (
    select 1 from revue_progression seen where seen.revue_id = ${sql.ref(`${alias}.id`)}
      and seen.structure_id in ${scopeStructureIds(db, viewer)}))`
}

/** The items of the campaign under `alias` in the viewer's scope, and those decided: `[total, confirmes, termines]`. */
// By the structures' paths, as the items are listed: a structure deleted keeps its items and its counts (migration 0031).
// In a statement of `withScopeRoots`.
const progressInScope = (alias = 'r') =>
  sql<string>`(select json_array(coalesce(sum(rp.total), 0), coalesce(sum(rp.confirmes), 0), coalesce(sum(rp.termines), 0))
    from revue_progression rp where rp.revue_id = ${sql.ref(`${alias}.id`)}
      and ${pathInScopeRoots(sql.ref<string>('rp.chemin'))})`

/** Who an actor id names (a user, or a service account under its negative id), as the report shows them. */
const actorName = (id: Expression<number | null>) =>
  sql<string | null>`(case when ${id} < 0 then (select nom from compte_service where id = 0 - ${id})
    else (select trim(prenom || ' ' || nom) from utilisateur where id = ${id}) end)`

/** The campaigns the viewer sees, with their progress in the viewer's scope. */
function reviewsQuery(db: DB, viewer: Viewer) {
  return withScopeRoots(db, viewer)
    .selectFrom('revue as r')
    .select([
      'r.id',
      'r.nom',
      'r.structure_id',
      'r.structure_nom',
      'r.echeance',
      'r.si_non_revu',
      'r.etat',
      'r.created_at',
      'r.cloturee_at',
      'r.echue_at',
      'r.chemin',
    ])
    .select([actorName(sql.ref('r.auteur_id')).as('auteur'), actorName(sql.ref('r.cloture_par')).as('cloture_nom')])
    .select(progressInScope().as('progression'))
    .where(reviewVisible(db, viewer))
}

type ReviewRow = {
  id: number
  nom: string
  structure_id: number
  structure_nom: string
  echeance: string
  si_non_revu: 'CONSERVER' | 'TERMINER'
  etat: ReviewState
  created_at: string
  cloturee_at: string | null
  echue_at: string | null
  auteur: string | null
  cloture_nom: string | null
  progression: string
}

const progressOf = (json: string) => {
  const [total = 0, confirmes = 0, termines = 0] = JSON.parse(json) as number[]
  return { total, confirmes, termines }
}

function toReview(row: ReviewRow): Review {
  return {
    id: row.id,
    nom: row.nom,
    structure: { id: row.structure_id, nom: row.structure_nom },
    echeance: toWireDate(row.echeance),
    siNonRevu: row.si_non_revu,
    etat: row.etat,
    dateCreation: row.created_at,
    dateCloture: row.cloturee_at,
    dateEcheanceAppliquee: row.echue_at,
    auteur: row.auteur,
    cloturePar: row.cloture_nom,
    progression: progressOf(row.progression),
  }
}

/** GET rest/bd/revue: the campaigns the caller sees, the newest first, with their progress in the caller's scope. */
export async function listReviews(
  ctx: Ctx,
  caller: Caller,
  query: PageQuery,
): Promise<{ items: Review[]; total: number | null }> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const visible = reviewsQuery(db, viewer)
  const { rows, total } = await adminWith(ctx, caller, {
    rows: onePage(visible.orderBy('r.created_at', 'desc').orderBy('r.id', 'desc'), query),
    total: query.page === undefined ? null : visible.clearSelect().select((eb) => eb.fn.countAll<number>().as('total')),
  })
  return { items: rows.map(toReview), total: total?.[0]?.total ?? null }
}

/**
 * The progress per structure of a campaign, for the structures of the viewer's scope: the `REVIEW_STRUCTURES_SHOWN`
 * with the most posts left to review (one more read, to know there are others), ranked, in the tree's order. Ranked
 * after the limit: a window over the root's 2 000 structures costs five times the sort that picks them.
 */
const structuresProgress = (db: DB, viewer: Viewer, id: number) => {
  const left = sql<number>`rp.total - rp.confirmes - rp.termines`
  const mostLeft = db
    .selectFrom('revue_progression as rp')
    .select(['rp.structure_id', 'rp.nom', 'rp.chemin', 'rp.total', 'rp.confirmes', 'rp.termines'])
    .where('rp.revue_id', '=', id)
    .where(pathInScopeRoots(sql.ref<string>('rp.chemin')))
    .orderBy(left, 'desc')
    .orderBy('rp.chemin')
    .limit(REVIEW_STRUCTURES_SHOWN + 1)
    .as('most_left')
  return withScopeRoots(db, viewer)
    .selectFrom(
      db
        .selectFrom(mostLeft)
        .selectAll()
        .select(
          sql<number>`row_number() over (order by most_left.total - most_left.confirmes - most_left.termines desc, most_left.chemin)`.as(
            'rang',
          ),
        )
        .as('ranked'),
    )
    .selectAll()
    .orderBy('ranked.chemin')
}

/** The reads of `GET rest/bd/revue/{id}`: the campaign, if the viewer sees it, and its progress per structure. */
export const detailReads = (db: DB, viewer: Viewer, id: number) => ({
  review: reviewsQuery(db, viewer).where('r.id', '=', id),
  structures: structuresProgress(db, viewer, id),
})

/** What D1 answers to `detailReads`. */
type DetailRows = Omit<ActorAnd<ReturnType<typeof detailReads>>, 'actor' | 'databaseBytes'>

/** The campaign of `detailReads`' rows, else 404 (unknown, or not seen by the viewer). */
export function detailOf({ review: [review], structures }: DetailRows): ReviewDetail {
  if (!review) throw notFound('Unknown review campaign')
  return {
    ...toReview(review),
    structuresTronquees: structures.length > REVIEW_STRUCTURES_SHOWN,
    structures: structures
      .filter((row) => row.rang <= REVIEW_STRUCTURES_SHOWN)
      .map((row) => ({
        id: row.structure_id,
        nom: row.nom,
        total: row.total,
        confirmes: row.confirmes,
        termines: row.termines,
      })),
  }
}

/** GET rest/bd/revue/{id}: a campaign the caller sees, with its progress per structure of the caller's scope. */
export async function reviewDetail(ctx: Ctx, caller: Caller, id: number): Promise<ReviewDetail> {
  return detailOf(await adminWith(ctx, caller, detailReads(ctx.db, viewerOf(caller), id)))
}

/**
 * A campaign as its writes check it: its state and whether its structure lies in the viewer's scope — by its path, kept
 * on the structure's as it moves (migration 0031) and kept after it is deleted, so that its report stays.
 */
export const reviewRead = (db: DB, viewer: Viewer, id: number) =>
  db
    .selectFrom('revue as r')
    .select(['r.id', 'r.nom', 'r.etat', 'r.chemin', 'r.echeance', 'r.si_non_revu', 'r.structure_nom'])
    .select(sql<number>`${pathInScope(db, viewer, sql.ref<string>('r.chemin'))}`.as('in_scope'))
    .select(sql<number>`${reviewVisible(db, viewer)}`.as('visible'))
    .where('r.id', '=', id)

/**
 * POST rest/bd/revue: a root administrator, or an administrator for a structure of their scope, opens a campaign over
 * its sub-tree, due after today and within a year. Its items are written on the queue, a window of post ids per message
 * (review-runs.ts), so that a campaign over the whole organisation never meets the Worker's limits. Written with its
 * entry under the caller's rights as the batch runs.
 */
export async function createReview(ctx: Ctx, caller: Caller, input: ReviewInput): Promise<{ id: number }> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const echeance = fromWireDate(input.echeance) ?? ''
  const {
    actor,
    structures: [structure],
    last: [last],
  } = await adminWith(ctx, caller, {
    structures: db
      .selectFrom('structure as s')
      .select(['s.id', 's.nom', 's.path'])
      .select(inScopeColumn(db, viewer, 's'))
      .where('s.id', '=', input.structure.id),
    last: db.selectFrom('poste').select((eb) => eb.fn.max('id').as('id')),
  })
  if (!structure) throw invalidField('structure.id', 'Unknown structure', 'validation.unknown')
  if (!structure.in_scope) throw forbidden('This structure is outside your scope')
  if (echeance <= viewer.today)
    throw invalidField('echeance', 'The due date must come after today', 'validation.dueDate')
  if (echeance > addDays(viewer.today, REVIEW_DUE_MAX_DAYS))
    throw invalidField('echeance', `The due date must be within ${REVIEW_DUE_MAX_DAYS} days`, 'validation.dueDate')
  jobsConfigured(ctx)
  const now = new Date().toISOString()
  const lastPoste = Number(last?.id ?? 0)
  // The entry goes with this very campaign: its mark, not its author, name and instant, which another could share.
  const mark = crypto.randomUUID()
  const mine = db.selectFrom('revue').select('id').where('marque', '=', mark)
  const allowed = db
    .selectFrom('structure as s')
    .select('s.id')
    .where('s.id', '=', structure.id)
    .where(pathInScope(db, viewer, sql.ref<string>('s.path')))
    .where(liveAdmin(ctx, caller))
  const { created } = await namedBatch(ctx.d1, {
    created: insertWhen(
      db,
      'revue',
      {
        nom: input.nom,
        structure_id: structure.id,
        structure_nom: structure.nom,
        chemin: structure.path,
        echeance,
        si_non_revu: input.siNonRevu,
        // Nothing to go through: open at once.
        etat: lastPoste === 0 ? 'OUVERTE' : 'OUVERTURE',
        auteur_id: actor.id,
        domaine: ctx.request.origin,
        created_at: now,
        updated_at: now,
        dernier_poste: lastPoste,
        marque: mark,
      },
      allowed,
    ).returning('id'),
    log: insertWhen(
      db,
      'log',
      logEntry(actor.id, 'REVUE_ACCES', 'REVUE_OUVERTURE', ctx.request.userAgent, {
        commentaire: `${input.nom} : ${structure.nom}, ${input.echeance}, ${input.siNonRevu}`,
      }),
      mine,
    ),
    told: reviewEvent(db, 'revue.ouverte', actor.id, sql<number>`(${mine})`, sql<SqlBool>`exists ${mine}`),
  })
  const id = created?.results[0]?.id
  if (id === undefined) throw forbidden('This structure is outside your scope')
  if (lastPoste > 0) await enqueue(ctx, { kind: 'review-step', revueId: id, etape: 'ouverture', depuis: 0 })
  return { id }
}

/**
 * POST rest/bd/revue/{id}/cloture: an administrator of the campaign's structure closes it once every item is decided,
 * or once its due date has been applied (409 REVUE_INCOMPLETE before). The report stays: the items, and the history's
 * entry with its counts. The state changes under those conditions as the batch runs.
 */
export async function closeReview(ctx: Ctx, caller: Caller, id: number): Promise<void> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const {
    actor,
    review: [review],
  } = await adminWith(ctx, caller, { review: reviewRead(db, viewer, id) })
  if (!review?.visible) throw notFound('Unknown review campaign')
  if (!review.in_scope) throw forbidden('Only the administrators of the campaign’s structure close it')
  if (review.etat === 'CLOTUREE') throw new BusinessError('REVUE_FERMEE', 409, 'This campaign is closed already')
  const undecided = db
    .selectFrom('revue_element')
    .select('id')
    .where('revue_id', '=', id)
    .where('etat', '=', 'A_REVOIR')
  const closable = db
    .selectFrom('revue as open')
    .select('open.id')
    .where('open.id', '=', id)
    .where((eb) =>
      eb.or([eb('open.etat', '=', 'ECHUE'), eb.and([eb('open.etat', '=', 'OUVERTE'), eb.not(eb.exists(undecided))])]),
    )
    .where(pathInScope(db, viewer, sql.ref<string>('open.chemin')))
    .where(liveAdmin(ctx, caller))
  // The counts the campaign ends with, read in the batch that closes it: a decision either lands before it or is refused.
  const counts = sql<string>`(select ${review.nom} || ' : ' || coalesce(sum(total), 0) || ' postes, '
    || coalesce(sum(confirmes), 0) || ' confirmés, ' || coalesce(sum(termines), 0) || ' terminés'
    from revue_progression where revue_id = ${id})`
  try {
    await namedBatch(ctx.d1, {
      held: abortUnless(db, closable),
      log: db
        .insertInto('log')
        .values({ ...logEntry(actor.id, 'REVUE_ACCES', 'REVUE_CLOTURE', ctx.request.userAgent), commentaire: counts }),
      closed: db
        .updateTable('revue')
        .set({ etat: 'CLOTUREE', cloturee_at: new Date().toISOString(), cloture_par: actor.id })
        .where('id', '=', id),
      told: reviewEvent(db, 'revue.cloturee', actor.id, id, afterOneRow),
    })
  } catch (error) {
    if (!aborted(error)) throw error
    throw new BusinessError(
      'REVUE_INCOMPLETE',
      409,
      'Posts remain to review: close the campaign once all are reviewed or its due date has passed',
    )
  }
}
