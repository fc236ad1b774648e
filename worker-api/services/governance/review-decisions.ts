import { type Expression, type SqlBool, sql } from 'kysely'
import { fromWireDate, nowIso } from '../../contract/dates'
import {
  DECISIONS_ALL_MAX,
  type ItemState,
  type ReviewDecideAll,
  type ReviewDecisions,
} from '../../contract/governance/access-reviews'
import { type DB, namedBatch } from '../../db/client'
import { browserOf } from '../../lib/browser'
import { BusinessError, invalidField, notFound } from '../../lib/errors'
import { containsEveryWord } from '../../lib/query'
import { actsFor, pathInScope, userManageable, type Viewer } from '../../lib/scope'
import type { Ctx } from '../../lib/types'
import { ofUsers, tellAccess } from '../catalogue/access-told'
import { adminWith, type Caller, liveAdmin, viewerOf } from '../core/actor'
import { posteEvents } from '../core/events'
import { reviewRead } from './reviews'

/**
 * What follows the decision of items in the batch that marked them with `mark`: the posts ended (on the end given, never
 * later than theirs; one that would start after it deleted), the structures' counts, and the history's entries — one per item
 * (`each`), or only per post ended plus one for the batch (the due date's).
 */
export function decidedItems(
  db: DB,
  batch: {
    revueId: number
    mark: string
    actorId: number
    userAgent: string | null
    describe: string
    each?: boolean
  },
) {
  const marked = sql<SqlBool>`revue_element.revue_id = ${batch.revueId} and revue_element.decision = ${batch.mark}`
  const account = batch.actorId < 0 ? -batch.actorId : null
  const user = account === null ? batch.actorId : null
  const browser = browserOf(batch.userAgent)
  const date = nowIso()
  const nomLog = sql<string>`case revue_element.etat when 'TERMINE' then 'REVUE_FIN_POSTE' else 'REVUE_CONFIRMATION' end`
  const commentaire = sql<string>`${batch.describe} || ' : ' || revue_element.login || ', ' || revue_element.fonction_libelle
    || ', ' || revue_element.structure_nom
    || case when revue_element.etat = 'TERMINE' then ' → ' || revue_element.date_fin_decidee else '' end
    || case when revue_element.commentaire is not null then ' — ' || revue_element.commentaire else '' end`
  const endedHere = sql<SqlBool>`poste.id in (select revue_element.poste_id from revue_element
    where ${marked} and revue_element.etat = 'TERMINE'`
  const endedPost = (post: Expression<number>) =>
    sql<SqlBool>`${post} in (select revue_element.poste_id from revue_element
      where ${marked} and revue_element.etat = 'TERMINE')`
  return {
    // Told before it goes, while it is there to tell of.
    removedEvents: posteEvents(
      db,
      'poste.supprime',
      batch.actorId,
      (post) => sql<SqlBool>`${endedPost(post)} and event_poste.date_debut > (select revue_element.date_fin_decidee
        from revue_element where ${marked} and revue_element.poste_id = event_poste.id)`,
    ),
    // A post moved since to start after the end given would open after it: it never opens, it goes.
    removed: db
      .deleteFrom('poste')
      .where(sql<SqlBool>`${endedHere} and revue_element.date_fin_decidee < poste.date_debut)`),
    ended: db
      .updateTable('poste')
      .set({
        date_fin: sql`min(poste.date_fin, (select revue_element.date_fin_decidee from revue_element
          where ${marked} and revue_element.etat = 'TERMINE' and revue_element.poste_id = poste.id))`,
      })
      .where(sql<SqlBool>`${endedHere})`),
    // Told of the posts the end moved: one that already ended sooner keeps its end, and nothing is told of it (one that
    // ended on that very day is told, its end said again).
    endedEvents: posteEvents(
      db,
      'poste.modifie',
      batch.actorId,
      (post) => sql<SqlBool>`${endedPost(post)} and event_poste.date_fin = (select revue_element.date_fin_decidee
        from revue_element where ${marked} and revue_element.poste_id = event_poste.id)`,
    ),
    // What the ends take away from their holders.
    access: tellAccess(
      db,
      batch.actorId,
      ofUsers(
        sql`(select revue_element.utilisateur_id from revue_element where ${marked} and revue_element.etat = 'TERMINE')`,
      ),
    ),
    progress: db
      .updateTable('revue_progression')
      .set({
        confirmes: sql`confirmes + (select count(*) from revue_element where ${marked}
          and revue_element.structure_id = revue_progression.structure_id and revue_element.etat = 'CONFIRME')`,
        termines: sql`termines + (select count(*) from revue_element where ${marked}
          and revue_element.structure_id = revue_progression.structure_id and revue_element.etat = 'TERMINE')`,
      })
      .where('revue_id', '=', batch.revueId)
      .where(sql<SqlBool>`structure_id in (select revue_element.structure_id from revue_element where ${marked})`),
    entries: db
      .insertInto('log')
      .columns([
        'date',
        'utilisateur_id',
        'compte_service_id',
        'type_log',
        'nom_log',
        'commentaire',
        'nom_navigateur',
        'version_navigateur',
      ])
      .expression(
        db
          .selectFrom('revue_element')
          .select([
            sql<string>`${date}`.as('date'),
            sql<number | null>`${user}`.as('utilisateur_id'),
            sql<number | null>`${account}`.as('compte_service_id'),
            sql<string>`'REVUE_ACCES'`.as('type_log'),
            nomLog.as('nom_log'),
            commentaire.as('commentaire'),
            sql<string | null>`${browser.name}`.as('nom_navigateur'),
            sql<string | null>`${browser.version}`.as('version_navigateur'),
          ])
          .where(marked)
          .$if(!batch.each, (q) => q.where('revue_element.etat', '=', 'TERMINE')),
      ),
  }
}

