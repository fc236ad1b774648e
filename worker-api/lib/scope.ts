import { type AliasedExpression, type Expression, type SelectQueryBuilder, type SqlBool, sql } from 'kysely'
import { type DB, rawStatement } from '../db/client'
import type { Database, StructureTable } from '../db/schema'
import { hostOf, LOOPBACK_HOSTS } from './domain'

/**
 * The delegated administrator's scope (DESIGN §4), in SQL only, so lists, reads, writes and `modification` agree: the
 * sub-trees of an administrator's current posts. A user lies in it by their current and future posts, else by
 * `rattachement_id` (migration 0014), else only in the whole tree's. A sub-tree is the path range ['/1/2/', '/1/2/:')
 * (':' follows '9'), which the path index answers. The viewer comes as values, to run in `actorWith`'s batch.
 */
export type Viewer = {
  /** A user's id; a service account's is the negative of its own (`serviceAccountId`). */
  id: number
  /** The origin the viewer's account is bound to (or the request's, already checked against it). */
  domain: string
  /** Today on the organisation's calendar ('YYYY-MM-DD'): what makes a post current. */
  today: string
  /**
   * A service account (migration 0026): its scope starts from the structure it belongs to, not from
   * posts. It decides the SQL itself, so a statement compiled once keys its text on it (`viewerKind`).
   */
  service: boolean
}

/**
 * The service account a caller's or viewer's id stands for (null: a user). An account acts under the
 * negative of its id, so that no user's row, post or entry can ever be taken for it, and an audit
 * entry written with it as a user fails rather than names someone else.
 */
export const serviceAccountId = (id: number): number | null => (id < 0 ? -id : null)

/**
 * Whether the user `user` (an id) is the viewer, or the administrator the viewer's service account acts for (its maker,
 * or whoever took it over): a program acts for that administrator, so what nobody decides for themselves (their own
 * request, their own post in a review, their own record) their account does not decide for them either. The account's
 * id is taken in SQL, so that a statement compiled once (its viewer's id a parameter) keeps the rule.
 */
export function actsFor(viewer: Pick<Viewer, 'id' | 'service'>, user: Expression<number | null>): Expression<SqlBool> {
  return viewer.service
    ? sql<SqlBool>`(${user} is not null and ${user} is (select maker.cree_par from compte_service maker
        where maker.id = 0 - ${viewer.id}))`
    : sql<SqlBool>`(${user} is ${viewer.id})`
}

/** A viewer as the values of a statement compiled once (db/client.ts `prepared`), and back. */
export type ViewerValues = { viewerId: number; today: string; domain: string; viewerKind: 'user' | 'service' }
export const viewerValues = (viewer: Viewer): ViewerValues => ({
  viewerId: viewer.id,
  today: viewer.today,
  domain: viewer.domain,
  viewerKind: viewer.service ? 'service' : 'user',
})
export const viewerIn = (values: ViewerValues): Viewer => ({
  id: values.viewerId,
  today: values.today,
  domain: values.domain,
  service: values.viewerKind === 'service',
})

/** Just past the last path of the sub-tree at `path` ('/1/2/' → '/1/2/:'). */
const SUBTREE_END = ':'

/** Whether `path` lies in the sub-tree at `root` (its range of the path index). */
export const inSubtree = (path: Expression<string>, root: Expression<string>) =>
  sql<SqlBool>`(${path} >= ${root} and ${path} < ${root} || ${sql.lit(SUBTREE_END)})`

/** `inSubtree` outside SQL: the same comparison of texts (an archived entry's path, read from its file). */
export const inSubtreeText = (path: string, root: string) => path >= root && path < `${root}${SUBTREE_END}`

/** `inSubtree` for a raw statement: `path` and `root` are SQL text (columns, or parameters such as '?5'). */
export const inSubtreeSql = (path: string, root: string) =>
  `(${path} >= ${root} and ${path} < ${root} || '${SUBTREE_END}')`

