import { type Expression, type SqlBool, sql } from 'kysely'
import type { User } from '../../contract/organisation/user'
import type { UserListQuery } from '../../contract/organisation/user-admin'
import { type DB, insertWhen, prepared } from '../../db/client'
import { containsEveryPattern, pageWindow, searchPatterns, sortOf, wholeList } from '../../lib/query'
import {
  modificationColumn,
  smallScope,
  userListedInScope,
  type Viewer,
  type ViewerValues,
  viewerIn,
  viewerValues,
} from '../../lib/scope'
import { searchWords } from '../../lib/search-text'
import type { Ctx } from '../../lib/types'
import { adminWith, type Caller, type CallerValues, callerValues, liveAdminOf, viewerOf } from '../core/actor'
import { postesColumn, postesFrom, toUser } from '../core/users'

/** The administrators' list of users (DESIGN §4), and its total kept between writes. */

/** A list's filters, as the statements' builders read them (`listOf`). */
type Filters = Pick<UserListQuery, 'actif' | 'supprime' | 'poste'>

/**
 * The users of a list query: in scope, registered or invited (a pending registration is not a user
 * yet), read from the users or from the scope's posts (`userListedInScope`). The filters come before
 * the scope, which probes other tables.
 */
function listedUsers(db: DB, viewer: Viewer, filters: Filters, patterns: readonly string[], from: 'users' | 'posts') {
  const today = viewer.today
  const current = db
    .selectFrom('poste as held')
    .select('held.id')
    .where(sql<SqlBool>`held.utilisateur_id = utilisateur.id`)
    .where('held.date_debut', '<=', today)
    .where('held.date_fin', '>=', today)
  const matches = containsEveryPattern(['utilisateur.recherche'], patterns)
  return db
    .selectFrom('utilisateur')
    .where('utilisateur.registration_state', '!=', 'PENDING')
    .$if(filters.actif !== undefined, (q) => q.where('utilisateur.actif', '=', filters.actif === 'true' ? 1 : 0))
    .$if(filters.supprime !== undefined, (q) =>
      q.where('utilisateur.supprime', '=', filters.supprime === 'true' ? 1 : 0),
    )
    .$if(matches !== null, (q) => q.where(matches as Expression<SqlBool>))
    .$if(filters.poste === 'true', (q) => q.where((eb) => eb.exists(current)))
    .$if(filters.poste === 'false', (q) => q.where((eb) => eb.not(eb.exists(current))))
    .where(userListedInScope(db, viewer, { from, withPostless: filters.poste !== 'true' }))
}

/**
 * What a list's statements bind (db/client.ts `prepared`, compiled once per shape): the viewer, and the
 * searched words' patterns as `p0`, `p1`… The filters, the viewer's domain and the number of words are
 * the shape (`LIST_SHAPE`): they decide the SQL.
 */
type ListValues = ViewerValues & {
  actif: string
  supprime: string
  poste: string
  words: number
  [pattern: `p${number}`]: string
}
const LIST_SHAPE = ['domain', 'actif', 'supprime', 'poste', 'words'] as const

function listValues(viewer: Viewer, query: UserListQuery): ListValues {
  const patterns = searchPatterns(query.q)
  return {
    ...viewerValues(viewer),
    actif: query.actif ?? '',
    supprime: query.supprime ?? '',
    poste: query.poste ?? '',
    words: patterns.length,
    ...Object.fromEntries(patterns.map((pattern, index) => [`p${index}`, pattern])),
  }
}

function listOf(values: ListValues) {
  const filter = <T extends string>(value: string) => (value === '' ? undefined : (value as T))
  return {
    viewer: viewerIn(values),
    filters: { actif: filter(values.actif), supprime: filter(values.supprime), poste: filter(values.poste) } as Filters,
    patterns: Array.from({ length: values.words }, (_, index) => values[`p${index}`] as string),
  }
}

const SORT_COLUMNS = {
  nom: ['nom', 'prenom'],
  prenom: ['prenom', 'nom'],
  mail: ['mail'],
} as const

/**
 * A page of the list, from the users or from the scope's posts (`smallScope` gives the other a limit of 0),
 * with each user's posts and whether the viewer may manage them.
 */
