import { type Selectable, type SqlBool, sql } from 'kysely'
import { nowIso, todayIso } from '../../contract/dates'
import type { LogEntry, LogSearchInput } from '../../contract/history/logs'
import {
  type LogSearch,
  SEARCH_FILES_PER_STEP,
  SEARCH_KEPT_HOURS,
  SEARCH_KEPT_ROWS,
  SEARCH_KEPT_ROWS_PER_AUTHOR,
  SEARCH_MAX_ROWS,
  SEARCH_RETRY_SECONDS,
  SEARCH_RUNNING_MAX,
  SEARCH_STEP_ROWS,
  type SearchMessage,
  type SearchState,
} from '../../contract/history/search'
import type { LogType } from '../../contract/log-labels'
import { type DB, insertWhen, namedBatch } from '../../db/client'
import type { HistoriqueRechercheTable } from '../../db/schema'
import { randomToken } from '../../lib/crypto'
import { BusinessError, notFound } from '../../lib/errors'
import { pageWindow } from '../../lib/query'
import { scopeStructureIds, type Viewer, wholeTreeInScope } from '../../lib/scope'
import { foldSearchText, searchWords } from '../../lib/search-text'
import type { Ctx } from '../../lib/types'
import { adminWith, type Caller, viewerOf } from '../core/actor'
import { logEntry } from '../core/audit'
import { enqueue, jobsConfigured } from '../core/jobs'
import { type ArchivedEntry, fileSha256, searchArchiveFile } from './archive-file'
import { filesInRange, rangeInstants } from './archive-listing'
import { wordCodes } from './logs'

/**
 * A search of the archived months (issue 64): the history's filters over the archive's files in R2, in the background.
 * `POST rest/bd/logs/recherches` counts the files of the range and queues the first step; each step (a message of the
 * jobs queue) reads the next SEARCH_FILES_PER_STEP files, newest first, checks each against its checksum, keeps the
 * entries that match and that the author's scope reaches (the structure's path each entry keeps, against the scope
 * read again at each step), and moves the search's cursor — both in one batch, on the condition that the cursor is
 * still where the step found it: a step delivered twice writes once. The result is kept SEARCH_KEPT_HOURS hours.
 */

type SearchRow = Selectable<HistoriqueRechercheTable>

/** Whether a search is the viewer's own (a user's, or a service account's: its id is the viewer's negated). */
const authoredBy = (viewer: Viewer) =>
  viewer.service ? sql<SqlBool>`r.compte_service_id = ${-viewer.id}` : sql<SqlBool>`r.utilisateur_id = ${viewer.id}`

const searchOf = (row: SearchRow): LogSearch => ({
  id: row.id,
  etat: row.etat,
  filtres: JSON.parse(row.filtres) as LogSearchInput,
  fichiers: row.fichiers,
  fichiersLus: row.fichiers_lus,
  entrees: row.entrees,
  moisDebut: row.mois_debut,
  moisFin: row.mois_fin,
  erreur: row.erreur,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
})

/** The filters as the history's entry says them. */
const described = (filters: LogSearchInput) =>
  Object.entries(filters)
    .filter(([, value]) => value !== undefined && value !== '')
    .map(([name, value]) => `${name}=${value}`)
    .join(' ')

/**
 * POST rest/bd/logs/recherches: a search of the archived months of the range, started (its first step queued) or, with
 * no archived file in the range, done at once. At most SEARCH_RUNNING_MAX of the author's run at once, their kept
 * searches hold at most SEARCH_KEPT_ROWS_PER_AUTHOR entries and everyone's SEARCH_KEPT_ROWS (checked in the
 * insert: 429); its history entry is written with it.
 */
