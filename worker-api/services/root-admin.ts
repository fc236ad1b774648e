import { sql } from 'kysely'
import type { DB, Guard } from '../db/client'
import { forbidden } from '../lib/errors'
import { type Viewer, wholeTreeInScope } from '../lib/scope'
import type { Actor } from './actor'

/**
 * The catalogue (applications, and which functions grant them) is the root administrators' to
 * manage: administrators with a current post on a root of the tree (`racine`, read with the caller's
 * check in the batch of the call's reads).
 */
export function requireRootAdmin(actor: Actor) {
  if (!actor.admin || !actor.racine) throw forbidden('Root administrators only')
}

/**
 * A row while the caller is still a root administrator when the statement runs: the condition every
 * catalogue write repeats inside its batch, so that an administrator whose post on the root ended (or
 * whose flag was taken) a moment before writes nothing.
 */
export const rootHolds = (db: DB, viewer: Viewer): Guard =>
  db.selectNoFrom(sql<number>`1`.as('root_holds')).where(wholeTreeInScope(db, viewer)) as unknown as Guard
