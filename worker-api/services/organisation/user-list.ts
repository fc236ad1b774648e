import { type Expression, type SqlBool, sql } from 'kysely'
import type { User } from '../../contract/user'
import type { UserListQuery } from '../../contract/user-admin'
import { type DB, insertWhen } from '../../db/client'
import { containsEveryWord, pageWindow, sortOf, wholeList } from '../../lib/query'
import { modificationColumn, smallScope, userListedInScope, type Viewer } from '../../lib/scope'
import { searchWords } from '../../lib/search-text'
import type { Ctx } from '../../lib/types'
import { adminWith, type Caller, liveAdmin, viewerOf } from '../core/actor'
import { postesColumn, postesFrom, toUser } from '../core/users'

/** The administrators' list of users (DESIGN §4), and its total kept between writes. */

/**
 * The users of a list query: in scope, registered or invited (a pending registration is not a user
 * yet), read from the users or from the scope's posts (`userListedInScope`). The filters come before
 * the scope, which probes other tables.
 */
function listedUsers(db: DB, viewer: Viewer, query: UserListQuery, from: 'users' | 'posts') {
  const today = viewer.today
  const current = db
    .selectFrom('poste as held')
    .select('held.id')
    .where(sql<SqlBool>`held.utilisateur_id = utilisateur.id`)
    .where('held.date_debut', '<=', today)
    .where('held.date_fin', '>=', today)
  const matches = containsEveryWord(['utilisateur.recherche'], query.q)
  return db
    .selectFrom('utilisateur')
    .where('utilisateur.registration_state', '!=', 'PENDING')
    .$if(query.actif !== undefined, (q) => q.where('utilisateur.actif', '=', query.actif === 'true' ? 1 : 0))
    .$if(query.supprime !== undefined, (q) => q.where('utilisateur.supprime', '=', query.supprime === 'true' ? 1 : 0))
    .$if(matches !== null, (q) => q.where(matches as Expression<SqlBool>))
    .$if(query.poste === 'true', (q) => q.where((eb) => eb.exists(current)))
    .$if(query.poste === 'false', (q) => q.where((eb) => eb.not(eb.exists(current))))
    .where(userListedInScope(db, viewer, { from, withPostless: query.poste !== 'true' }))
}

const SORT_COLUMNS = {
  nom: ['nom', 'prenom'],
  prenom: ['prenom', 'nom'],
  mail: ['mail'],
} as const

/**
 * The key of a list's total in `utilisateur_liste_total`: everything the count depends on besides
 * the data (whose writes empty the table) — the viewer, their site, the day and the filters.
 */
const totalKey = (viewer: Viewer, query: UserListQuery) =>
  JSON.stringify([
    viewer.today,
    viewer.id,
    viewer.domain,
    query.poste ?? null,
    query.actif ?? null,
    query.supprime ?? null,
    searchWords(query.q ?? ''),
  ])

/**
 * GET rest/bd/utilisateur/liste: the scope's users (DESIGN §4), filtered, searched (names, whatever their case and
 * accents), sorted and paged in SQL. The page comes from whichever of two statements suits the scope (`smallScope`
 * gives the other a limit of 0), with the caller's check and the kept total (`keptUserTotal`) in one round trip.
 */
export async function listUsers(
  ctx: Ctx,
  caller: Caller,
  query: UserListQuery,
): Promise<{ items: User[]; total: number }> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const { key, direction } = sortOf(query.tri, 'nom')
  const columns = SORT_COLUMNS[key]
  const small = smallScope(db, viewer)
  const { size, offset } = pageWindow(query)
  const pageOf = (from: 'users' | 'posts') => {
    let sorted = listedUsers(db, viewer, query, from)
      .selectAll('utilisateur')
      .select(postesColumn(viewer.today))
      .select(modificationColumn(db, viewer))
    for (const column of columns)
      sorted = sorted.orderBy(sql`${sql.ref(`utilisateur.${column}`)} collate nocase`, direction)
    const chosen = from === 'posts' ? small : sql<SqlBool>`not ${small}`
    return sorted
      .orderBy('utilisateur.id', direction)
      .limit(sql<number>`case when ${chosen} then ${size} else 0 end`)
      .offset(offset)
  }
  // The whole list (no page) is its own total: nothing to count.
  const total = query.page === undefined ? null : keptUserTotal(db, viewer, query, liveAdmin(ctx, caller))
  const { fromPosts, fromUsers, kept } = await adminWith(ctx, caller, {
    fromPosts: pageOf('posts'),
    fromUsers: pageOf('users'),
    keep: total?.keep ?? null,
    kept: total?.kept ?? null,
  })
  const rows = [...fromPosts, ...fromUsers]
  const items = rows.map((row) => toUser(row, postesFrom(row.postes, viewer.today), row.modification === 1))
  if (query.page === undefined) return { items: wholeList(items), total: items.length }
  return { items, total: kept?.[0]?.total ?? 0 }
}

/** A list's count of users, from the scope's posts or from the users, as its page is read. */
function usersCount(db: DB, viewer: Viewer, query: UserListQuery, small: Expression<SqlBool>) {
  const count = (from: 'users' | 'posts') =>
    listedUsers(db, viewer, query, from).select((eb) => eb.fn.countAll<number>().as('n'))
  return sql<number>`case when ${small} then ${count('posts')} else ${count('users')} end`
}

/**
 * A total kept under `key` as two statements: the first counts (`count`) and keeps it when it is not kept, only for a
 * caller still allowed as the batch runs (`allowed`: a refused caller writes nothing); the second reads it. The
 * table's triggers empty it on any user, post or structure write, and the key holds what else the count depends on.
 */
export function keptTotal(
  db: DB,
  viewer: Viewer,
  { key, count, allowed }: { key: string; count: Expression<number>; allowed: Expression<SqlBool> },
) {
  const kept = db.selectFrom('utilisateur_liste_total').select('total').where('cle', '=', key)
  const missing = db
    .selectNoFrom(sql.lit(1).as('missing'))
    .where(({ and, not, exists }) => and([not(exists(kept)), allowed]))
  return {
    keep: insertWhen(db, 'utilisateur_liste_total', { cle: key, jour: viewer.today, total: count }, missing).onConflict(
      (oc) => oc.column('cle').doNothing(),
    ),
    kept,
  }
}

/** A list's total (`keptTotal`): the admin home's figures use it, so that they equal the list's `X-Total-Count`. */
export function keptUserTotal(db: DB, viewer: Viewer, query: UserListQuery, allowed: Expression<SqlBool>) {
  return keptTotal(db, viewer, {
    key: totalKey(viewer, query),
    count: usersCount(db, viewer, query, smallScope(db, viewer)),
    allowed,
  })
}
