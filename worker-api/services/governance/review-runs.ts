import { type SqlBool, sql } from 'kysely'
import { todayIso } from '../../contract/dates'
import { REVIEW_BATCH, type ReviewMessage } from '../../contract/governance/access-reviews'
import { aborted, abortUnless, batch, type DB, insertWhen, namedBatch, rawStatement } from '../../db/client'
import { actsFor, inSubtreeSql, pathInScope, serviceAccountId, userManageable, type Viewer } from '../../lib/scope'
import type { Ctx } from '../../lib/types'
import { logEntry } from '../core/audit'
import { reviewEvent } from '../core/events'
import { enqueue } from '../core/jobs'
import { decidedItems } from './review-decisions'

/** The post ids one message of a campaign's opening goes through. */
export const OPENING_WINDOW = REVIEW_BATCH * 2

/**
 * One step of a campaign on the queue. The opening writes the current posts of the sub-tree whose ids lie in the next
 * window as items, with their structures' counts, then sends the next window; the due date's step decides up to
 * `REVIEW_BATCH` undecided items as the campaign said, then sends the next. Each step's batch starts with a guard (the
 * campaign still at that step, and for the opening at that window), so a message delivered twice writes once.
 */
export async function runReviewStep(ctx: Ctx, message: ReviewMessage): Promise<void> {
  if (message.etape === 'ouverture') await openingStep(ctx, message)
  else await dueStep(ctx, message)
}

async function openingStep(ctx: Ctx, message: ReviewMessage) {
  const db = ctx.db
  const review = await db
    .selectFrom('revue')
    .select(['id', 'etat', 'curseur', 'dernier_poste', 'chemin'])
    .where('id', '=', message.revueId)
    .executeTakeFirst()
  if (review?.etat !== 'OUVERTURE' || review.curseur !== message.depuis) return
  const from = review.curseur
  const to = Math.min(from + OPENING_WINDOW, review.dernier_poste)
  const today = todayIso()
  const window = sql<SqlBool>`e.poste_id > ${from} and e.poste_id <= ${to}`
  try {
    await batch(ctx.d1, [
      abortUnless(
        db,
        db
          .selectFrom('revue')
          .select('id')
          .where('id', '=', review.id)
          .where('etat', '=', 'OUVERTURE')
          .where('curseur', '=', from),
      ),
      // The current posts of the window in the sub-tree, of users who are not deleted.
      rawStatement(
        `INSERT OR IGNORE INTO revue_element (revue_id, poste_id, utilisateur_id, structure_id, chemin, login, nom, prenom,
           structure_nom, fonction_libelle, date_debut, date_fin, recherche)
         SELECT ?1, p.id, u.id, s.id, s.path, u.login, u.nom, u.prenom, s.nom, f.libelle, p.date_debut, p.date_fin,
           u.recherche
         FROM poste p
         JOIN structure s ON s.id = p.structure_id
         JOIN utilisateur u ON u.id = p.utilisateur_id
         JOIN fonction f ON f.id = p.fonction_id
         WHERE p.id > ?2 AND p.id <= ?3 AND p.date_debut <= ?4 AND p.date_fin >= ?4
           AND ${inSubtreeSql('s.path', '?5')} AND u.supprime = 0`,
        [review.id, from, to, today, review.chemin],
      ),
      db
        .insertInto('revue_progression')
        .columns(['revue_id', 'structure_id', 'chemin', 'nom', 'total'])
        .expression(
          db
            .selectFrom('revue_element as e')
            .select([
              'e.revue_id',
              'e.structure_id',
              'e.chemin',
              'e.structure_nom',
              (eb) => eb.fn.countAll<number>().as('total'),
            ])
            .where('e.revue_id', '=', review.id)
            .where(window)
            .groupBy(['e.revue_id', 'e.structure_id', 'e.chemin', 'e.structure_nom']),
        )
        .onConflict((oc) =>
          oc
            .columns(['revue_id', 'structure_id'])
            .doUpdateSet({ total: sql`revue_progression.total + excluded.total` }),
        ),
      db
        .updateTable('revue')
        .set({
          curseur: to,
          elements: sql`elements + (select count(*) from revue_element e where e.revue_id = ${review.id} and ${window})`,
          etat: to >= review.dernier_poste ? 'OUVERTE' : 'OUVERTURE',
          updated_at: new Date().toISOString(),
        })
        .where('id', '=', review.id),
    ])
  } catch (error) {
    // Another delivery of the same window got there first.
    if (aborted(error)) return
    throw error
  }
  if (to < review.dernier_poste)
    await enqueue(ctx, { kind: 'review-step', revueId: review.id, etape: 'ouverture', depuis: to })
}

