import { type Expression, type SqlBool, sql } from 'kysely'
import { dayStartInstant, fromWireDate, nextDay } from '../../contract/dates'
import { LOG_LABELS, type LogEntry, type LogListQuery } from '../../contract/history/logs'
import type { LogType } from '../../contract/log-labels'
import type { DB } from '../../db/client'
import { containsText, pageWindow, wholeList } from '../../lib/query'
import {
  fewUsersInScope,
  scopeStructureIds,
  scopeUserIds,
  smallScope,
  userListedInScope,
  type Viewer,
  wholeTreeInScope,
} from '../../lib/scope'
import { foldSearchText, searchWords } from '../../lib/search-text'
import type { Ctx } from '../../lib/types'
import { adminWith, type Caller, liveAdmin, viewerOf } from '../core/actor'
import { filesInRange, rangeInstants } from './archive-listing'

/** The history's filters (a list query without its page). */
export type LogFilters = Pick<LogListQuery, 'dateDebut' | 'dateFin' | 'q' | 'type' | 'utilisateur'>

const foldedLabels = (pick: (labels: (typeof LOG_LABELS)['fr']) => Record<string, string>) =>
  Object.values(LOG_LABELS).flatMap((labels) =>
    Object.entries(pick(labels)).map(([code, label]) => ({ code, folded: foldSearchText(label.toLowerCase()) })),
  )
const TYPE_LABELS = foldedLabels((labels) => labels.types)
const ACTION_LABELS = foldedLabels((labels) => labels.actions)
const SESSION_LABELS = foldedLabels((labels) => labels.sessions)
const REQUEST_LABELS = foldedLabels((labels) => labels.requests)
const REVIEW_LABELS = foldedLabels((labels) => labels.reviews)
const DEVICE_LABELS = foldedLabels((labels) => labels.devices)

const matchingCodes = (labels: { code: string; folded: string }[], word: string) => [
  ...new Set(labels.filter((label) => label.folded.includes(word)).map((label) => label.code)),
]

/**
 * What one word of the search finds besides text (spec §2 logs screen): the types, administrative actions, and
 * sign-out, request, review and device sign-in names whose label in either language holds it, and its day when it is one
 * ('dd/MM/yyyy', as the instants the day starts and ends at).
 */