export async function startSearch(ctx: Ctx, caller: Caller, filters: LogSearchInput, now = new Date()) {
  jobsConfigured(ctx)
  const db = ctx.db
  const viewer = viewerOf(caller)
  const range = rangeInstants(filters)
  const { actor, files } = await adminWith(ctx, caller, {
    files: filesInRange(db, range).select([
      sql<number>`count(*)`.as('n'),
      sql<string | null>`min(f.mois)`.as('first'),
      sql<string | null>`max(f.mois)`.as('last'),
    ]),
  })
  const found = files[0]
  const id = randomToken(18)
  const fichiers = Number(found?.n ?? 0)
  // The author's kept searches: those running, and the entries all of them hold; and every author's.
  const kept = db
    .selectFrom('historique_recherche as r')
    .select([
      sql<number>`coalesce(sum(r.etat = 'EN_COURS'), 0)`.as('running'),
      sql<number>`coalesce(sum(r.entrees), 0)`.as('rows'),
    ])
    .where(authoredBy(viewer))
    .where('r.expires_at', '>', nowIso(now))
  const everyone = db
    .selectFrom('historique_recherche as all_kept')
    .select(sql<number>`coalesce(sum(all_kept.entrees), 0)`.as('rows'))
    .where('all_kept.expires_at', '>', nowIso(now))
  const room = sql<SqlBool>`(select running from (${kept})) < ${SEARCH_RUNNING_MAX}
    and (select rows from (${kept})) < ${SEARCH_KEPT_ROWS_PER_AUTHOR} and (${everyone}) < ${SEARCH_KEPT_ROWS}`
  const row = {
    id,
    utilisateur_id: viewer.service ? null : viewer.id,
    compte_service_id: viewer.service ? -viewer.id : null,
    domaine: viewer.domain,
    filtres: JSON.stringify(filters),
    date_min: range.from,
    date_max: range.to,
    mois_debut: found?.first ?? null,
    mois_fin: found?.last ?? null,
    fichiers,
    etat: fichiers === 0 ? ('TERMINEE' as const) : ('EN_COURS' as const),
    created_at: nowIso(now),
    expires_at: nowIso(new Date(now.getTime() + SEARCH_KEPT_HOURS * 3_600_000)),
  }
  const started = await namedBatch(ctx.d1, {
    search: insertWhen(db, 'historique_recherche', row, db.selectNoFrom(sql<number>`1`.as('one')).where(room)),
    audit: insertWhen(
      db,
      'log',
      logEntry(actor.id, 'ADMINISTRATION', 'HISTORIQUE_RECHERCHE', ctx.request.userAgent, {
        commentaire: described(filters) || null,
      }),
      db.selectFrom('historique_recherche').select('id').where('id', '=', id),
    ),
  })
  if ((started.search?.meta.changes ?? 0) === 0) {
    throw new BusinessError(
      'TOO_MANY_ATTEMPTS',
      429,
      `${SEARCH_RUNNING_MAX} searches of the archive are running already, or those kept hold too many entries: wait for one to end, or for a result to be removed (${SEARCH_KEPT_HOURS} h)`,
      [SEARCH_RETRY_SECONDS],
    )
  }
  if (fichiers > 0) {
    try {
      await enqueue(ctx, { kind: 'history-search', rechercheId: id })
    } catch (error) {
      // Not queued: the search says so rather than hold a place for a day.
      await failSearch(ctx, id, 'the search could not be queued')
      throw error
    }
  }
  return searchOf({ ...row, fichiers_lus: 0, curseur: null, entrees: 0, erreur: null })
}

/** The viewer's search, while it is kept (404 for another's, or once removed). */
export const ownSearch = (db: DB, viewer: Viewer, id: string, now: Date) =>
  db
    .selectFrom('historique_recherche as r')
    .selectAll('r')
    .where('r.id', '=', id)
    .where(authoredBy(viewer))
    .where('r.expires_at', '>', nowIso(now))

/** GET rest/bd/logs/recherches/{id}: where the search stands. */
export async function readSearch(ctx: Ctx, caller: Caller, id: string, now = new Date()): Promise<LogSearch> {
  const { search } = await adminWith(ctx, caller, { search: ownSearch(ctx.db, viewerOf(caller), id, now) })
  const row = search[0] as SearchRow | undefined
  if (!row) throw notFound('No such search of the archive, or it is no longer kept')
  return searchOf(row)
}

/** The entries a search found that the viewer's scope reaches today, newest first. */
export const foundEntries = (db: DB, viewer: Viewer, id: string) =>
  db
    .selectFrom('historique_recherche_entree as e')
    .select(['e.id', 'e.date', 'e.entree'])
    .where('e.recherche_id', '=', id)
    .where(
      sql<SqlBool>`(e.structure_id in ${scopeStructureIds(db, viewer)}
        or (e.structure_id is null and ${wholeTreeInScope(db, viewer)}))`,
    )
    .orderBy('e.date', 'desc')
    .orderBy('e.id', 'desc')

