import { type SqlBool, sql } from 'kysely'
import { organisationDateTime } from '../../contract/dates'
import { type LogEntry, logLabel } from '../../contract/history/logs'
import type { Language } from '../../contract/language'
import { insertWhen, namedBatch } from '../../db/client'
import { csvLine, csvStream } from '../../lib/csv'
import { notFound } from '../../lib/errors'
import type { Ctx } from '../../lib/types'
import { adminOf, type Caller, viewerOf } from '../core/actor'
import { logEntry } from '../core/audit'
import { filesInRange, rangeInstants } from './archive-listing'
import {
  archiveMatcher,
  archiveScopeOf,
  archiveScopeReads,
  foundEntries,
  matchingInFile,
  ownSearch,
} from './archive-search'
import { atInstant, type LogFilters, type LogRow, logRows, OLDEST_ENTRY_DATE, toLogEntry } from './logs'

/** The entries an export reads per statement: a few hundred kilobytes of CSV. */
const EXPORT_CHUNK = 500
/**
 * The entries after `after` in the history's order (newest first): a chunk resumes where the last ended. D1's entries
 * by their instant (what the index holds), a search's by their date.
 */
const afterEntry = (table: 'log' | 'e', after: { date: string; id: number } | null) => {
  const [key, at] =
    table === 'log' ? [sql.ref('log.instant'), atInstant(after?.date ?? '')] : [sql.ref('e.date'), sql`${after?.date}`]
  return sql<SqlBool>`(${key} < ${at} or (${key} = ${at} and ${sql.ref(`${table}.id`)} < ${after?.id}))`
}

/** The archive's files an export lists per statement (each then read whole from R2, one at a time). */
const EXPORT_FILES = 20

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

/** A file of the archive missing from R2 or not matching its checksum, met while exporting. */
class ArchiveFault extends Error {
  constructor(
    readonly fichier: string,
    readonly why: 'altered' | 'too-many',
  ) {
    super(`History archive export stopped at ${fichier}: ${why}`)
  }
}

/** The archive's files one export reads at most (a year of a 100 000 users' organisation is the search's). */
export const EXPORT_MAX_FILES = 200

/** The export's last line when the archive cannot be read whole: the export is not whole. */
const FAULT: Record<Language, Record<ArchiveFault['why'], (fichier: string) => string>> = {
  fr: {
    altered: (fichier) =>
      `EXPORT INCOMPLET : le fichier ${fichier} de l’archive est manquant ou altéré (somme de contrôle).`,
    'too-many': () =>
      `EXPORT INCOMPLET : cette période compte plus de ${EXPORT_MAX_FILES} fichiers de l’archive ; recherchez-la dans l’archive (Historique, « Rechercher aussi dans l’archive »).`,
  },
  en: {
    altered: (fichier) => `EXPORT INCOMPLETE: the archive's file ${fichier} is missing or altered (checksum).`,
    'too-many': () =>
      `EXPORT INCOMPLETE: this period holds more than ${EXPORT_MAX_FILES} files of the archive; search it in the archive (History, "Search the archive too").`,
  },
}

/** Who acted, when a service account did (the screens say the same). */
const ACCOUNT = { fr: 'Compte de service', en: 'Service account' }

function entryLine(language: Language, entry: LogEntry): string {
  const { date, time } = organisationDateTime(entry.date)
  const source = { fr: { SERVEUR: 'Serveur', CLIENT: 'Client' }, en: { SERVEUR: 'Server', CLIENT: 'Client' } }[language]
  return csvLine(language, [
    date,
    time,
    entry.user?.nom ?? (entry.compteService ? `${ACCOUNT[language]} ${entry.compteService.nom}` : undefined),
    entry.user?.prenom,
    entry.user?.mail,
    entry.structure?.nom,
    logLabel(language, entry),
    entry.nomLog,
    entry.commentaire,
    entry.nomNavigateur,
    entry.versionNavigateur,
    source[entry.source],
  ])
}

/**
 * The history's CSV export, in UTF-8 with a byte order mark so that spreadsheets read the accents right. Streamed a few
 * hundred entries at a time, each read resuming after the last written, so a year needs neither the memory nor one long
 * statement. The export is audited in the batch of its first read.
 */
