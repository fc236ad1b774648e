import { type Expression, type SqlBool, sql } from 'kysely'
import { todayIso } from '../../contract/dates'
import type { DB } from '../../db/client'
import { accessEvents, type EventActor, pathsUnion } from '../core/events'
import { grantNow, grantsOn } from './grants'

/**
 * Access told (issue 65: `acces.accorde`, `acces.retire`): a user gains or loses an application whatever the cause. Access
 * is derived (DESIGN §4, `grants.ts`), so no one write says it changed: each write that may move it — a post written,
 * starting or ending, a function's grants, an application created, switched on or off, granted or deleted — compares,
 * in its own batch and after its change, what is granted now with what was last told (`acces_dit`, migration 0051) for
 * the pairs it may move, tells the difference under its own actor and keeps the new state, under the write's own
 * condition: a refused write tells nothing, even of a difference someone else's change left (the day's run at
 * midnight tells its own).
 */

/**
 * Whether a post over these dates counts on `today` (it grants what its function does). A post's write moves its
 * holder's access only when it changes that: one created or deleted that counts, one whose new dates start or stop it
 * counting; the others need not compare it.
 */
export const countsOn = (today: string, post: { debut: string; fin: string }) =>
  post.debut <= today && today <= post.fin

/** Which pairs (a user, an application) a change may move. */
export type AccessPairs = (user: Expression<number>, application: Expression<number>) => Expression<SqlBool>

/** Every pair. */
export const everyPair: AccessPairs = () => sql<SqlBool>`1`

/** The pairs of one user, whatever the application (a post of theirs written). */
export const ofUser =
  (id: number | Expression<number>): AccessPairs =>
  (user) =>
    sql<SqlBool>`${user} = ${id}`

/** The pairs of the users whose ids `users` selects (the holders of posts written together). */
export const ofUsers =
  (users: Expression<unknown>): AccessPairs =>
  (user) =>
    sql<SqlBool>`${user} in ${users}`

/** The pairs of one application, whoever holds it (the application switched on or off, its grants changed). */
export const ofApplication =
  (id: number | Expression<number>): AccessPairs =>
  (_user, application) =>
    sql<SqlBool>`${application} = ${id}`

/** The pairs of the holders of a function's current posts (its grants changed). */
export const ofFonction = (db: DB, fonctionId: number, today: string): AccessPairs =>
  ofUsers(
    db
      .selectFrom('poste as fonction_holder')
      .select('fonction_holder.utilisateur_id')
      .where('fonction_holder.fonction_id', '=', fonctionId)
      .where('fonction_holder.date_fin', '>=', today)
      .where('fonction_holder.date_debut', '<=', today),
  )

/**
 * What `pairs` covers that is granted on `today`, one row a pair, with the paths of the structures of the posts that
 * grant it. A registration not complete is the authorisation queue's, nobody's user yet: its access starts with it.
 */
export function grantedPairs(db: DB, today: string, pairs: AccessPairs) {
  return grantsOn(db, today)
    .innerJoin('utilisateur as holder', 'holder.id', 'p.utilisateur_id')
    .innerJoin('structure as granting', 'granting.id', 'p.structure_id')
    .select([
      'p.utilisateur_id',
      'fa.application_id',
      sql<string>`json_group_array(distinct granting.path)`.as('chemins'),
    ])
    .where('holder.registration_state', '<>', 'PENDING')
    .where(pairs(sql.ref('p.utilisateur_id'), sql.ref('fa.application_id')))
    .groupBy(['p.utilisateur_id', 'fa.application_id'])
}

/**
 * The statements that tell the access `pairs` covers as it now stands, when `when` holds (the write's own condition):
 * what was lost first (someone moving from one post to the next leaves the first), then what was gained, each kept in
 * `acces_dit` with the structures that granted it. Place them after the change.
 */
export function tellAccess(
  db: DB,
  actor: EventActor,
  pairs: AccessPairs,
  now = new Date(),
  when: Expression<SqlBool> = sql<SqlBool>`1`,
) {
  const today = todayIso(now)
  const stillGranted = (user: string, application: string) =>
    grantNow(db, sql.ref<number>(user), sql.ref<number>(application), today)
  const lost = db
    .selectFrom('acces_dit as was')
    .select(['was.utilisateur_id', 'was.application_id', 'was.chemins'])
    .where(pairs(sql.ref('was.utilisateur_id'), sql.ref('was.application_id')))
    .where(({ not, exists }) => not(exists(stillGranted('was.utilisateur_id', 'was.application_id'))))
    .where(when)
  const granted = grantedPairs(db, today, pairs).where(when)
  const gained = granted.where(({ not, exists }) =>
    not(
      exists(
        db
          .selectFrom('acces_dit as already')
          .select('already.utilisateur_id')
          .where('already.utilisateur_id', '=', sql.ref<number>('p.utilisateur_id'))
          .where('already.application_id', '=', sql.ref<number>('fa.application_id')),
      ),
    ),
  )
  const kept = pathsUnion(sql.ref('acces_dit.chemins'), sql.ref('excluded.chemins'))
  return [
    accessEvents(db, 'acces.retire', actor, lost, now),
    db
      .deleteFrom('acces_dit')
      .where(pairs(sql.ref('acces_dit.utilisateur_id'), sql.ref('acces_dit.application_id')))
      .where(({ not, exists }) => not(exists(stillGranted('acces_dit.utilisateur_id', 'acces_dit.application_id'))))
      .where(when),
    accessEvents(db, 'acces.accorde', actor, gained, now),
    // What is still held keeps the structures that grant it now beside those that did.
    db
      .insertInto('acces_dit')
      .columns(['utilisateur_id', 'application_id', 'chemins'])
      .expression(granted)
      .onConflict((conflict) =>
        conflict
          .columns(['utilisateur_id', 'application_id'])
          .doUpdateSet({ chemins: kept })
          .where(sql<SqlBool>`${kept} <> acces_dit.chemins`),
      ),
  ]
}
