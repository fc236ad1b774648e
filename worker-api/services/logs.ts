import { type Expression, type SqlBool, sql } from 'kysely'
import { DEFAULT_PAGE_SIZE } from '../contract/base'
import { dayStartInstant, fromCompactDate, fromWireDate, nextDay, organisationDateTime } from '../contract/dates'
import type { Language } from '../contract/language'
import type { LogType } from '../contract/log-labels'
import {
  CLIENT_LOG_TYPES,
  type ClientLogInput,
  LOG_LABELS,
  type LogEntry,
  type LogListQuery,
  logLabel,
} from '../contract/logs'
import { batch, type DB, getDb, insertWhen, namedBatch } from '../db/client'
import type { Env } from '../env'
import { invalidField } from '../lib/errors'
import { logTypeForName } from '../lib/log-types'
import { containsText, WHOLE_LIST_READ, wholeList } from '../lib/query'
import {
  fewUsersInScope,
  scopeUserIds,
  smallScope,
  userListedInScope,
  type Viewer,
  wholeTreeInScope,
} from '../lib/scope'
import { foldSearchText, searchWords } from '../lib/search-text'
import { actorWith, adminOf, adminWith, type Caller, liveAdmin, viewerOf } from './actor'
import { logEntry } from './audit'
import { userCounter } from './rate-limit'

/** Entries a user may post a minute (POST logs/), unless `CLIENT_LOG_RATE_PER_MINUTE` says otherwise. */
export const CLIENT_LOGS_PER_MINUTE = 60

/**
 * spec §7 POST logs/: an action of the caller as a client reports it. `nomLog` must be a log type a
 * client may report or the name of an application of the catalogue (its type by spec §9); the entry
 * is the caller's, and marked as the client's (`source`), so that it never passes for one the server
 * recorded with the action.
 */
export async function writeClientLog(env: Env, caller: Caller, input: ClientLogInput, userAgent: string | null) {
  const db = getDb(env.DB)
  const isType = (CLIENT_LOG_TYPES as readonly string[]).includes(input.nomLog)
  const [actor, applications] = await actorWith(
    env,
    caller,
    // An application switched off in the catalogue is launched no more: nothing to report of it.
    db.selectFrom('application').select('id').where('libelle', '=', input.nomLog).where('actif', '=', 1),
  )
  if (!isType && applications.length === 0) {
    throw invalidField('nomLog', 'nomLog is neither a log type nor an application', 'validation.nomLog')
  }
  // Each entry is a row kept for good: a client cannot fill the table at will. The entry is written
  // in the batch that counts it, only when the count is within the limit.
  const counter = userCounter('client-log', actor.id, Number(env.CLIENT_LOG_RATE_PER_MINUTE ?? CLIENT_LOGS_PER_MINUTE))
  const written = await namedBatch(env.DB, {
    count: counter.statement(),
    entry: insertWhen(
      db,
      'log',
      { ...logEntry(actor.id, logTypeForName(input.nomLog), input.nomLog, userAgent, input), source: 'CLIENT' },
      db.selectNoFrom(sql.lit(1).as('within')).where(sql.raw<SqlBool>(counter.within)),
    ).returning('id'),
  })
  counter.check(written.count?.results[0])
  const [entry] = written.entry?.results ?? []
  if (!entry) throw new Error('The entry was not written')
  return { id: entry.id }
}

/** The history's filters (a list query without its page). */
type LogFilters = Pick<LogListQuery, 'dateDebut' | 'dateFin' | 'q' | 'type'>

const foldedLabels = (pick: (labels: (typeof LOG_LABELS)['fr']) => Record<string, string>) =>
  Object.values(LOG_LABELS).flatMap((labels) =>
    Object.entries(pick(labels)).map(([code, label]) => ({ code, folded: foldSearchText(label.toLowerCase()) })),
  )
const TYPE_LABELS = foldedLabels((labels) => labels.types)
const ACTION_LABELS = foldedLabels((labels) => labels.actions)

const matchingCodes = (labels: { code: string; folded: string }[], word: string) => [
  ...new Set(labels.filter((label) => label.folded.includes(word)).map((label) => label.code)),
]