/**
 * Whether the user in column `maker` still administers the structure whose path is in column `path`: an administrator,
 * active and not deleted, with a current post whose sub-tree holds it, on the day `today` (SQL). A service account
 * acts for the administrator it belongs to (`cree_par`, its maker or whoever took it over): its scope is its
 * structure's sub-tree while this holds, nothing once it does not, and its every call, token and write asks again.
 */
const administers = (maker: string, path: string, today: string, otherPost = '') =>
  `exists (select 1 from poste maker_post
    join utilisateur maker on maker.id = maker_post.utilisateur_id and maker.admin = 1 and maker.actif = 1
      and maker.supprime = 0
    join structure maker_root on maker_root.id = maker_post.structure_id
    where maker_post.utilisateur_id = ${maker} and ${today} between maker_post.date_debut and maker_post.date_fin${otherPost}
      and ${inSubtreeSql(path, 'maker_root.path')})`

/**
 * `administers` with today bound once, for Kysely: the account's scope sits in the largest statements, several times,
 * and costs no more of D1's 100 bound values than a person's. With `withoutPost`, whether it would still hold once
 * that post ended: what ending it stops.
 */
export function administersPath(maker: string, path: string, today: string, withoutPost?: number): Expression<SqlBool> {
  if (withoutPost === undefined) {
    const [before, after] = administers(maker, path, '\u0000').split('\u0000')
    return sql<SqlBool>`${sql.raw(before ?? '')}${today}${sql.raw(after ?? '')}`
  }
  // The day comes first in the text, then the post.
  const [before, middle, after] = administers(maker, path, '\u0000', ' and maker_post.id <> \u0000').split('\u0000')
  return sql<SqlBool>`${sql.raw(before ?? '')}${today}${sql.raw(middle ?? '')}${withoutPost}${sql.raw(after ?? '')}`
}

/** `administers` for a raw statement whose parameter `today` (e.g. '?5') is the day. */
export const administersPathSql = (maker: string, path: string, today: string) => administers(maker, path, today)

/** The roots' query as its users see it: the paths, from a structure named `scope_root`. */
type ScopeRoots = SelectQueryBuilder<Database & { scope_root: StructureTable }, 'scope_root', { path: string }>

/**
 * The paths of the structures the viewer's scope starts from (none for a non-admin). An administrator
 * the security settings hold back is refused by the caller check (`requireAdmin`) and by
 * `viewerIsAdmin`, not here: this subquery sits deep in the largest statements, near D1's expression
 * depth of 100.
 */
function scopeRoots(db: DB, viewer: Viewer): ScopeRoots {
  if (viewer.service) {
    // The account's structure, while the account is live and its administrator administers it (its check at each call
    // says so too; a write's guard relies on this). A read-only account reads there too: its token writes nothing (the
    // routes' gate), nor may it change anyone (`userManageable`), nor pass a write's `liveAdmin`.
    return db
      .selectFrom('compte_service as scope_account')
      .innerJoin('structure as scope_root', 'scope_root.id', 'scope_account.structure_id')
      .select('scope_root.path')
      .where(sql<SqlBool>`scope_account.id = 0 - ${viewer.id}`)
      .where('scope_account.actif', '=', 1)
      .where('scope_account.supprime', '=', 0)
      .where(administersPath('scope_account.cree_par', 'scope_root.path', viewer.today)) as unknown as ScopeRoots
  }
  return db
    .selectFrom('poste as scope_poste')
    .innerJoin('structure as scope_root', 'scope_root.id', 'scope_poste.structure_id')
    .innerJoin('utilisateur as scope_admin', 'scope_admin.id', 'scope_poste.utilisateur_id')
    .select('scope_root.path')
    .where('scope_poste.utilisateur_id', '=', viewer.id)
    .where('scope_admin.admin', '=', 1)
    .where('scope_poste.date_debut', '<=', viewer.today)
    .where('scope_poste.date_fin', '>=', viewer.today) as unknown as ScopeRoots
}

/**
 * The paths the viewer's scope starts from, each said whether it is the tree's root: what an archived entry of the
 * history (which keeps its structure's path) is checked against, outside SQL (services/history/archive-search.ts).
 */
