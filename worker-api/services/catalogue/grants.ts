import { type Expression, sql } from 'kysely'
import type { DB } from '../../db/client'

/**
 * Derived access (DESIGN §4): a user may open an application while a current post's function grants
 * it and it is switched on — the check every launch, code exchange and refresh makes.
 */

/** The grants of `today`: each current post (`p`) with each application its function grants (`fa`), switched on. */
export function grantsOn(db: DB, today: string) {
  return db
    .selectFrom('poste as p')
    .innerJoin('fonction_application as fa', 'fa.fonction_id', 'p.fonction_id')
    .innerJoin('application as granted', 'granted.id', 'fa.application_id')
    .where('granted.actif', '=', 1)
    .where('p.date_debut', '<=', today)
    .where('p.date_fin', '>=', today)
}

/** A row while a current post of `user` grants `application`, switched on (DESIGN §4: derived access). */
export function grantNow(
  db: DB,
  user: Expression<number> | number,
  application: Expression<number> | number,
  today: string,
) {
  return grantsOn(db, today)
    .select('p.id')
    .where('p.utilisateur_id', '=', user)
    .where('fa.application_id', '=', application)
}

/** `grantNow` as a column (1 or 0) of a read. */
export const grantedColumn = (
  db: DB,
  user: Expression<number> | number,
  application: Expression<number> | number,
  today: string,
) => sql<number>`exists ${grantNow(db, user, application, today)}`.as('granted')
