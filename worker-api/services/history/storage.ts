import { type SqlBool, sql } from 'kysely'
import { D1_LIMIT_BYTES, LOG_ROW_BYTES, type Storage, storageState } from '../../contract/history/storage'
import { HISTORY_MONTHS } from '../../contract/sign-in/mfa'
import type { DB } from '../../db/client'
import { type Viewer, wholeTreeInScope } from '../../lib/scope'
import { OLDEST_ENTRY_DATE } from './logs'

/** The archive's listing summed. */
type ArchiveTotals = {
  mois: number
  fichiers: number
  entrees: number
  octets: number
  premier: string | null
  dernier: string | null
}

/**
 * The history's place in the database and in the archive, for administrators of the whole tree (no row for others):
 * a few index reads — the entries counted from their ids (archived months leave no gap below the oldest kept), the
 * archive's listing summed (a row per file of 10 000 entries).
 */
export function storageRead(db: DB, viewer: Viewer) {
  return db
    .selectFrom(
      sql<ArchiveTotals>`(
        select count(distinct mois) as mois, count(*) as fichiers, coalesce(sum(lignes), 0) as entrees,
          coalesce(sum(octets), 0) as octets, min(mois) as premier, max(mois) as dernier
        from historique_archive)`.as('archive'),
    )
    .select([
      'archive.mois',
      'archive.fichiers',
      'archive.entrees',
      'archive.octets',
      'archive.premier',
      'archive.dernier',
      // Each of max and min in one seek: together in one select, SQLite would read the whole table.
      sql<number>`coalesce((select max(id) from log) - (select min(id) from log) + 1, 0)`.as('log_entrees'),
      OLDEST_ENTRY_DATE.as('log_premiere'),
      sql<number | null>`(select historique_mois_en_ligne from parametre_securite where id = 1)`.as('mois_en_ligne'),
    ])
    .where(sql<SqlBool>`${wholeTreeInScope(db, viewer)}`)
}

type StorageRow = ArchiveTotals & {
  log_entrees: number
  log_premiere: string | null
  mois_en_ligne: number | null
}

/** The figures of `storageRead`'s row and the database's size after the batch that read it (D1's `size_after`). */
export function storageFigures(row: StorageRow, databaseBytes: number): Storage {
  return {
    base: { octets: databaseBytes, limite: D1_LIMIT_BYTES, etat: storageState(databaseBytes) },
    historique: {
      entrees: row.log_entrees,
      octets: row.log_entrees * LOG_ROW_BYTES,
      moisEnLigne: row.mois_en_ligne ?? HISTORY_MONTHS.default,
      premierMois: row.log_premiere?.slice(0, 7) ?? null,
    },
    archive: {
      mois: row.mois,
      fichiers: row.fichiers,
      entrees: row.entrees,
      octets: row.octets,
      premierMois: row.premier,
      dernierMois: row.dernier,
    },
  }
}
