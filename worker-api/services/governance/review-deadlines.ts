import { type SqlBool, sql } from 'kysely'
import { addDays, todayIso, toWireDate } from '../../contract/dates'
import { REVIEW_LAST_REMINDER_DAYS } from '../../contract/governance/access-reviews'
import { batch, type DB } from '../../db/client'
import { mailLanguage, reviewReminderMail } from '../../lib/mail/templates'
import { inSubtree } from '../../lib/scope'
import type { Ctx } from '../../lib/types'
import { enqueue } from '../core/jobs'
import { queueMail } from '../core/outbox'

/** Minutes without progress after which the cron sends a campaign's next message again (a message lost). */
const STALLED_MINUTES = 5
/** The reviewers one reminder of a campaign tells at most. */
export const REMINDED_MAX = 500

/**
 * The cron's work on the campaigns: a campaign past its due date starts applying it (on the queue); one whose
 * messages stopped moving gets its next one again; the reminders go halfway to the due date and
 * `REVIEW_LAST_REMINDER_DAYS` days before it, to the administrators with posts left to review.
 */
export async function reviewDeadlines(ctx: Ctx, now = new Date()) {
  const db = ctx.db
  const today = todayIso(now)
  const at = now.toISOString()
  let due = 0
  const past = await db
    .selectFrom('revue')
    .select('id')
    .where('etat', '=', 'OUVERTE')
    .where('echeance', '<', today)
    .execute()
  for (const { id } of past) {
    const started = await db
      .updateTable('revue')
      .set({ etat: 'ECHEANCE', updated_at: at })
      .where('id', '=', id)
      .where('etat', '=', 'OUVERTE')
      .returning('id')
      .executeTakeFirst()
    if (started) {
      due++
      await enqueue(ctx, { kind: 'review-step', revueId: id, etape: 'echeance', depuis: 0 })
    }
  }
  const stalledBefore = new Date(now.getTime() - STALLED_MINUTES * 60_000).toISOString()
  const stalled = await db
    .selectFrom('revue')
    .select(['id', 'etat', 'curseur'])
    .where('etat', 'in', ['OUVERTURE', 'ECHEANCE'])
    .where('updated_at', '<', stalledBefore)
    .execute()
  for (const review of stalled) {
    await enqueue(ctx, {
      kind: 'review-step',
      revueId: review.id,
      etape: review.etat === 'OUVERTURE' ? 'ouverture' : 'echeance',
      depuis: review.curseur,
    })
    await db.updateTable('revue').set({ updated_at: at }).where('id', '=', review.id).execute()
  }
  return { due, resumed: stalled.length, reminded: await remind(ctx, now) }
}

/** The campaigns whose reminder is due, and the administrators who still have posts of them to review. */
async function remind(ctx: Ctx, now: Date) {
  const db = ctx.db
  const today = todayIso(now)
  const at = now.toISOString()
  const open = await db
    .selectFrom('revue')
    .select(['id', 'nom', 'chemin', 'echeance', 'created_at', 'rappel_mi_parcours_at', 'rappel_echeance_at'])
    .where('etat', '=', 'OUVERTE')
    .where((eb) => eb.or([eb('rappel_mi_parcours_at', 'is', null), eb('rappel_echeance_at', 'is', null)]))
    .execute()
  let told = 0
  for (const review of open) {
    const opened = Date.parse(review.created_at)
    const halfway = new Date(opened + (Date.parse(`${review.echeance}T00:00:00Z`) - opened) / 2).toISOString()
    const last = addDays(review.echeance, -REVIEW_LAST_REMINDER_DAYS) <= today
    const which =
      last && !review.rappel_echeance_at ? 'echeance' : !review.rappel_mi_parcours_at && at >= halfway ? 'mi' : null
    if (!which) continue
    const column = which === 'echeance' ? 'rappel_echeance_at' : 'rappel_mi_parcours_at'
    const reviewers = await reviewersLeft(db, review.id, review.chemin, today).execute()
    const marked = db
      .selectFrom('revue')
      .select('id')
      .where('id', '=', review.id)
      .where(sql<SqlBool>`${sql.ref(column)} = ${at}`)
    await batch(ctx.d1, [
      db
        .updateTable('revue')
        .set(
          which === 'echeance'
            ? { rappel_echeance_at: at, rappel_mi_parcours_at: review.rappel_mi_parcours_at ?? at }
            : { rappel_mi_parcours_at: at },
        )
        .where('id', '=', review.id)
        .where(column, 'is', null),
      ...reviewers.map((reviewer) =>
        queueMail(
          db,
          {
            ...reviewReminderMail(mailLanguage(reviewer.langue), reviewer, {
              campagne: review.nom,
              echeance: toWireDate(review.echeance),
              restants: reviewer.restants,
              url: `${reviewer.domain.replace(/\/+$/, '')}/pages/admin/revues/${review.id}`,
            }),
            to: reviewer.mail,
            userId: reviewer.id,
            kind: 'ACCESS_REVIEW',
          },
          now,
          marked,
        ),
      ),
    ])
    told += reviewers.length
  }
  return told
}

/**
 * The administrators with a current post in the campaign's sub-tree or above it who have items left to review in the
 * sub-tree of that post (never their own), with how many: those a reminder tells (`REMINDED_MAX` at most).
 */
function reviewersLeft(db: DB, revueId: number, chemin: string, today: string) {
  return db
    .selectFrom('poste as held')
    .innerJoin('structure as root', 'root.id', 'held.structure_id')
    .innerJoin('utilisateur as a', 'a.id', 'held.utilisateur_id')
    .select(['a.id', 'a.mail', 'a.nom', 'a.prenom', 'a.langue', 'a.domain'])
    .select(
      sql<number>`(select count(*) from revue_element e where e.revue_id = ${revueId} and e.etat = 'A_REVOIR'
        and ${inSubtree(sql.ref('e.chemin'), sql.ref('root.path'))} and e.utilisateur_id is not a.id)`.as('restants'),
    )
    .where('a.admin', '=', 1)
    .where('a.actif', '=', 1)
    .where('a.supprime', '=', 0)
    .where('held.date_debut', '<=', today)
    .where('held.date_fin', '>=', today)
    .where(
      // The reviewers above the campaign's structure, and those of a sub-tree within it.
      sql<SqlBool>`(${inSubtree(sql.ref('root.path'), sql.val(chemin))} or ${inSubtree(sql.val(chemin), sql.ref('root.path'))})`,
    )
    .groupBy('a.id')
    .having(sql<SqlBool>`restants > 0`)
    .orderBy('a.id')
    .limit(REMINDED_MAX)
}