export async function exportLogs(ctx: Ctx, caller: Caller, filters: LogFilters): Promise<ReadableStream<Uint8Array>> {
  const db = ctx.db
  const actor = await adminOf(ctx, caller)
  const viewer = viewerOf(actor)
  const chunk = (after: { date: string; id: number } | null) =>
    logRows(db, viewer, filters, 'log', (ids) =>
      ids.$if(after !== null, (q) => q.where(afterEntry('log', after))).limit(EXPORT_CHUNK),
    )
  const described = Object.entries(filters)
    .filter(([, value]) => value !== undefined && value !== '')
    .map(([name, value]) => `${name}=${value}`)
    .join(' ')
  const audit = db.insertInto('log').values(
    logEntry(actor.id, 'ADMINISTRATION', 'HISTORIQUE_EXPORT', ctx.request.userAgent, {
      commentaire: described || null,
    }),
  )
  const range = rangeInstants(filters)
  const scopeReads = archiveScopeReads(db, viewer)
  const { firstRead, scopeWhole, scopeStructures, kept } = await namedBatch(ctx.d1, {
    audit,
    firstRead: chunk(null),
    scopeWhole: ctx.env.ARCHIVE ? scopeReads.scopeWhole : null,
    scopeStructures: ctx.env.ARCHIVE ? scopeReads.scopeStructures : null,
    // The oldest entry still in D1: a month being archived is in both for a while, and is written once (from D1).
    kept: db.selectNoFrom(OLDEST_ENTRY_DATE.as('oldest')),
  })
  const language = ctx.request.language
  const lines = (entry: LogEntry) => entryLine(language, entry)
  const scope = archiveScopeOf(
    scopeWhole?.results as { whole: number }[] | undefined,
    scopeStructures?.results as { id: number }[] | undefined,
  )
  const matcher = archiveMatcher(filters, scope)
  const oldestInD1 = (kept?.results[0] as { oldest: string | null } | undefined)?.oldest ?? null
  // Entries of the months still (partly) in D1, written from there: those of the archive left out, by their ids.
  const notInD1 = async (entries: LogEntry[]) => {
    const month = oldestInD1?.slice(0, 7)
    const recent = month ? entries.filter((entry) => entry.date.slice(0, 7) >= month) : []
    if (recent.length === 0) return entries
    const present = new Set<number>()
    for (let start = 0; start < recent.length; start += 5_000) {
      const ids = recent.slice(start, start + 5_000).map((entry) => entry.id)
      const rows = await db
        .selectFrom('log')
        .select('log.id')
        .where('log.id', 'in', (eb) =>
          eb.selectFrom(sql<{ value: number }>`json_each(${JSON.stringify(ids)})`.as('wanted')).select('wanted.value'),
        )
        .execute()
      for (const row of rows) present.add(row.id)
    }
    return entries.filter((entry) => !present.has(entry.id))
  }
  // The archived months of the range after the database's, newest first: a file read from R2 at each pull, at most
  // EXPORT_MAX_FILES of them (a larger range is the search's: the file says so at its end).
  const bucket = ctx.env.ARCHIVE
  let files: { fichier: string; sha256: string }[] = []
  let listedAfter: string | null = null
  let listEnded = (!scope.whole && scope.structures.size === 0) || !bucket
  let readCount = 0
  const archived = async (): Promise<LogEntry[] | null> => {
    if (files.length === 0 && !listEnded) {
      files = (await filesInRange(db, range)
        .select(['f.fichier', 'f.sha256'])
        .$if(listedAfter !== null, (q) => q.where('f.fichier', '<', listedAfter as string))
        .orderBy('f.fichier', 'desc')
        .limit(EXPORT_FILES)
        .execute()) as { fichier: string; sha256: string }[]
      listedAfter = files.at(-1)?.fichier ?? listedAfter
      listEnded = files.length < EXPORT_FILES
    }
    const file = files.shift()
    if (!file || !bucket) return null
    if (++readCount > EXPORT_MAX_FILES) throw new ArchiveFault(file.fichier, 'too-many')
    const entries = await matchingInFile(bucket, file, matcher)
    // A file missing or altered: the file says so at its end rather than end as if the history held nothing more.
    if (entries === null) throw new ArchiveFault(file.fichier, 'altered')
    return notInD1(entries)
  }
  return csvStream<LogEntry, { date: string; id: number }>({
    language,
    header: EXPORT_HEADERS[language],
    first: ((firstRead?.results ?? []) as LogRow[]).map(toLogEntry),
    lines,
    next: {
      chunk: EXPORT_CHUNK,
      read: async (after) => ((await chunk(after).execute()) as LogRow[]).map(toLogEntry),
      cursor: (last) => ({ date: last.date, id: last.id }),
    },
    more: archived,
    fault: (error) => {
      if (!(error instanceof ArchiveFault)) throw error
      return csvLine(language, [FAULT[language][error.why](error.fichier)])
    },
  })
}

/**
 * GET rest/bd/logs/recherches/{id}/export: what a search of the archive found, as the history's CSV, a chunk at a time;
 * recorded as an export, in the batch of its first read (the search the caller's own: else 404, and nothing recorded).
 */
export async function exportSearch(ctx: Ctx, caller: Caller, id: string, now = new Date()) {
  const db = ctx.db
  const actor = await adminOf(ctx, caller)
  const viewer = viewerOf(actor)
  const own = ownSearch(db, viewer, id, now)
  const chunk = (after: { date: string; id: number } | null) =>
    foundEntries(db, viewer, id)
      .where(({ exists }) => exists(own.select('r.id')))
      .$if(after !== null, (q) => q.where(afterEntry('e', after)))
      .limit(EXPORT_CHUNK)
  const read = await namedBatch(ctx.d1, {
    search: own,
    audit: insertWhen(
      db,
      'log',
      logEntry(actor.id, 'ADMINISTRATION', 'HISTORIQUE_EXPORT', ctx.request.userAgent, {
        commentaire: `recherche=${id}`,
      }),
      own.select('r.id'),
    ),
    firstRead: chunk(null),
  })
  if (!read.search?.results[0]) throw notFound('No such search of the archive, or it is no longer kept')
  const language = ctx.request.language
  const entries = (rows: readonly { entree: string }[]) => rows.map((row) => JSON.parse(row.entree) as LogEntry)
  return csvStream<LogEntry, { date: string; id: number }>({
    language,
    header: EXPORT_HEADERS[language],
    first: entries((read.firstRead?.results ?? []) as { entree: string }[]),
    lines: (entry) => entryLine(language, entry),
    next: {
      chunk: EXPORT_CHUNK,
      read: async (after) => entries(await chunk(after).execute()),
      cursor: (last) => ({ date: last.date, id: last.id }),
    },
  })
}