const pageStatement = prepared(
  (
    db,
    values: ListValues & {
      from: 'users' | 'posts'
      sort: keyof typeof SORT_COLUMNS
      direction: 'asc' | 'desc'
      size: number
      offset: number
    },
  ) => {
    const { viewer, filters, patterns } = listOf(values)
    let sorted = listedUsers(db, viewer, filters, patterns, values.from)
      .selectAll('utilisateur')
      .select(postesColumn(viewer.today))
      .select(modificationColumn(db, viewer))
    for (const column of SORT_COLUMNS[values.sort])
      sorted = sorted.orderBy(sql`${sql.ref(`utilisateur.${column}`)} collate nocase`, values.direction)
    const small = smallScope(db, viewer)
    const chosen = values.from === 'posts' ? small : sql<SqlBool>`not ${small}`
    return sorted
      .orderBy('utilisateur.id', values.direction)
      .limit(sql<number>`case when ${chosen} then ${values.size} else 0 end`)
      .offset(values.offset)
  },
  [...LIST_SHAPE, 'from', 'sort', 'direction'],
)

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
 * accents), sorted and paged in SQL. The page comes from whichever of two statements suits the scope, with the
 * caller's check and the kept total (`keptUserTotal`) in one round trip.
 */
export async function listUsers(
  ctx: Ctx,
  caller: Caller,
  query: UserListQuery,
): Promise<{ items: User[]; total: number }> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const { key: sort, direction } = sortOf(query.tri, 'nom')
  const { size, offset } = pageWindow(query)
  const values = listValues(viewer, query)
  const pageOf = (from: 'users' | 'posts') => pageStatement(db, { ...values, from, sort, direction, size, offset })
  // The whole list (no page) is its own total: nothing to count.
  const total = query.page === undefined ? null : keptUserTotal(db, viewer, query, callerValues(caller))
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
function usersCount(db: DB, viewer: Viewer, filters: Filters, patterns: readonly string[]) {
  const count = (from: 'users' | 'posts') =>
    listedUsers(db, viewer, filters, patterns, from).select((eb) => eb.fn.countAll<number>().as('n'))
  return sql<number>`case when ${smallScope(db, viewer)} then ${count('posts')} else ${count('users')} end`
}

/**
 * The statement that counts a total (`count`) and keeps it under `key` when it is not kept (`keptRead` reads it), only
 * for a caller still allowed as the batch runs (`allowed`: a refused caller writes nothing). The table's triggers empty
 * it on any user, post or structure write, and the key holds what else the count depends on.
 */
export function keepTotal(
  db: DB,
  viewer: Viewer,
  { key, count, allowed }: { key: string; count: Expression<number>; allowed: Expression<SqlBool> },
) {
  const kept = db.selectFrom('utilisateur_liste_total').select('total').where('cle', '=', key)
  const missing = db
    .selectNoFrom(sql.lit(1).as('missing'))
    .where(({ and, not, exists }) => and([not(exists(kept)), allowed]))
  return insertWhen(db, 'utilisateur_liste_total', { cle: key, jour: viewer.today, total: count }, missing).onConflict(
    (oc) => oc.column('cle').doNothing(),
  )
}

/** The count kept under `key` when it is not (`keepTotal`), for a caller still a live administrator. */
const keepStatement = prepared((db, values: ListValues & CallerValues & { key: string }) => {
  const { viewer, filters, patterns } = listOf(values)
  return keepTotal(db, viewer, {
    key: values.key,
    count: usersCount(db, viewer, filters, patterns),
    allowed: liveAdminOf(db, values),
  })
}, LIST_SHAPE)

/** A total kept under `key`. */
export const keptRead = prepared((db, values: { key: string }) =>
  db.selectFrom('utilisateur_liste_total').select('total').where('cle', '=', values.key),
)

/**
 * A list's total (`keepTotal`, `keptRead`), compiled once per shape: the admin home's figures use it, so that they
 * equal the list's `X-Total-Count`. Kept for `caller` only while a live administrator (`liveAdminOf`).
 */
export function keptUserTotal(db: DB, viewer: Viewer, query: UserListQuery, caller: CallerValues) {
  const key = totalKey(viewer, query)
  return {
    keep: keepStatement(db, { ...listValues(viewer, query), ...caller, key }),
    kept: keptRead(db, { key }),
  }
}
