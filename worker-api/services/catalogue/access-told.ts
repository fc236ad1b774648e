import { type Expression, type SqlBool, sql } from 'kysely'
import { todayIso } from '../../contract/dates'
import type { DB } from '../../db/client'
import { accessEvents, type EventActor } from '../core/events'
import { grantNow, grantsOn } from './grants'

/**
 * Access told (issue 65: `acces.accorde`, `acces.retire`): a user gains or loses an application whatever the cause. Access
 * is derived (DESIGN §4, `grants.ts`), so no one write says it changed: each write that may move it — a post written,
 * starting or ending, a function's grants, an application created, switched on or off, granted or deleted — compares,
 * in its own batch and after its change, what is granted now with what was last told (`acces_dit`, migration 0051) for
 * the pairs it may move, tells the difference under its own actor and keeps the new state. A write that changed
 * nothing finds no difference: the comparison needs no condition of its own.
 */

/** Which pairs (a user, an application) a change may move. */
export type AccessPairs = (user: Expression<number>, application: Expression<number>) => Expression<SqlBool>

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
      .where('fonction_holder.date_debut', '<=', today)
      .where('fonction_holder.date_fin', '>=', today),
  )

/**
 * The statements that tell the access `pairs` covers as it now stands: what was lost first (someone moving from one
 * post to the next leaves the first), then what was gained, each kept in `acces_dit`. Place them after the change.
 */
export function tellAccess(db: DB, actor: EventActor, pairs: AccessPairs, now = new Date()) {
  const today = todayIso(now)
  const told = (user: Expression<number>, application: Expression<number>) =>
    db
      .selectFrom('acces_dit as already')
      .select('already.utilisateur_id')
      .where('already.utilisateur_id', '=', user)
      .where('already.application_id', '=', application)
  const lost = db
    .selectFrom('acces_dit as was')
    .select(['was.utilisateur_id', 'was.application_id'])
    .where(pairs(sql.ref('was.utilisateur_id'), sql.ref('was.application_id')))
    .where(({ not, exists }) =>
      not(exists(grantNow(db, sql.ref<number>('was.utilisateur_id'), sql.ref<number>('was.application_id'), today))),
    )
  const granted = grantsOn(db, today)
    .innerJoin('utilisateur as holder', 'holder.id', 'p.utilisateur_id')
    .select(['p.utilisateur_id', 'fa.application_id'])
    .distinct()
    // A registration not complete is the authorisation queue's, nobody's user yet: its access starts with it.
    .where('holder.registration_state', '<>', 'PENDING')
    .where(pairs(sql.ref('p.utilisateur_id'), sql.ref('fa.application_id')))
  const gained = granted.where(({ not, exists }) =>
    not(exists(told(sql.ref<number>('p.utilisateur_id'), sql.ref<number>('fa.application_id')))),
  )
  return [
    accessEvents(db, 'acces.retire', actor, lost, now),
    db
      .deleteFrom('acces_dit')
      .where(pairs(sql.ref('acces_dit.utilisateur_id'), sql.ref('acces_dit.application_id')))
      .where(({ not, exists }) =>
        not(
          exists(
            grantNow(
              db,
              sql.ref<number>('acces_dit.utilisateur_id'),
              sql.ref<number>('acces_dit.application_id'),
              today,
            ),
          ),
        ),
      ),
    accessEvents(db, 'acces.accorde', actor, gained, now),
    db
      .insertInto('acces_dit')
      .columns(['utilisateur_id', 'application_id'])
      .expression(gained)
      .onConflict((conflict) => conflict.doNothing()),
  ]
}