export function scopeRootPaths(db: DB, viewer: Viewer) {
  return scopeRoots(db, viewer).select(sql<number>`scope_root.parent_id is null`.as('racine'))
}

/** Whether a structure's path (a column or any expression) lies in the viewer's scope. */
export function pathInScope(db: DB, viewer: Viewer, path: Expression<string>): Expression<SqlBool> {
  return sql<SqlBool>`exists ${scopeRoots(db, viewer).where(inSubtree(path, sql.ref('scope_root.path')))}`
}

/**
 * A statement with the viewer's scope roots as its common table `scope_roots`, materialised: read once however many
 * rows `pathInScopeRoots` then checks, where `pathInScope` would join the viewer's posts again for each (the progress
 * of a campaign over the organisation: 1 549 structures in 0.5 ms rather than 1.6).
 */
export const withScopeRoots = (db: DB, viewer: Viewer) =>
  db.with(
    (cte) => cte('scope_roots').materialized(),
    () => scopeRoots(db, viewer),
  )

/** `pathInScope` in a statement of `withScopeRoots`. */
export const pathInScopeRoots = (path: Expression<string>): Expression<SqlBool> =>
  sql<SqlBool>`exists (select 1 from scope_roots where ${inSubtree(path, sql.ref('scope_roots.path'))})`

/**
 * `pathInScope` with the span of the viewer's scope as a range beside it: from the first root's path to the end of the
 * last sub-tree. A list read in the order of the path index (`…, path, …`) then reads that span rather than walking
 * every row before it, each checked against the scope.
 */
export function pathInScopeSpan(db: DB, viewer: Viewer, path: Expression<string>): Expression<SqlBool> {
  const roots = scopeRoots(db, viewer)
  return sql<SqlBool>`(${path} >= (${roots.clearSelect().select(sql<string>`min(scope_root.path)`.as('first'))})
    and ${path} < (${roots.clearSelect().select(sql<string>`max(scope_root.path || ${SUBTREE_END})`.as('last'))})
    and ${pathInScope(db, viewer, path)})`
}

/**
 * The ids of the structures in the viewer's scope, for `structure.id in (…)`: each root's sub-tree as
 * a range of the path index, so a list over a small scope reads only that scope.
 */
export function scopeStructureIds(db: DB, viewer: Viewer) {
  return db
    .selectFrom(scopeRoots(db, viewer).as('root'))
    .innerJoin('structure as in_scope', (join) => join.on(inSubtree(sql.ref('in_scope.path'), sql.ref('root.path'))))
    .select('in_scope.id')
}

/** Whether a user has a second factor (a confirmed TOTP or a passkey), in SQL. */
export const hasSecondFactor = (user: number | Expression<number>) =>
  sql<SqlBool>`(exists (select 1 from mfa_totp where utilisateur_id = ${user} and secret is not null)
    or exists (select 1 from passkey where utilisateur_id = ${user}))`

/**
 * Whether a user is an administrator of whom the security settings require a second factor they do
 * not have: SQL, so that a write's guard holds it too.
 */
export const secondFactorMissing = (user: Expression<number>) =>
  sql<SqlBool>`exists (select 1 from utilisateur a where a.id = ${user} and a.admin = 1
    and exists (select 1 from parametre_securite where id = 1 and mfa_requis_administrateurs = 1)
    and not ${hasSecondFactor(sql.ref('a.id'))})`

/**
 * Whether the viewer is an administrator at all (the flag, whatever their posts), and not one the
 * security settings hold back until they enrol a second factor; a service account: a live
 * administrator account (no second factor is asked of a program: it holds no password to back up).
 */
function viewerIsAdmin(db: DB, viewer: Viewer): Expression<SqlBool> {
  if (viewer.service) return sql<SqlBool>`(exists ${scopeRoots(db, viewer)})`
  return sql<SqlBool>`(exists ${db
    .selectFrom('utilisateur as viewer')
    .select('viewer.id')
    .where('viewer.id', '=', viewer.id)
    .where('viewer.admin', '=', 1)
    .where(sql<SqlBool>`not ${secondFactorMissing(sql.ref('viewer.id'))}`)})`
}

