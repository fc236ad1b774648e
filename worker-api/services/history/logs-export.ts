import { type SqlBool, sql } from 'kysely'
import { organisationDateTime } from '../../contract/dates'
import { type LogEntry, logLabel } from '../../contract/history/logs'
import type { Language } from '../../contract/language'
import { insertWhen, namedBatch } from '../../db/client'
import { csvLine, csvStream } from '../../lib/csv'
import { notFound } from '../../lib/errors'
import { scopeRootPaths } from '../../lib/scope'
import type { Ctx } from '../../lib/types'
import { adminOf, type Caller, viewerOf } from '../core/actor'
import { logEntry } from '../core/audit'
import { filesInRange, rangeInstants } from './archive-listing'
import { archiveMatcher, foundEntries, matchingInFile, ownSearch } from './archive-search'
import { type LogFilters, type LogRow, logRows, toLogEntry } from './logs'

/** The entries an export reads per statement: a few hundred kilobytes of CSV. */
const EXPORT_CHUNK = 500
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
  constructor(readonly fichier: string) {
    super(`History archive file missing or altered: ${fichier}`)
  }
}

/** The export's last line when a file of the archive cannot be read: the export is not whole. */
const FAULT: Record<Language, (fichier: string) => string> = {
  fr: (fichier) => `EXPORT INCOMPLET : le fichier ${fichier} de l’archive est manquant ou altéré (somme de contrôle).`,
  en: (fichier) => `EXPORT INCOMPLETE: the archive's file ${fichier} is missing or altered (checksum).`,
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
  const audit = db.insertInto('log').values(
    logEntry(actor.id, 'ADMINISTRATION', 'HISTORIQUE_EXPORT', ctx.request.userAgent, {
      commentaire: described || null,
    }),
  )
  const range = rangeInstants(filters)
  const { firstRead, roots } = await namedBatch(ctx.d1, {
    audit,
    firstRead: chunk(null),
    roots: ctx.env.ARCHIVE ? scopeRootPaths(db, viewer) : null,
  })
  const language = ctx.request.language
  const lines = (entry: LogEntry) => entryLine(language, entry)
  const scope = (roots?.results ?? []) as { path: string; racine: number }[]
  const matcher = archiveMatcher(filters, {
    whole: scope.some((root) => root.racine === 1),
    roots: scope.map((root) => root.path),
  })
  // The archived months of the range after the database's, newest first: a file read from R2 at each pull.
  const bucket = ctx.env.ARCHIVE
  let files: { fichier: string; sha256: string }[] = []
  let listedAfter: string | null = null
  let listEnded = scope.length === 0 || !bucket
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
    const entries = await matchingInFile(bucket, file, matcher)
    // A file missing or altered: the file says so at its end rather than end as if the history held nothing more.
    if (entries === null) throw new ArchiveFault(file.fichier)
    return entries
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
      return csvLine(language, [FAULT[language](error.fichier)])
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
    foundEntries(db, id)
      .where(({ exists }) => exists(own.select('r.id')))
      .$if(after !== null, (q) =>
        q.where(sql<SqlBool>`(e.date < ${after?.date} or (e.date = ${after?.date} and e.id < ${after?.id}))`),
      )
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
