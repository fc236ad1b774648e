import { type SqlBool, sql } from 'kysely'
import { organisationDateTime } from '../../contract/dates'
import type { Language } from '../../contract/language'
import { type LogEntry, logLabel } from '../../contract/logs'
import { namedBatch } from '../../db/client'
import type { Ctx } from '../../lib/types'
import { adminOf, type Caller, viewerOf } from '../core/actor'
import { logEntry } from '../core/audit'
import { type LogFilters, type LogRow, logRows, toLogEntry } from './logs'

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

/** Who acted, when a service account did (the screens say the same). */
const ACCOUNT = { fr: 'Compte de service', en: 'Service account' }

function csvLine(language: Language, entry: LogEntry): string {
  const { date, time } = organisationDateTime(entry.date)
  const source = { fr: { SERVEUR: 'Serveur', CLIENT: 'Client' }, en: { SERVEUR: 'Server', CLIENT: 'Client' } }[language]
  return [
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
  ]
    .map(cell)
    .join(SEPARATOR[language])
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
        text += `\uFEFF${EXPORT_HEADERS[ctx.request.language].join(SEPARATOR[ctx.request.language])}\r\n`
      }
      for (const row of rows) text += `${csvLine(ctx.request.language, toLogEntry(row))}\r\n`
      if (text) controller.enqueue(encoder.encode(text))
      const last = rows.at(-1)
      if (rows.length < EXPORT_CHUNK || !last) controller.close()
      else after = { date: last.date, id: last.id }
    },
  })
}