/**
 * Whether an origin column names the same host as `domain`, as `sameDomain` (lib/domain.ts) decides:
 * hosts compared without scheme or port, the loopback names counting as one machine.
 */
export function sameDomainSql(column: Expression<string>, domain: string): Expression<SqlBool> {
  const host = hostOf(domain)
  if (!host) return sql<SqlBool>`0`
  const hosts = LOOPBACK_HOSTS.includes(host) ? LOOPBACK_HOSTS : [host]
  const origins = hosts.flatMap((h) => [`http://${h}`, `https://${h}`])
  // Written into the statement, not bound: the loopback names make twelve of them, which as values
  // would take a statement using the scope twice past D1's 100 bound values. A host parsed by URL
  // holds no quote, and kysely escapes literals all the same.
  const alternatives = origins.flatMap((origin) => [
    sql<SqlBool>`lower(${column}) = ${sql.lit(origin)}`,
    sql<SqlBool>`substr(lower(${column}), 1, ${sql.lit(origin.length + 1)}) = ${sql.lit(`${origin}:`)}`,
  ])
  return sql<SqlBool>`(${sql.join(alternatives, sql` or `)})`
}

/** The current and future posts of a user (id column), past ones ignored, with their structure's path. */
function livePostes(db: DB, viewer: Viewer, userId: Expression<number>) {
  return db
    .selectFrom('poste as live')
    .innerJoin('structure as live_structure', 'live_structure.id', 'live.structure_id')
    .select('live.id')
    .where(sql<SqlBool>`live.utilisateur_id = ${userId}`)
    .where('live.date_fin', '>=', viewer.today)
}

/** The columns of the user a query reads under `alias`. */
const userOf = (alias: string) => ({
  id: sql.ref<number>(`${alias}.id`),
  domain: sql.ref<string>(`${alias}.domain`),
  postesFin: sql.ref<string>(`${alias}.postes_fin`),
  rattachement: sql.ref<number | null>(`${alias}.rattachement_id`),
})

/**
 * Whether the user a query reads under `alias` is a user of the generic endpoints: a carrier's
 * registration not yet complete (PENDING) is handled by the authorisation queue alone, so that no
 * administrator edits, promotes, posts or deletes it behind the queue's back.
 */
export const isUserAccount = (alias = 'utilisateur'): Expression<SqlBool> =>
  sql<SqlBool>`${sql.ref(`${alias}.registration_state`)} <> 'PENDING'`

/**
 * Whether a user without a live post (`postes_fin` past) lies in the viewer's scope: the structure
 * they belong to does — or they belong to none (never posted, or their structure is gone) and the
 * viewer administers the whole tree of their domain. Not the domain alone: a delegated administrator
 * would otherwise reach every former employee, deleted user and registration of the organisation.
 */
function postlessInScope(db: DB, viewer: Viewer, alias: string, { byIndex = true } = {}): Expression<SqlBool> {
  const user = userOf(alias)
  // Without `byIndex`, a unary plus keeps SQLite from reading the rows through the index on
  // `rattachement_id` (every user of the scope's structures) when the query has a better one.
  const rattachement = byIndex ? user.rattachement : sql<number | null>`+${user.rattachement}`
  return sql<SqlBool>`(${rattachement} in ${scopeStructureIds(db, viewer)}
    or (${rattachement} is null and ${wholeTreeInScope(db, viewer)}
      and ${sameDomainSql(user.domain, viewer.domain)}))`
}

/**
 * Whether the pending registration under `alias` is in the viewer's authorisation queue: its structure
 * (`rattachement_id`: the company chosen, or the carriers' parent for a typed one) lies in scope by the postless rule
 * (`postlessInScope`), so one whose structure is gone goes to the administrators of its domain's whole tree.
 */
export const registrationInScope = (db: DB, viewer: Viewer, alias: string): Expression<SqlBool> =>
  // Read from the few pending registrations (`utilisateur (registration_state, …)`), not from the
  // users of the scope's structures: the root's queue of 300 among 100 000 users in a millisecond
  // rather than a third of a second.
  postlessInScope(db, viewer, alias, { byIndex: false })

