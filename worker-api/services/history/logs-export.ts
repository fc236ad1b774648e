import { type SqlBool, sql } from 'kysely'
import { organisationDateTime } from '../../contract/dates'
import { type LogEntry, logLabel } from '../../contract/history/logs'
import type { Language } from '../../contract/language'
import { namedBatch } from '../../db/client'
import { csvLine, csvStream } from '../../lib/csv'
import type { Ctx } from '../../lib/types'
import { adminOf, type Caller, viewerOf } from '../core/actor'
import { logEntry } from '../core/audit'
import { type LogFilters, type LogRow, logRows, toLogEntry } from './logs'

/** The entries an export reads per statement: a few hundred kilobytes of CSV. */
const EXPORT_CHUNK = 500

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
  const { firstRead } = await namedBatch(ctx.d1, { audit, firstRead: chunk(null) })
  const language = ctx.request.language
  return csvStream({
    language,
    header: EXPORT_HEADERS[language],
    first: (firstRead?.results ?? []) as LogRow[],
    lines: (row) => entryLine(language, toLogEntry(row)),
    next: {
      chunk: EXPORT_CHUNK,
      read: async (after: { date: string; id: number }) => (await chunk(after).execute()) as LogRow[],
      cursor: (last) => ({ date: last.date, id: last.id }),
    },
  })
}