/** Today ('YYYY-MM-DD') or a later day of a decision's end (`dateFin`, dd/MM/yyyy), else 400 on its field (of decision `index`). */
function endOf(wire: string | undefined, today: string, index: number | null): string {
  if (wire === undefined) return today
  const day = fromWireDate(wire)
  const field = index === null ? 'dateFin' : `${index}.dateFin`
  if (!day) throw invalidField(field, 'Not a date', 'validation.date')
  if (day < today) throw invalidField(field, 'The post cannot end in the past', 'validation.datePast')
  return day
}

/** One item's decision as the write takes it: its state, its end ('YYYY-MM-DD') and its comment. */
type Decision = { id: number; etat: ItemState; fin: string | null; commentaire: string | null }

/**
 * What makes an item of the campaign the viewer's to decide as `etat`: still to review, in their scope, not their own
 * post (nor, for a service account, its administrator's); and, to end it, a post of a user they manage (DESIGN §4) —
 * unless the post or its user is gone already, when ending it changes nothing. Over `revue_element`.
 */
function decidable(db: DB, viewer: Viewer, etat: Expression<ItemState>) {
  return sql<SqlBool>`revue_element.etat = 'A_REVOIR'
    and not ${actsFor(viewer, sql.ref<number | null>('revue_element.utilisateur_id'))}
    and ${pathInScope(db, viewer, sql.ref<string>('revue_element.chemin'))}
    and (${etat} = 'CONFIRME' or revue_element.poste_id is null or revue_element.utilisateur_id is null
      or exists (select 1 from utilisateur where utilisateur.id = revue_element.utilisateur_id
        and (utilisateur.supprime = 1 or ${userManageable(db, viewer)})))`
}

/** The caller and campaign `id`, read with `reads`: 404 unless they see it, 409 REVUE_FERMEE unless it takes decisions. */
async function decidingIn<R extends Parameters<typeof adminWith>[2]>(ctx: Ctx, caller: Caller, id: number, reads: R) {
  const viewer = viewerOf(caller)
  const answer = await adminWith(ctx, caller, { ...reads, review: reviewRead(ctx.db, viewer, id) })
  const review = answer.review[0]
  if (!review?.visible) throw notFound('Unknown review campaign')
  // Past its due date, a campaign waits for the cron to apply it: no decision comes between.
  if (review.etat !== 'OUVERTE' || review.echeance < viewer.today)
    throw new BusinessError('REVUE_FERMEE', 409, 'This campaign takes no decision now')
  return { ...answer, review: { id, nom: review.nom } }
}

/**
 * The statements of `decisions` (one JSON value, whatever their number): each item still the caller's to decide
 * (`decidable`, checked in the write) marked and given its decision, while the campaign is open and the caller an
 * administrator; then what follows from them (`decidedItems`), one history entry per item.
 */
function decisionStatements(
  ctx: Ctx,
  caller: Caller,
  actor: { id: number; nom: string; prenom: string | null },
  review: { id: number; nom: string },
  decisions: Decision[],
) {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const mark = crypto.randomUUID()
  // The decisions joined to their items (UPDATE … FROM): one pass over the list, by the items' key.
  const given = sql<Decision>`(select json_extract(value, '$.id') as id, json_extract(value, '$.etat') as etat,
    json_extract(value, '$.fin') as fin, json_extract(value, '$.commentaire') as commentaire
    from json_each(${JSON.stringify(decisions)}))`
  const etat = sql.ref<ItemState>('given.etat')
  return {
    decided: db
      .updateTable('revue_element')
      .from(given.as('given'))
      .set({
        etat,
        date_fin_decidee: sql.ref('given.fin'),
        commentaire: sql.ref('given.commentaire'),
        decided_at: nowIso(),
        decideur_id: actor.id,
        decideur_nom: actor.prenom ? `${actor.prenom} ${actor.nom}` : actor.nom,
        decision: mark,
      })
      .where('revue_id', '=', review.id)
      .where(sql<SqlBool>`given.id = revue_element.id`)
      .where(decidable(db, viewer, etat))
      .where(({ exists }) =>
        exists(
          db
            .selectFrom('revue')
            .select('id')
            .where('id', '=', review.id)
            .where('etat', '=', 'OUVERTE')
            .where('echeance', '>=', viewer.today),
        ),
      )
      .where(liveAdmin(ctx, caller))
      .returning('id'),
    ...decidedItems(db, {
      revueId: review.id,
      mark,
      actorId: actor.id,
      userAgent: ctx.request.userAgent,
      describe: review.nom,
      each: true,
    }),
  }
}