/** GET rest/bd/logs/recherches/{id}/entrees: a page of what the search found so far, newest first. */
export async function searchEntries(
  ctx: Ctx,
  caller: Caller,
  id: string,
  query: { page?: number | undefined; taille?: number | undefined },
  now = new Date(),
) {
  const db = ctx.db
  const { size, offset } = pageWindow({ page: query.page ?? 1, taille: query.taille })
  const { search, page, visible } = await adminWith(ctx, caller, {
    search: ownSearch(db, viewerOf(caller), id, now),
    // What the viewer's scope of the day reaches of it (a scope shrunk since reads less).
    visible: db.selectFrom(foundEntries(db, viewerOf(caller), id).as('v')).select(sql<number>`count(*)`.as('n')),
    // The page, only of the viewer's own search (the same condition, in its statement).
    page: foundEntries(db, viewerOf(caller), id)
      .where(({ exists }) => exists(ownSearch(db, viewerOf(caller), id, now).select('r.id')))
      .limit(size)
      .offset(offset),
  })
  const row = search[0] as SearchRow | undefined
  if (!row) throw notFound('No such search of the archive, or it is no longer kept')
  return {
    search: searchOf(row),
    items: page.map((entry) => JSON.parse(entry.entree) as LogEntry),
    total: Number(visible[0]?.n ?? 0),
  }
}

/** What an archived entry must hold to match the filters and the author's scope. */
export type ArchiveMatcher = {
  /** What the Parquet reader checks itself, skipping row groups by their statistics and bloom filter. */
  pushed: Record<string, Record<string, string | number>>
  /** The rest, checked on each entry the reader returns. */
  matches: (entry: ArchivedEntry) => boolean
}

/**
 * The scope an archived entry is checked against, read with the step: the structures of the viewer's scope today (an
 * entry keeps the structure of its author's post on its day), and whether it is the whole tree's (which also reads the
 * entries of no structure: a service account's without one, a user without a post that day).
 */
export type ArchiveScope = { whole: boolean; structures: Set<number> }

/** The statements that read an `ArchiveScope` (`archiveScopeOf` makes it of their rows). */
export const archiveScopeReads = (db: DB, viewer: Viewer) => ({
  scopeWhole: db.selectNoFrom(sql<number>`${wholeTreeInScope(db, viewer)}`.as('whole')),
  scopeStructures: scopeStructureIds(db, viewer),
})

export const archiveScopeOf = (
  whole: readonly { whole: number }[] | undefined,
  structures: readonly { id: number }[] | undefined,
): ArchiveScope => ({
  whole: whole?.[0]?.whole === 1,
  structures: new Set((structures ?? []).map((row) => row.id)),
})

/** The archive's matcher of `filters` in `scope`. */
export function archiveMatcher(filters: LogSearchInput, scope: ArchiveScope): ArchiveMatcher {
  const range = rangeInstants(filters)
  const pushed: ArchiveMatcher['pushed'] = {}
  if (range.from || range.to) {
    pushed.date = { ...(range.from ? { $gte: range.from } : {}), ...(range.to ? { $lt: range.to } : {}) }
  }
  if (filters.type) pushed.type_log = { $eq: filters.type }
  if (filters.utilisateur !== undefined) pushed.utilisateur_id = { $eq: filters.utilisateur }
  const words = searchWords(filters.q ?? '').map((word) => ({ word, codes: wordCodes(word) }))
  const inScope = (entry: ArchivedEntry) =>
    scope.whole || (entry.structure_id !== null && scope.structures.has(entry.structure_id))
  return {
    pushed,
    matches: (entry) => {
      if (!inScope(entry)) return false
      if (words.length === 0) return true
      // As the database's search: the author's names folded (their `recherche`), their mail, the service account's
      // name when no user acted, the comment — those three in ASCII lower case only, as SQLite's LIKE compares them.
      const asciiLower = (text: string | null) => (text ?? '').replace(/[A-Z]/g, (c) => c.toLowerCase())
      const text = [
        foldSearchText(`${entry.utilisateur_nom ?? ''} ${entry.utilisateur_prenom ?? ''}`),
        asciiLower(entry.utilisateur_mail),
        entry.utilisateur_id === null ? asciiLower(entry.compte_service_nom) : '',
        asciiLower(entry.commentaire),
      ].join('\n')
      return words.every(({ word, codes }) => {
        if (text.includes(word)) return true
        if (codes.types.includes(entry.type_log)) return true
        if (entry.type_log === 'ADMINISTRATION' && codes.actions.includes(entry.nom_log)) return true
        if (codes.named.some(([type, names]) => entry.type_log === type && names.includes(entry.nom_log))) return true
        return codes.day !== null && entry.date >= codes.day[0] && entry.date < codes.day[1]
      })
    },
  }
}

