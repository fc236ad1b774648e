import { dayStartInstant, fromCompactDate, nextDay } from '../../contract/dates'
import type { LogSearchInput } from '../../contract/history/logs'
import type { DB } from '../../db/client'

/** The archive's listing (`historique_archive`), as the history's reads ask it: which files a range reaches. */

/** The range of the filters as instants (UTC): its first day's start, the start of the day after its last. */
export function rangeInstants(filters: Pick<LogSearchInput, 'dateDebut' | 'dateFin'>) {
  return {
    from: filters.dateDebut ? dayStartInstant(fromCompactDate(filters.dateDebut)) : null,
    to: filters.dateFin ? dayStartInstant(nextDay(fromCompactDate(filters.dateFin))) : null,
  }
}

/** The archive's listed files that may hold entries of the range. */
export function filesInRange(db: DB, range: { from: string | null; to: string | null }) {
  return db
    .selectFrom('historique_archive as f')
    .$if(range.from !== null, (q) => q.where('f.date_max', '>=', range.from as string))
    .$if(range.to !== null, (q) => q.where('f.date_min', '<', range.to as string))
}