async function dueStep(ctx: Ctx, message: ReviewMessage) {
  const db = ctx.db
  const review = await db
    .selectFrom('revue')
    .select(['id', 'nom', 'etat', 'echeance', 'si_non_revu', 'auteur_id', 'domaine'])
    .where('id', '=', message.revueId)
    .executeTakeFirst()
  if (review?.etat !== 'ECHEANCE') return
  const mark = crypto.randomUUID()
  const ending = review.si_non_revu === 'TERMINER'
  const now = new Date().toISOString()
  // The due date ends only what the campaign's author could end that day; the rest is kept, and says so (the report).
  const author: Viewer = {
    id: review.auteur_id,
    domain: review.domaine,
    today: todayIso(),
    service: serviceAccountId(review.auteur_id) !== null,
  }
  const ends = ending ? sql<SqlBool>`${authorCouldEnd(db, author)}` : sql<SqlBool>`0`
  const chosen = db
    .selectFrom('revue_element')
    .select('id')
    .where('revue_id', '=', review.id)
    .where('etat', '=', 'A_REVOIR')
    .orderBy('id')
    .limit(REVIEW_BATCH)
  const { decided } = await namedBatch(ctx.d1, {
    decided: db
      .updateTable('revue_element')
      .set({
        etat: sql<'TERMINE' | 'CONFIRME'>`case when ${ends} then 'TERMINE' else 'CONFIRME' end`,
        automatique: 1,
        decided_at: now,
        date_fin_decidee: sql<string | null>`case when ${ends} then ${review.echeance} else null end`,
        decision: mark,
      })
      .where('id', 'in', chosen)
      .where('etat', '=', 'A_REVOIR')
      .where(({ exists }) =>
        exists(db.selectFrom('revue').select('id').where('id', '=', review.id).where('etat', '=', 'ECHEANCE')),
      )
      .returning('id'),
    ...decidedItems(db, {
      revueId: review.id,
      mark,
      actorId: review.auteur_id,
      userAgent: null,
      describe: `${review.nom} (échéance)`,
    }),
  })
  const count = decided?.results.length ?? 0
  if (count === REVIEW_BATCH) {
    await enqueue(ctx, { kind: 'review-step', revueId: review.id, etape: 'echeance', depuis: 0 })
    return
  }
  // None left: the due date is applied, said once in the history with what it did (under this delivery's mark: two
  // deliveries of the last step at once may share a millisecond).
  const applied = db
    .selectFrom('revue')
    .select('id')
    .where('id', '=', review.id)
    .where('etat', '=', 'ECHUE')
    .where('marque', '=', mark)
  const kept = ending
    ? await db
        .selectFrom('revue_element')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('revue_id', '=', review.id)
        .where('automatique', '=', 1)
        .where('etat', '=', 'CONFIRME')
        .executeTakeFirst()
    : undefined
  const outcome = ending
    ? `postes non revus terminés${kept?.count ? `, ${kept.count} conservés : l’auteur de la campagne ne pouvait pas les terminer` : ''}`
    : 'postes non revus conservés'
  await namedBatch(ctx.d1, {
    done: db
      .updateTable('revue')
      .set({ etat: 'ECHUE', echue_at: now, updated_at: now, marque: mark })
      .where('id', '=', review.id)
      .where('etat', '=', 'ECHEANCE')
      .where(({ not, exists }) =>
        not(
          exists(
            db
              .selectFrom('revue_element')
              .select('id')
              .where('revue_id', '=', review.id)
              .where('etat', '=', 'A_REVOIR'),
          ),
        ),
      ),
    log: insertWhen(
      db,
      'log',
      logEntry(review.auteur_id, 'REVUE_ACCES', 'REVUE_ECHEANCE', null, {
        commentaire: `${review.nom} : ${outcome}`,
      }),
      applied,
    ),
    told: reviewEvent(db, 'revue.echue', 'systeme', review.id, sql<SqlBool>`exists ${applied}`),
  })
}

/**
 * Whether the campaign's author could end the post of the item `revue_element` that day, as their own decision would
 * (`decideItems`): an administrator still, its structure in their scope, neither their own post nor, for a service
 * account, its administrator's, and its user one they manage — or the post or its user gone already.
 */
function authorCouldEnd(db: DB, author: Viewer) {
  return sql<SqlBool>`(not ${actsFor(author, sql.ref<number | null>('revue_element.utilisateur_id'))}
    and ${pathInScope(db, author, sql.ref<string>('revue_element.chemin'))}
    and (revue_element.poste_id is null or revue_element.utilisateur_id is null
      or exists (select 1 from utilisateur where utilisateur.id = revue_element.utilisateur_id
        and (utilisateur.supprime = 1 or ${userManageable(db, author)}))))`
}