/** An archived entry as the history lists it: its author and structure as they were when it was archived. */
export function archivedLogEntry(entry: ArchivedEntry): LogEntry {
  return {
    id: entry.id,
    date: entry.date,
    user:
      entry.utilisateur_id === null
        ? null
        : {
            id: entry.utilisateur_id,
            nom: entry.utilisateur_nom ?? '',
            prenom: entry.utilisateur_prenom ?? '',
            mail: entry.utilisateur_mail ?? '',
          },
    compteService:
      entry.compte_service_id === null ? null : { id: entry.compte_service_id, nom: entry.compte_service_nom ?? '' },
    structure: entry.structure_id === null ? null : { id: entry.structure_id, nom: entry.structure_nom ?? '' },
    typeLog: entry.type_log as LogType,
    nomLog: entry.nom_log,
    commentaire: entry.commentaire,
    nomNavigateur: entry.nom_navigateur,
    versionNavigateur: entry.version_navigateur,
    source: entry.source === 'CLIENT' ? 'CLIENT' : 'SERVEUR',
  }
}

/** A listed file of the archive as read. */
type ListedFile = { fichier: string; sha256: string }

/**
 * The entries of one listed file that `matcher` keeps, newest first; the file checked against its checksum first
 * (`null`: missing from R2 or altered, the search fails on it rather than answer without it).
 */
export async function matchingInFile(bucket: R2Bucket, file: ListedFile, matcher: ArchiveMatcher) {
  const object = await bucket.get(file.fichier)
  if (!object) return null
  const bytes = await object.arrayBuffer()
  if ((await fileSha256(bytes)) !== file.sha256) return null
  const entries = await searchArchiveFile(bytes, matcher.pushed)
  return entries
    .filter(matcher.matches)
    .sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : b.id - a.id))
    .map(archivedLogEntry)
}

/** Entries written per statement (one bound JSON array: D1 binds at most 100 values a statement). */
const INSERT_CHUNK = 500

/** The author of a search as a viewer, today: their scope is read again at each step. */
const authorOf = (row: SearchRow): Viewer => ({
  id: row.utilisateur_id ?? -(row.compte_service_id ?? 0),
  domain: row.domaine,
  today: todayIso(),
  service: row.utilisateur_id === null,
})

/** One step of a search: the next files read, what they hold kept, the cursor moved (once, however often delivered). */
export async function searchStep(ctx: Ctx, message: SearchMessage, now = new Date()): Promise<SearchState | null> {
  const db = ctx.db
  const id = message.rechercheId
  const search = db
    .selectFrom('historique_recherche as r')
    .selectAll('r')
    .where('r.id', '=', id)
    .where('r.etat', '=', 'EN_COURS')
    .where('r.expires_at', '>', nowIso(now))
  const read = await namedBatch(ctx.d1, { search })
  const row = read.search?.results[0] as SearchRow | undefined
  if (!row) return null
  const bucket = ctx.env.ARCHIVE
  if (!bucket) throw new Error('The history archive has no bucket (ARCHIVE)')
  const author = authorOf(row)
  const next = await namedBatch(ctx.d1, {
    ...archiveScopeReads(db, author),
    files: filesInRange(db, { from: row.date_min, to: row.date_max })
      .select(['f.fichier', 'f.sha256'])
      .$if(row.curseur !== null, (q) => q.where('f.fichier', '<', row.curseur as string))
      .orderBy('f.fichier', 'desc')
      .limit(SEARCH_FILES_PER_STEP + 1),
  })
  const scope = archiveScopeOf(
    next.scopeWhole?.results as { whole: number }[] | undefined,
    next.scopeStructures?.results as { id: number }[] | undefined,
  )
  const listed = (next.files?.results ?? []) as ListedFile[]
  const matcher = archiveMatcher(JSON.parse(row.filtres) as LogSearchInput, scope)
  const room = Math.max(0, SEARCH_MAX_ROWS - row.entrees)
  const found: LogEntry[] = []
  const readFiles: ListedFile[] = []
  let failed: string | null = null
  // No scope left (the author no longer an administrator): nothing is read, nothing found. The files are read until
  // the step holds SEARCH_STEP_ROWS entries (or the search's room), then the next step goes on after the last read.
  for (const file of scope.whole || scope.structures.size > 0 ? listed.slice(0, SEARCH_FILES_PER_STEP) : []) {
    const entries = await matchingInFile(bucket, file, matcher)
    if (entries === null) {
      failed = `missing or altered (checksum): ${file.fichier}`
      break
    }
    readFiles.push(file)
    found.push(...entries)
    if (found.length >= Math.min(room + 1, SEARCH_STEP_ROWS)) break
  }
  const kept = found.slice(0, room)
  const truncated = found.length > room
  const left = scope.whole || scope.structures.size > 0 ? listed.length - readFiles.length : 0
  const etat: SearchState = failed ? 'ECHEC' : truncated ? 'TRONQUEE' : left === 0 ? 'TERMINEE' : 'EN_COURS'
  // Where the step found the search: a second delivery of the step, the cursor moved, writes nothing.
  const unmoved = db
    .selectFrom('historique_recherche as r')
    .select('r.id')
    .where('r.id', '=', id)
    .where('r.etat', '=', 'EN_COURS')
    .where(row.curseur === null ? sql<SqlBool>`r.curseur is null` : sql<SqlBool>`r.curseur = ${row.curseur}`)
  const inserts = []
  for (let start = 0; start < kept.length; start += INSERT_CHUNK) {
    const chunk = kept.slice(start, start + INSERT_CHUNK)
    inserts.push(
      db
        .insertInto('historique_recherche_entree')
        .orIgnore()
        .columns(['recherche_id', 'id', 'date', 'entree', 'structure_id'])
        .expression(
          db
            .selectFrom(sql<{ value: string }>`json_each(${JSON.stringify(chunk)})`.as('found'))
            .select([
              sql.val(id).as('recherche_id'),
              sql<number>`json_extract(found.value, '$.id')`.as('id'),
              sql<string>`json_extract(found.value, '$.date')`.as('date'),
              sql<string>`json(found.value)`.as('entree'),
              sql<number | null>`json_extract(found.value, '$.structure.id')`.as('structure_id'),
            ])
            .where(({ exists }) => exists(unmoved)),
        ),
    )
  }
  const written = await namedBatch(ctx.d1, {
    entries: inserts,
    moved: db
      .updateTable('historique_recherche')
      .set({
        fichiers_lus: sql<number>`fichiers_lus + ${readFiles.length}`,
        curseur: readFiles.at(-1)?.fichier ?? row.curseur,
        entrees: sql<number>`(select count(*) from historique_recherche_entree where recherche_id = ${id})`,
        etat,
        erreur: failed,
      })
      .where('id', 'in', unmoved),
  })
  // Only the delivery that moved the cursor queues the next step: a step delivered twice does not double the rest.
  if (etat === 'EN_COURS' && (written.moved?.meta.changes ?? 0) > 0) {
    await enqueue(ctx, { kind: 'history-search', rechercheId: id })
  }
  return etat
}