/**
 * The ids of the users without a live post in the viewer's scope (`postlessInScope` as a set), each
 * part read from `utilisateur (rattachement_id, postes_fin, domain)` without the table.
 */
function postlessUserIds(db: DB, viewer: Viewer) {
  const postless = db
    .selectFrom('utilisateur as postless')
    .select('postless.id as utilisateur_id')
    .where('postless.postes_fin', '<', viewer.today)
  return postless.where('postless.rattachement_id', 'in', scopeStructureIds(db, viewer)).unionAll(
    postless
      .where('postless.rattachement_id', 'is', null)
      .where(wholeTreeInScope(db, viewer))
      .where(sameDomainSql(sql.ref<string>('postless.domain'), viewer.domain)),
  )
}

/**
 * May the viewer see this user at all: an administrator, and one of the user's current or future
 * posts in scope — or no such post and the user's structure in scope (DESIGN §4).
 */
export function userVisible(db: DB, viewer: Viewer, alias: string): Expression<SqlBool> {
  const user = userOf(alias)
  const posts = livePostes(db, viewer, user.id)
  return sql<SqlBool>`(${viewerIsAdmin(db, viewer)} and ${isUserAccount(alias)} and (
    exists ${posts.where(pathInScope(db, viewer, sql.ref<string>('live_structure.path')))}
    or (${user.postesFin} < ${viewer.today} and ${postlessInScope(db, viewer, alias)})))`
}

/**
 * A scope under both limits is listed from its posts, a larger one from the users in the list's order: on 100 000 users
 * each costs a millisecond its own way and a tenth of a second the other way round.
 */
export const SMALL_SCOPE_STRUCTURES = 100
export const SMALL_SCOPE_POSTS = 1000

/** The users holding the live posts of the scope (with repeats), read from the structures in scope. */
const livePostsInScope = (db: DB, viewer: Viewer) =>
  db
    .selectFrom('poste as scoped')
    .select('scoped.utilisateur_id')
    .where('scoped.structure_id', 'in', scopeStructureIds(db, viewer))
    .where('scoped.date_fin', '>=', viewer.today)

/** Whether `rows`, a query capped at `limit` rows, has fewer than that: read from at most `limit` index entries. */
const fewer = (rows: AliasedExpression<unknown, 'capped'>, limit: number): Expression<SqlBool> =>
  sql<SqlBool>`((select count(*) from ${rows}) < ${limit})`

/**
 * Whether the viewer's scope is small (above): read from at most that many index entries — the posts
 * only counted for a scope of few structures — and evaluated once by a query (it names no column of
 * the query's rows).
 */
export const smallScope = (db: DB, viewer: Viewer): Expression<SqlBool> => {
  const structures = scopeStructureIds(db, viewer).limit(SMALL_SCOPE_STRUCTURES).as('capped')
  const posts = livePostsInScope(db, viewer).limit(SMALL_SCOPE_POSTS).as('capped')
  return sql<SqlBool>`(${fewer(structures, SMALL_SCOPE_STRUCTURES)} and ${fewer(posts, SMALL_SCOPE_POSTS)})`
}

/**
 * Whether fewer than `SMALL_SCOPE_POSTS` users are in scope, those without a post included
 * (`scopeUserIds`, capped): what decides how to read the entries of the scope's users (a site may
 * count thousands of former employees, whose entries are better found down a date index than user by
 * user).
 */
export const fewUsersInScope = (db: DB, viewer: Viewer): Expression<SqlBool> =>
  fewer(scopeUserIds(db, viewer).limit(SMALL_SCOPE_POSTS).as('capped'), SMALL_SCOPE_POSTS)

/**
 * `userVisible` for a list, written so that an index serves either way round (`from`): from the users (a large scope,
 * in the list's order) or from the scope's posts (a small one). Users without a live post (`postes_fin` past) are
 * placed by their structure (`postlessInScope`); `withPostless: false` leaves them out.
 */