/**
 * Whether an entry matches one word of the search (spec §2 logs screen): its user's first or last
 * name or mail, its comment, its action label in either language (found here among the labels, then asked of the
 * entry's type or administrative action), or its day when the word is one ('dd/MM/yyyy').
 */
function matchesWord(db: DB, word: string): Expression<SqlBool> {
  const author = db
    .selectFrom('utilisateur as found')
    .select(sql<string>`found.recherche || char(10) || found.mail`.as('searched'))
    .where(sql<SqlBool>`found.id = log.utilisateur_id`)
  const alternatives: Expression<SqlBool>[] = [
    // One pattern for the user's names and mail and the entry's comment ("who deleted X?" finds the
    // entry naming X): D1 binds at most 100 values a statement.
    containsText([sql<string>`coalesce((${author}), '')`, sql<string>`coalesce(log.commentaire, '')`], word),
  ]
  const types = matchingCodes(TYPE_LABELS, word)
  if (types.length > 0)
    alternatives.push(sql<SqlBool>`log.type_log in (${sql.join(types.map((type) => sql.lit(type)))})`)
  const actions = matchingCodes(ACTION_LABELS, word)
  if (actions.length > 0) {
    alternatives.push(
      sql<SqlBool>`(log.type_log = 'ADMINISTRATION' and log.nom_log in (${sql.join(actions.map((action) => sql.lit(action)))}))`,
    )
  }
  const day = fromWireDate(word.replace(/^(\d)\//, '0$1/').replace(/\/(\d)\//, '/0$1/'))
  // Instants computed here, written as literals: D1 binds at most 100 values a statement.
  if (day) {
    alternatives.push(
      sql<SqlBool>`(log.date >= ${sql.lit(dayStartInstant(day))} and log.date < ${sql.lit(dayStartInstant(nextDay(day)))})`,
    )
  }
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
  const date = after ? sql<string>`+log.date` : sql<string>`log.date`
  return db
    .selectFrom('log')
    .$if(after !== undefined, (q) => q.where(sql<SqlBool>`log.id > ${after}`))
    .$if(filters.dateDebut !== undefined, (q) =>
      q.where(sql<SqlBool>`${date} >= ${sql.lit(dayStartInstant(fromCompactDate(filters.dateDebut as string)))}`),
    )
    .$if(filters.dateFin !== undefined, (q) =>
      q.where(sql<SqlBool>`${date} < ${sql.lit(dayStartInstant(nextDay(fromCompactDate(filters.dateFin as string))))}`),
    )
    .$if(filters.type !== undefined, (q) => q.where('log.type_log', '=', filters.type as LogType))
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
 * Whether an entry's user lies in the viewer's scope (DESIGN §4; an entry whose user was deleted is
 * the whole tree's), written for each way of reading: `users` probes the log's user index for each
 * user of the scope (a small scope), `log` asks each entry of the date range about its user (a large
 * one, read newest first: a page stops after a few), and `set` probes the scope's users gathered once
 * (a large scope counted: a month of the root's entries in a few tens of milliseconds).
 */
export function authorInScope(db: DB, viewer: Viewer, way: 'users' | 'log' | 'set'): Expression<SqlBool> {
  const gone = sql<SqlBool>`(log.utilisateur_id is null and ${wholeTreeInScope(db, viewer)})`
  if (way === 'users') return sql<SqlBool>`(log.utilisateur_id in ${scopeUserIds(db, viewer)} or ${gone})`
  if (way === 'set') return sql<SqlBool>`(+log.utilisateur_id in ${scopeUserIds(db, viewer)} or ${gone})`
  return sql<SqlBool>`(exists ${db
    .selectFrom('utilisateur as author')
    .select('author.id')
    .where(sql<SqlBool>`author.id = log.utilisateur_id`)
    .where(userListedInScope(db, viewer, { from: 'users', withPostless: true }, 'author'))} or ${gone})`
}

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
function logRows(
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
    .select([
      'log.id',
      'log.date',
      'log.type_log',
      'log.nom_log',
      'log.commentaire',
      'log.nom_navigateur',
      'log.version_navigateur',
      'log.source',
      'log.utilisateur_id',
      'u.nom',
      'u.prenom',
      'u.mail',
    ])
    .select(structureColumn(db, viewer.today))
    .orderBy('log.date', 'desc')
    .orderBy('log.id', 'desc')
}

/** The ids of the entries in scope, newest first. */
const pageIds = (db: DB, viewer: Viewer, filters: LogFilters, way: 'users' | 'log') =>
  filteredLogs(db, filters)
    .where(authorInScope(db, viewer, way))
    .select('log.id')
    .orderBy('log.date', 'desc')
    .orderBy('log.id', 'desc')

type LogRow = {
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
  structure: string | null
}

function toLogEntry(row: LogRow): LogEntry {
  return {
    id: row.id,
    date: row.date,
    user:
      row.utilisateur_id === null
        ? null
        : { id: row.utilisateur_id, nom: row.nom ?? '', prenom: row.prenom ?? '', mail: row.mail ?? '' },
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
  ])

/**
 * The statements of a list read: its page read either way round (a scope of few users from their
 * entries, user by user; one of many down the date index, newest first, where a page stops after a few
 * tens of entries — a site of a handful of posts sees every postless user of its domain, thousands in
 * the large seed: 22 ms a page user by user, 1 ms down the index), then its total kept up to date and
 * read.
 *
 * The total: a kept one plus the entries written since it was counted, else a full count — the scope's
 * users gathered once and probed down the range (a small scope: each user's entries counted) — written
 * back only when it changed, so that reading a list again costs a few index lookups, not a count.
 * Both writes wait for `allowed` (the caller answerable): a refused read keeps nothing.
 */
export function logListStatements(db: DB, viewer: Viewer, query: LogListQuery, allowed: Expression<SqlBool>) {
  const fewUsers = fewUsersInScope(db, viewer)
  // The first count, over the whole range, by the scope's posts (D1's 100 bound values: the count of
  // its users would not fit beside the search).
  const small = smallScope(db, viewer)
  const size = query.page === undefined ? WHOLE_LIST_READ : (query.taille ?? DEFAULT_PAGE_SIZE)
  const pageOf = (way: 'users' | 'log') =>
    logRows(db, viewer, query, way, (ids) =>
      ids
        .limit(sql<number>`case when ${way === 'users' ? fewUsers : sql`not ${fewUsers}`} then ${size} else 0 end`)
        .offset(((query.page ?? 1) - 1) * Math.max(size, 0)),
    )
  const count = (way: 'users' | 'set' | 'log', after?: Expression<number>) =>
    filteredLogs(db, query, after)
      .where(authorInScope(db, viewer, way))
      .select((eb) => eb.fn.countAll<number>().as('n'))
  const key = totalKey(viewer, query)
  const kept = db.selectFrom('utilisateur_liste_total as kept').where('kept.cle', '=', key)
  const latest = sql<number>`coalesce((select max(id) from log), 0)`
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
  return [pageOf('users'), pageOf('log'), catchUp, firstCount, kept.select('kept.total')] as const
}

/**
 * GET rest/bd/logs/ (spec §7): the entries of the users in the caller's scope, newest first, filtered,
 * searched and paged in SQL. As for the user list, the page is read by whichever of two statements
 * suits the scope (`fewUsersInScope`, evaluated once, gives the other a limit of 0), and so is the total,
 * all with the caller's check in one round trip.
 */
export async function listLogs(
  env: Env,
  caller: Caller,
  query: LogListQuery,
): Promise<{ items: LogEntry[]; total: number }> {
  const db = getDb(env.DB)
  // The whole list counts itself: only a page's total is kept.
  const keepsTotal = query.page === undefined ? sql<SqlBool>`0` : liveAdmin(env, caller)
  const [, fromUsers, fromLog, , , [counted]] = await adminWith(
    env,
    caller,
    ...logListStatements(db, viewerOf(caller), query, keepsTotal),
  )
  const rows = [...fromUsers, ...fromLog] as LogRow[]
  if (query.page === undefined) return { items: wholeList(rows).map(toLogEntry), total: rows.length }
  return { items: rows.map(toLogEntry), total: counted?.total ?? 0 }
}

/** The entries an export reads per statement: a few hundred kilobytes of CSV. */
const EXPORT_CHUNK = 500

/**
 * What a spreadsheet may read as the start of a formula (OWASP ASVS 5.0 1.2.10): `= + - @`, their
 * full-width and small forms, and any blank or control character before them, which spreadsheets
 * skip — so a cell starting with a blank or a control character is neutralised as well.
 */
const FORMULA_START = /^[\p{Cc}\p{Z}\s=+\-@\uFF1D\uFF0B\uFF0D\uFF20\uFE66\uFE62\uFE63\uFE6B]/u

/** A CSV cell: quoted when needed, and never read as a formula by a spreadsheet (CSV injection). */
function cell(value: string | null | undefined): string {
  let text = value ?? ''
  if (FORMULA_START.test(text)) text = `'${text}`
  return /[",;\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

const EXPORT_HEADERS: Record<Language, string[]> = {
  fr: [
    'Date',
    'Heure',
    'Nom',
    'Prénom',
    'Mail',
    'Structure',
    'Action',
    'Code',
    'Commentaire',
    'Navigateur',
    'Version',
    'Source',
  ],
  en: [
    'Date',
    'Time',
    'Last name',
    'First name',
    'Mail',
    'Structure',
    'Action',
    'Code',
    'Comment',
    'Browser',
    'Version',
    'Source',
  ],
}

/** Spreadsheets in French read ';' as the separator, in English ','. */
const SEPARATOR: Record<Language, string> = { fr: ';', en: ',' }

function csvLine(language: Language, entry: LogEntry): string {
  const { date, time } = organisationDateTime(entry.date)
  const source = { fr: { SERVEUR: 'Serveur', CLIENT: 'Client' }, en: { SERVEUR: 'Server', CLIENT: 'Client' } }[language]
  return [
    date,
    time,
    entry.user?.nom,
    entry.user?.prenom,
    entry.user?.mail,
    entry.structure?.nom,
    logLabel(language, entry),
    entry.nomLog,
    entry.commentaire,
    entry.nomNavigateur,
    entry.versionNavigateur,
    source[entry.source],
  ]
    .map(cell)
    .join(SEPARATOR[language])
}

/**
 * The export of the history (the list's filters, every page): CSV in UTF-8 with a byte order mark, so
 * that spreadsheets read the accents right, in the caller's language. It is streamed a few hundred
 * entries at a time, each read resuming after the last entry written (date and id, newest first), so
 * a year of entries needs neither the memory for all of them nor a statement that long. The export
 * itself is recorded in the audit, in the batch of its first read.
 */
export async function exportLogs(
  env: Env,
  caller: Caller,
  filters: LogFilters,
  context: { userAgent: string | null; language: Language },
): Promise<ReadableStream<Uint8Array>> {
  const db = getDb(env.DB)
  const actor = await adminOf(env, caller)
  const viewer = viewerOf(actor)
  const chunk = (after: { date: string; id: number } | null) =>
    logRows(db, viewer, filters, 'log', (ids) =>
      ids
        .$if(after !== null, (q) =>
          q.where(sql<SqlBool>`(log.date < ${after?.date} or (log.date = ${after?.date} and log.id < ${after?.id}))`),
        )
        .limit(EXPORT_CHUNK),
    )
  const described = Object.entries(filters)
    .filter(([, value]) => value !== undefined && value !== '')
    .map(([name, value]) => `${name}=${value}`)
    .join(' ')
  const audit = db
    .insertInto('log')
    .values(
      logEntry(actor.id, 'ADMINISTRATION', 'HISTORIQUE_EXPORT', context.userAgent, { commentaire: described || null }),
    )
  const [, firstRead] = await batch(env.DB, [audit, chunk(null)])
  let read: LogRow[] | null = (firstRead?.results ?? []) as LogRow[]
  const encoder = new TextEncoder()
  let after: { date: string; id: number } | null = null
  let started = false
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const rows = read ?? ((await chunk(after).execute()) as LogRow[])
      read = null
      let text = ''
      if (!started) {
        started = true
        text += `\uFEFF${EXPORT_HEADERS[context.language].join(SEPARATOR[context.language])}\r\n`
      }
      for (const row of rows) text += `${csvLine(context.language, toLogEntry(row))}\r\n`
      if (text) controller.enqueue(encoder.encode(text))
      const last = rows.at(-1)
      if (rows.length < EXPORT_CHUNK || !last) controller.close()
      else after = { date: last.date, id: last.id }
    },
  })
}