/** The deliveries of a step before its search says it failed (the archive unreadable meanwhile). */
export const SEARCH_ATTEMPTS = 5

/** A search that cannot go on: said failed, with why (`erreur`). */
export async function failSearch(ctx: Ctx, id: string, why: string) {
  await ctx.db
    .updateTable('historique_recherche')
    .set({ etat: 'ECHEC', erreur: why })
    .where('id', '=', id)
    .where('etat', '=', 'EN_COURS')
    .execute()
}

/** Searches' entries removed per statement by the hourly cron. */
const PURGE_ROWS = 5_000

/** Lots a run of the hourly cron removes at most (a 100 000 entries' search in one run). */
const PURGE_LOTS = 25

/** The hourly cron's part: the searches no longer kept, their entries first (a lot at a time), then themselves. */
export async function purgeSearches(ctx: Ctx, now = new Date()) {
  const removed = { entries: 0, searches: 0 }
  for (let lot = 0; lot < PURGE_LOTS; lot++) {
    const done = await purgeLot(ctx, now)
    removed.entries += done.entries
    removed.searches += done.searches
    if (done.entries === 0 && done.searches === 0) break
  }
  return removed
}

async function purgeLot(ctx: Ctx, now: Date) {
  const db = ctx.db
  const expired = db.selectFrom('historique_recherche').select('id').where('expires_at', '<=', nowIso(now))
  const oldest = db
    .selectFrom('historique_recherche as gone')
    .select('gone.id')
    .where('gone.expires_at', '<=', nowIso(now))
    .orderBy('gone.expires_at')
    .limit(1)
  const done = await namedBatch(ctx.d1, {
    // A lot of one expired search's entries (its key's range of the primary key).
    entries: db
      .deleteFrom('historique_recherche_entree')
      .where('recherche_id', '=', oldest)
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('historique_recherche_entree as e')
          .select('e.id')
          .where('e.recherche_id', '=', oldest)
          .limit(PURGE_ROWS),
      ),
    searches: db
      .deleteFrom('historique_recherche')
      .where('id', 'in', expired)
      .where(({ not, exists }) =>
        not(
          exists(
            db
              .selectFrom('historique_recherche_entree as left_over')
              .select('left_over.id')
              .where(sql<SqlBool>`left_over.recherche_id = historique_recherche.id`),
          ),
        ),
      ),
  })
  return { entries: done.entries?.meta.changes ?? 0, searches: done.searches?.meta.changes ?? 0 }
}
