import { type Expression, type SqlBool, sql } from 'kysely'
import { todayIso } from '../../contract/dates'
import type { DB } from '../../db/client'
import { secondFactorMissing, serviceAccountId, type Viewer, wholeTreeInScope } from '../../lib/scope'

/**
 * Who runs an import once it is on the queue: its author (a user or a service account, `auteur` and `domaine` of the
 * import row), read again by each lot, which writes only while they are still an administrator who may import.
 */

/** The importer as a lot finds them, and whether they may still import (an administrator, live, whose scope…). */
export function importerRead(db: DB, viewer: Viewer) {
  const account = serviceAccountId(viewer.id)
  if (account !== null) {
    return db
      .selectFrom('compte_service as cs')
      .innerJoin('structure as s', 's.id', 'cs.structure_id')
      .select([
        sql<number>`0 - cs.id`.as('id'),
        'cs.client_id as login',
        'cs.nom',
        sql<string>`''`.as('prenom'),
        sql<'fr' | 'en'>`'fr'`.as('langue'),
        'cs.domain',
        sql<number>`cs.admin = 1 and cs.actif = 1 and cs.supprime = 0`.as('live'),
        sql<number>`s.parent_id is null`.as('racine'),
      ])
      .where('cs.id', '=', account)
  }
  return db
    .selectFrom('utilisateur as u')
    .select([
      'u.id',
      'u.login',
      'u.nom',
      'u.prenom',
      'u.langue',
      'u.domain',
      sql<number>`u.admin = 1 and u.actif = 1 and u.supprime = 0 and not ${secondFactorMissing(sql.ref('u.id'))}`.as(
        'live',
      ),
      sql<number>`${wholeTreeInScope(db, viewer)}`.as('racine'),
    ])
    .where('u.id', '=', viewer.id)
}

/** Whether the importer may still import, as the condition of each lot's batch. */
export function importerLive(viewer: Viewer): Expression<SqlBool> {
  const account = serviceAccountId(viewer.id)
  if (account !== null) {
    return sql<SqlBool>`exists (select 1 from compte_service where id = ${account} and admin = 1 and actif = 1 and supprime = 0)`
  }
  return sql<SqlBool>`exists (select 1 from utilisateur a where a.id = ${viewer.id} and a.admin = 1 and a.actif = 1
    and a.supprime = 0 and not ${secondFactorMissing(sql.ref('a.id'))})`
}

export const viewerOfImport = (auteur: number, domaine: string): Viewer => ({
  id: auteur,
  domain: domaine,
  today: todayIso(),
  service: serviceAccountId(auteur) !== null,
})
