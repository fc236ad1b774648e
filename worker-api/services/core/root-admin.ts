import { type SqlBool, sql } from 'kysely'
import type { DB, Guard } from '../../db/client'
import { secondFactorMissing, type Viewer, wholeTreeInScope } from '../../lib/scope'

/**
 * A row while the caller is still a root administrator when the statement runs, and not one the
 * security settings hold back (the policy turned on, or their factor removed, since the read): the
 * condition every catalogue write repeats inside its batch, so that an administrator whose post on the
 * root ended (or whose flag was taken) a moment before writes nothing.
 */
export const rootHolds = (db: DB, viewer: Viewer): Guard =>
  db
    .selectNoFrom(sql<number>`1`.as('root_holds'))
    .where(wholeTreeInScope(db, viewer))
    .where(sql<SqlBool>`not ${secondFactorMissing(sql<number>`${viewer.id}`)}`)