export function userListedInScope(
  db: DB,
  viewer: Viewer,
  options: { from: 'users' | 'posts'; withPostless: boolean },
  alias = 'utilisateur',
): Expression<SqlBool> {
  const user = userOf(alias)
  const postesFin = sql.ref<string>(`${alias}.postes_fin`)
  const inScope =
    options.from === 'posts'
      ? sql<SqlBool>`${user.id} in ${livePostsInScope(db, viewer)}`
      : sql<SqlBool>`(${postesFin} >= ${viewer.today} and exists ${db
          .selectFrom('poste as listed')
          .select('listed.id')
          .where(sql<SqlBool>`listed.utilisateur_id = ${user.id}`)
          .where('listed.date_fin', '>=', viewer.today)
          .where('listed.structure_id', 'in', scopeStructureIds(db, viewer))})`
  if (!options.withPostless) return inScope
  const postless =
    options.from === 'posts'
      ? sql<SqlBool>`${user.id} in ${postlessUserIds(db, viewer)}`
      : sql<SqlBool>`(${postesFin} < ${viewer.today} and ${postlessInScope(db, viewer, alias)})`
  return sql<SqlBool>`(${inScope} or ${postless})`
}

/**
 * The ids of the users in the viewer's scope, as a set for `… in (…)` (`userListedInScope` the other
 * way round): those holding a live post in scope, and those without one who belong there — each read
 * from an index that covers it, so the set of the root's 100 000 users is gathered in a few
 * milliseconds.
 */
export function scopeUserIds(db: DB, viewer: Viewer) {
  return livePostsInScope(db, viewer).unionAll(postlessUserIds(db, viewer))
}

/**
 * Whether the viewer's scope starts from a root of the tree, so holds every structure: what belongs to
 * nobody any more (an audit entry whose user was deleted) is theirs to see.
 */
export function wholeTreeInScope(db: DB, viewer: Viewer): Expression<SqlBool> {
  return sql<SqlBool>`exists ${scopeRoots(db, viewer).where('scope_root.parent_id', 'is', null)}`
}

/**
 * `modification` (DESIGN §4): the viewer is an administrator, the user is someone else (not a pending
 * registration), and every current and future post of theirs lies in scope — a user with none: the
 * structure they belong to (`postlessInScope`). The server allows exactly what this announces, and
 * writes on a user repeat it in their own statement.
 */
export function userManageable(db: DB, viewer: Viewer, alias = 'utilisateur'): Expression<SqlBool> {
  const user = userOf(alias)
  const posts = livePostes(db, viewer, user.id)
  // Nobody acts on themselves, nor a program on the administrator it acts for (`actsFor`).
  // A read-only account changes nobody.
  const someoneElse = viewer.service
    ? sql<SqlBool>`(not ${actsFor(viewer, user.id)}
        and exists (select 1 from compte_service writer where writer.id = 0 - ${viewer.id} and writer.admin = 1))`
    : sql<SqlBool>`${user.id} <> ${viewer.id}`
  return sql<SqlBool>`(${someoneElse} and ${viewerIsAdmin(db, viewer)} and ${isUserAccount(alias)}
    and not exists ${posts.where(sql<SqlBool>`not ${pathInScope(db, viewer, sql.ref<string>('live_structure.path'))}`)}
    and (exists ${posts} or ${postlessInScope(db, viewer, alias)}))`
}

/** `userManageable` as the 0/1 column `modification` of a query reading a user under `alias`. */
export const modificationColumn = (db: DB, viewer: Viewer, alias = 'utilisateur') =>
  sql<number>`${userManageable(db, viewer, alias)}`.as('modification')

/** Whether the structure a query reads under `alias` lies in scope, as the 0/1 column `in_scope`. */
export const inScopeColumn = (db: DB, viewer: Viewer, alias: string) =>
  sql<number>`${pathInScope(db, viewer, sql.ref<string>(`${alias}.path`))}`.as('in_scope')