/**
 * POST rest/bd/revue/{id}/decisions: items of the caller's scope confirmed or ended, in one statement whatever their
 * number (`decisionStatements`); then, under the mark of that statement, the posts ended, the counts and one entry per
 * item. Two reviewers deciding one item at once: one wins, the other finds it among `dejaDecides` (409
 * REVUE_DEJA_DECIDEE when none was theirs to decide).
 */
export async function decideItems(
  ctx: Ctx,
  caller: Caller,
  id: number,
  decisions: ReviewDecisions,
): Promise<{ decides: number[]; dejaDecides: number[] }> {
  const today = viewerOf(caller).today
  // One decision per item: the last given wins.
  const byItem = new Map(
    decisions.map((decision, index): [number, Decision] => [
      decision.element.id,
      {
        id: decision.element.id,
        etat: decision.decision === 'TERMINER' ? 'TERMINE' : 'CONFIRME',
        fin: decision.decision === 'TERMINER' ? endOf(decision.dateFin, today, index) : null,
        commentaire: decision.commentaire?.trim() || null,
      },
    ]),
  )
  const { actor, review } = await decidingIn(ctx, caller, id, {})
  const { decided } = await namedBatch(ctx.d1, decisionStatements(ctx, caller, actor, review, [...byItem.values()]))
  const decides = (decided?.results ?? []).map((row) => row.id)
  const dejaDecides = [...byItem.keys()].filter((item) => !decides.includes(item))
  if (decides.length === 0)
    throw new BusinessError('REVUE_DEJA_DECIDEE', 409, 'None of these items is yours to review now', [dejaDecides])
  return { decides, dejaDecides }
}

/**
 * POST rest/bd/revue/{id}/decisions/tous: every item still to review that the filters keep (structure, search, as the
 * items' list filters them) and that is the caller's to decide, confirmed or ended alike. The first `DECISIONS_ALL_MAX`
 * of them in the list's order are read with the caller, then decided as a list is (`decisionStatements`, each checked
 * again in the write); how many the filters keep still to review is counted after them, in the same batch.
 */
export async function decideAll(
  ctx: Ctx,
  caller: Caller,
  id: number,
  { decision, structure, q, dateFin, commentaire }: ReviewDecideAll,
): Promise<{ decides: number; restants: number }> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const etat: ItemState = decision === 'TERMINER' ? 'TERMINE' : 'CONFIRME'
  const fin = decision === 'TERMINER' ? endOf(dateFin, viewer.today, null) : null
  const search = containsEveryWord(
    ['revue_element.recherche', 'revue_element.login', 'revue_element.fonction_libelle', 'revue_element.structure_nom'],
    q,
  )
  const kept = db
    .selectFrom('revue_element')
    .where('revue_element.revue_id', '=', id)
    .where('revue_element.etat', '=', 'A_REVOIR')
    .$if(structure !== undefined, (query) => query.where('revue_element.structure_id', '=', structure as number))
    .$if(search !== null, (query) => query.where(search as NonNullable<typeof search>))
  const { actor, review, chosen } = await decidingIn(ctx, caller, id, {
    chosen: kept
      .select('revue_element.id')
      .where(decidable(db, viewer, sql<ItemState>`${etat}`))
      .orderBy('revue_element.chemin')
      .orderBy('revue_element.id')
      .limit(DECISIONS_ALL_MAX),
  })
  const given = chosen.map((row) => ({ id: row.id, etat, fin, commentaire: commentaire || null }))
  const { decided, left } = await namedBatch(ctx.d1, {
    ...decisionStatements(ctx, caller, actor, review, given),
    left: kept
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where(pathInScope(db, viewer, sql.ref<string>('revue_element.chemin')))
      .where(sql<SqlBool>`not ${actsFor(viewer, sql.ref<number | null>('revue_element.utilisateur_id'))}`),
  })
  return { decides: decided?.results.length ?? 0, restants: Number(left?.results[0]?.n ?? 0) }
}