export function wordCodes(word: string) {
  const day = fromWireDate(word.replace(/^(\d)\//, '0$1/').replace(/\/(\d)\//, '/0$1/'))
  // A day outside the history's (1970 to 9998) is no day: its instants are not computed.
  const inRange = day !== null && day >= '1970-01-01' && day <= '9998-12-31'
  return {
    types: matchingCodes(TYPE_LABELS, word),
    actions: matchingCodes(ACTION_LABELS, word),
    named: [
      ['DECONNEXION', matchingCodes(SESSION_LABELS, word)],
      ['DEMANDE_ACCES', matchingCodes(REQUEST_LABELS, word)],
      ['REVUE_ACCES', matchingCodes(REVIEW_LABELS, word)],
      ['CONNEXION', matchingCodes(DEVICE_LABELS, word)],
    ] as const,
    day: day && inRange ? ([dayStartInstant(day), dayStartInstant(nextDay(day))] as const) : null,
  }
}

/**
 * Whether an entry matches one word of the search (spec §2 logs screen): its user's first or last
 * name or mail, its comment, its action label in either language (found here among the labels, then asked of the
 * entry's type, administrative action or sign-out from the list of sessions), or its day when the word is one ('dd/MM/yyyy').
 */
function matchesWord(db: DB, word: string): Expression<SqlBool> {
  const author = db
    .selectFrom('utilisateur as found')
    .select(sql<string>`found.recherche || char(10) || found.mail`.as('searched'))
    .where(sql<SqlBool>`found.id = log.utilisateur_id`)
  const account = db
    .selectFrom('compte_service as found_account')
    .select('found_account.nom')
    .where(sql<SqlBool>`found_account.id = log.compte_service_id`)
  const alternatives: Expression<SqlBool>[] = [
    // One pattern for the user's names and mail (or the service account's name) and the entry's
    // comment ("who deleted X?" finds the entry naming X): D1 binds at most 100 values a statement.
    containsText(
      [sql<string>`coalesce((${author}), (${account}), '')`, sql<string>`coalesce(log.commentaire, '')`],
      word,
    ),
  ]
  const { types, actions, named, day } = wordCodes(word)
  if (types.length > 0)
    alternatives.push(sql<SqlBool>`log.type_log in (${sql.join(types.map((type) => sql.lit(type)))})`)
  if (actions.length > 0) {
    alternatives.push(
      sql<SqlBool>`(log.type_log = 'ADMINISTRATION' and log.nom_log in (${sql.join(actions.map((action) => sql.lit(action)))}))`,
    )
  }
  for (const [type, names] of named) {
    if (names.length > 0) {
      alternatives.push(
        sql<SqlBool>`(log.type_log = ${sql.lit(type)} and log.nom_log in (${sql.join(names.map((name) => sql.lit(name)))}))`,
      )
    }
  }
  // Instants computed here, written as literals: D1 binds at most 100 values a statement.
  if (day) alternatives.push(sql<SqlBool>`(log.instant >= ${atInstant(day[0])} and log.instant < ${atInstant(day[1])})`)
  return sql<SqlBool>`(${sql.join(alternatives, sql` or `)})`
}

/**
 * The entries matching the filters, the scope aside: the range's days (inclusive) as instants in the
 * organisation's time zone, the type, and every word of the search.
 */
function filteredLogs(db: DB, filters: LogFilters, after?: Expression<number>) {
  const words = searchWords(filters.q ?? '')
  // Counting the entries after `after`, the dates are checked on those rows, not looked up in their
  // index: the few entries past a kept total are found by their ids.
  const instant = after ? sql<number>`+log.instant` : sql<number>`log.instant`
  const range = rangeInstants(filters)
  return db
    .selectFrom('log')
    .$if(after !== undefined, (q) => q.where(sql<SqlBool>`log.id > ${after}`))
    .$if(range.from !== null, (q) => q.where(sql<SqlBool>`${instant} >= ${atInstant(range.from as string)}`))
    .$if(range.to !== null, (q) => q.where(sql<SqlBool>`${instant} < ${atInstant(range.to as string)}`))
    .$if(filters.type !== undefined, (q) => q.where('log.type_log', '=', filters.type as LogType))
    .$if(filters.utilisateur !== undefined, (q) => q.where('log.utilisateur_id', '=', filters.utilisateur as number))
    .$if(words.length > 0, (q) =>
      q.where(
        sql<SqlBool>`${sql.join(
          words.map((word) => matchesWord(db, word)),
          sql` and `,
        )}`,
      ),
    )
}

/**
 * Whether an entry's user is in scope (DESIGN §4; a deleted user's entries are the whole tree's), per way of reading:
 * `users` probes the log per user of a small scope, `log` asks each entry of a large one (newest first, a page stops
 * early), `set` probes the scope's users gathered once (a large scope counted).
 */
export function authorInScope(db: DB, viewer: Viewer, way: 'users' | 'log' | 'set'): Expression<SqlBool> {
  const whole = wholeTreeInScope(db, viewer)
  // A deleted user's entries, and those of a service account (its structure's sub-tree, as its users').
  const gone = sql<SqlBool>`(log.utilisateur_id is null and (log.compte_service_id is null and ${whole}
    or log.compte_service_id in ${accountIdsInScope(db, viewer, whole)}))`
  if (way === 'users') return sql<SqlBool>`(log.utilisateur_id in ${scopeUserIds(db, viewer)} or ${gone})`
  if (way === 'set') return sql<SqlBool>`(+log.utilisateur_id in ${scopeUserIds(db, viewer)} or ${gone})`
  return sql<SqlBool>`(exists ${db
    .selectFrom('utilisateur as author')
    .select('author.id')
    .where(sql<SqlBool>`author.id = log.utilisateur_id`)
    .where(userListedInScope(db, viewer, { from: 'users', withPostless: true }, 'author'))} or ${gone})`
}

/**
 * The service accounts whose entries the viewer reads: those of the structures in scope, and for the
 * whole tree's administrators those whose structure is gone.
 */
const accountIdsInScope = (db: DB, viewer: Viewer, whole: Expression<SqlBool>) =>
  db
    .selectFrom('compte_service as author_account')
    .select('author_account.id')
    .where(
      sql<SqlBool>`(author_account.structure_id in ${scopeStructureIds(db, viewer)}
        or (author_account.structure_id is null and ${whole}))`,
    )

/** An entry's own columns, as the history shows and the archive keeps them. */
export const LOG_COLUMNS = [
  'log.id',
  'log.date',
  'log.type_log',
  'log.nom_log',
  'log.commentaire',
  'log.nom_navigateur',
  'log.version_navigateur',
  'log.source',
  'log.utilisateur_id',
  'log.compte_service_id',
] as const

/** The structure of an entry's user (spec §2): their first current post's, else their first future one's. */
const structureColumn = (db: DB, today: string) =>
  db
    .selectFrom('poste as held')
    .innerJoin('structure as held_structure', 'held_structure.id', 'held.structure_id')
    .select(sql<string>`json_object('id', held_structure.id, 'nom', held_structure.nom)`.as('json'))
    .where(sql<SqlBool>`held.utilisateur_id = log.utilisateur_id`)
    .where('held.date_fin', '>=', today)
    .orderBy(sql`held.date_debut > ${today}`)
    .orderBy('held.date_debut')
    .orderBy('held.id')
    .limit(1)
    .as('structure')

/**
 * The entries in scope with what the history shows of each, newest first: `select` picks the page's
 * entries (its order, limit and resumption) by id first, so that only those are joined to their user
 * and structure — a small scope's range may hold thousands of entries to sort.
 */
export function logRows(
  db: DB,
  viewer: Viewer,
  filters: LogFilters,
  way: 'users' | 'log',
  select: (ids: ReturnType<typeof pageIds>) => ReturnType<typeof pageIds>,
) {
  return db
    .selectFrom('log')
    .where('log.id', 'in', select(pageIds(db, viewer, filters, way)))
    .leftJoin('utilisateur as u', 'u.id', 'log.utilisateur_id')
    .leftJoin('compte_service as cs', 'cs.id', 'log.compte_service_id')
    .select([...LOG_COLUMNS, 'u.nom', 'u.prenom', 'u.mail', 'cs.nom as compte_service_nom'])
    .select(structureColumn(db, viewer.today))
    .orderBy('log.instant', 'desc')
    .orderBy('log.id', 'desc')
}

/** The ids of the entries in scope, newest first. */
const pageIds = (db: DB, viewer: Viewer, filters: LogFilters, way: 'users' | 'log') =>
  filteredLogs(db, filters)
    .where(authorInScope(db, viewer, way))
    .select('log.id')
    .orderBy('log.instant', 'desc')
    .orderBy('log.id', 'desc')

export type LogRow = {
  id: number
  date: string
  type_log: LogType
  nom_log: string
  commentaire: string | null
  nom_navigateur: string | null
  version_navigateur: string | null
  source: 'SERVEUR' | 'CLIENT'
  utilisateur_id: number | null
  nom: string | null
  prenom: string | null
  mail: string | null
  compte_service_id: number | null
  compte_service_nom: string | null
  structure: string | null
}

export function toLogEntry(row: LogRow): LogEntry {
  return {
    id: row.id,
    date: row.date,
    user:
      row.utilisateur_id === null
        ? null
        : { id: row.utilisateur_id, nom: row.nom ?? '', prenom: row.prenom ?? '', mail: row.mail ?? '' },
    compteService:
      row.compte_service_id === null ? null : { id: row.compte_service_id, nom: row.compte_service_nom ?? '' },
    structure: row.structure ? (JSON.parse(row.structure) as { id: number; nom: string }) : null,
    typeLog: row.type_log,
    nomLog: row.nom_log,
    commentaire: row.commentaire,
    nomNavigateur: row.nom_navigateur,
    versionNavigateur: row.version_navigateur,
    source: row.source,
  }
}

/**
 * An instant (ISO 8601) as the history's indexes hold it: `log.instant`, its milliseconds since 1970 (migration 0044),
 * written as a literal (D1 binds at most 100 values a statement). Entries are filtered and ordered by `instant`, never
 * by `date`, which no index holds.
 */
export const atInstant = (iso: string) => sql.lit(Date.parse(iso))

/** The oldest entry's date in D1 (null for none), found at the start of the index of instants. */
export const OLDEST_ENTRY_DATE = sql<
  string | null
>`(select oldest.date from log as oldest order by oldest.instant limit 1)`

/** The newest entry's id (0 for none): what a kept count has counted up to (`jusqua`). */
export const LATEST_ENTRY = sql<number>`coalesce((select max(id) from log), 0)`

/**
 * The key of a history total in `utilisateur_liste_total`: what the count depends on besides the data
 * (whose changes empty the table, and whose new entries are counted after `jusqua`).
 */
const totalKey = (viewer: Viewer, query: LogFilters) =>
  JSON.stringify([
    'history',
    viewer.today,
    viewer.id,
    viewer.domain,
    query.dateDebut ?? null,
    query.dateFin ?? null,
    query.type ?? null,
    searchWords(query.q ?? ''),
    query.utilisateur ?? null,
  ])

/**
 * A list read: its page either way round (a scope of few users from their entries, user by user; else down the date
 * index, newest first, where a page stops after a few tens of entries), then its total: a kept one plus the entries
 * since, else a full count, written back only when it changed. Both writes wait for `allowed`.
 */
export function logListStatements(db: DB, viewer: Viewer, query: LogListQuery, allowed: Expression<SqlBool>) {
  const fewUsers = fewUsersInScope(db, viewer)
  // The first count, over the whole range, by the scope's posts (D1's 100 bound values: the count of
  // its users would not fit beside the search).
  const small = smallScope(db, viewer)
  const { size, offset } = pageWindow(query)
  const pageOf = (way: 'users' | 'log') =>
    logRows(db, viewer, query, way, (ids) =>
      ids
        .limit(sql<number>`case when ${way === 'users' ? fewUsers : sql`not ${fewUsers}`} then ${size} else 0 end`)
        .offset(offset),
    )
  const count = (way: 'users' | 'set' | 'log', after?: Expression<number>) =>
    filteredLogs(db, query, after)
      .where(authorInScope(db, viewer, way))
      .select((eb) => eb.fn.countAll<number>().as('n'))
  const key = totalKey(viewer, query)
  const kept = db.selectFrom('utilisateur_liste_total as kept').where('kept.cle', '=', key)
  const latest = LATEST_ENTRY
  // A kept total, brought up to date with the entries written since (D1 binds at most 100 values a
  // statement: the two cases are two statements).
  const catchUp = db
    .updateTable('utilisateur_liste_total as kept')
    .set({
      total: sql<number>`kept.total + (${count('log', sql.ref<number>('kept.jusqua'))})`,
      jusqua: latest,
    })
    .where('kept.cle', '=', key)
    .where(sql<SqlBool>`kept.jusqua < ${latest}`)
    .where(allowed)
  const firstCount = db
    .insertInto('utilisateur_liste_total')
    .columns(['cle', 'jour', 'total', 'jusqua'])
    .expression(
      db
        .selectNoFrom([
          sql.val(key).as('cle'),
          sql.val(viewer.today).as('jour'),
          sql<number>`case when ${small} then (${count('users')}) else (${count('set')}) end`.as('total'),
          latest.as('jusqua'),
        ])
        .where(({ and, not, exists }) => and([not(exists(kept.select('kept.cle'))), allowed])),
    )
  return { fromUsers: pageOf('users'), fromLog: pageOf('log'), catchUp, firstCount, counted: kept.select('kept.total') }
}

/**
 * GET rest/bd/logs/ (spec §7): the entries of the users in the caller's scope, newest first, filtered,
 * searched and paged in SQL. As for the user list, the page is read by whichever of two statements
 * suits the scope (`fewUsersInScope`, evaluated once, gives the other a limit of 0), and so is the total,
 * all with the caller's check in one round trip.
 */
export async function listLogs(
  ctx: Ctx,
  caller: Caller,
  query: LogListQuery,
): Promise<{ items: LogEntry[]; total: number; archived: { first: string; last: string } | null }> {
  const db = ctx.db
  // The whole list counts itself: only a page's total is kept.
  const keepsTotal = query.page === undefined ? sql<SqlBool>`0` : liveAdmin(ctx, caller)
  const {
    fromUsers,
    fromLog,
    counted: [counted],
    archived: [archived],
  } = await adminWith(ctx, caller, {
    ...logListStatements(db, viewerOf(caller), query, keepsTotal),
    // The archived months of the range (the listing of the archive's files: a few index reads).
    archived: filesInRange(db, rangeInstants(query)).select([
      sql<string | null>`min(f.mois)`.as('first'),
      sql<string | null>`max(f.mois)`.as('last'),
    ]),
  })
  const months = archived?.first && archived.last ? { first: archived.first, last: archived.last } : null
  const rows = [...fromUsers, ...fromLog] as LogRow[]
  if (query.page === undefined) return { items: wholeList(rows).map(toLogEntry), total: rows.length, archived: months }
  return { items: rows.map(toLogEntry), total: counted?.total ?? 0, archived: months }
}