/** `visible` and `modification` as 0/1 columns of a query on `utilisateur`. */
export function scopeColumns(db: DB, viewer: Viewer) {
  return () =>
    [sql<number>`${userVisible(db, viewer, 'utilisateur')}`.as('visible'), modificationColumn(db, viewer)] as const
}

/**
 * The administrators who manage a user (`userManageable` read the other way round: those for whom it holds of this
 * user), with the depth of the nearest sub-tree through which each does — the longest path of their scope's roots above
 * the user's structures. The user's structures are those of their current and future posts, else the structure they
 * belong to; an administrator manages them when each lies in one of their scope's sub-trees. Read from the user's
 * structures up (`parent_id`), then the current posts held there: a few index lookups, whatever the tree's size.
 * A user who belongs nowhere is the whole tree's: not told to anyone here, found in every root administrator's list.
 */
export type UserManager = {
  id: number
  mail: string
  nom: string
  prenom: string
  langue: string
  domain: string
  profondeur: number
}

export function userManagers(userId: number, today: string) {
  const covers = (root: string) => `t.path >= ${root}.path and t.path < ${root}.path || '${SUBTREE_END}'`
  return rawStatement<UserManager>(
    `with recursive targets (id, path) as (
        select s.id, s.path from poste p join structure s on s.id = p.structure_id
          where p.utilisateur_id = ?1 and p.date_fin >= ?2
        union select s.id, s.path from utilisateur u join structure s on s.id = u.rattachement_id
          where u.id = ?1 and u.postes_fin < ?2),
      up (id, parent_id) as (
        select s.id, s.parent_id from structure s where s.id in (select id from targets)
        union select s.id, s.parent_id from structure s join up on s.id = up.parent_id)
      select a.id, a.mail, a.nom, a.prenom, a.langue, a.domain, max(length(r.path)) as profondeur
      from up
      join poste ap on ap.structure_id = up.id and ap.date_fin >= ?2 and ap.date_debut <= ?2
      join structure r on r.id = ap.structure_id
      join utilisateur a on a.id = ap.utilisateur_id
      where a.admin = 1 and a.actif = 1 and a.supprime = 0 and a.registration_state <> 'PENDING' and a.id <> ?1
        and not exists (select 1 from targets t where not exists (
          select 1 from poste held join structure hr on hr.id = held.structure_id
          where held.utilisateur_id = a.id and held.date_debut <= ?2 and held.date_fin >= ?2 and ${covers('hr')}))
      group by a.id
      order by profondeur desc, a.id`,
    [userId, today],
  )
}

/**
 * The paths of the structures a user lies in by the scope's rule (DESIGN §4): their current and future posts', else
 * their structure's (`rattachement_id`), else none, as a JSON array. An event keeps it (migration 0046) to say which
 * sub-trees it concerns, even once its user moved on.
 */
export const userPathsJson = (user: Expression<number>, today: string) =>
  sql<string>`coalesce(
    (select json_group_array(user_path.path) from poste user_path_poste
      join structure user_path on user_path.id = user_path_poste.structure_id
      where user_path_poste.utilisateur_id = ${user} and user_path_poste.date_fin >= ${today} having count(*) > 0),
    (select json_array(user_home.path) from utilisateur user_path_user
      join structure user_home on user_home.id = user_path_user.rattachement_id
      where user_path_user.id = ${user}),
    '[]')`

/**
 * Whether something that concerns the structures at `paths` (a JSON array: an event's `chemins`) lies in the viewer's
 * scope, in a statement of `withScopeRoots`: one of them in a sub-tree of the scope, or none at all and the scope the
 * whole tree's (as for a user who belongs to no structure).
 */
export const pathsInScopeRoots = (
  db: DB,
  viewer: Viewer,
  paths: Expression<string>,
  domain: Expression<string>,
): Expression<SqlBool> =>
  sql<SqlBool>`(exists (select 1 from json_each(${paths}) scope_path
      where ${pathInScopeRoots(sql.ref<string>('scope_path.value'))})
    or (${paths} = '[]' and ${wholeTreeInScope(db, viewer)} and ${sameDomainSql(domain, viewer.domain)}))`
