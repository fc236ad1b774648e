import { type SqlBool, sql } from 'kysely'
import {
  IMPORT_FAILURES,
  type ImportChange,
  type ImportFailure,
  type ImportStatus,
  PREVIEW_CHANGES_LISTED,
  type RowErrorCode,
  type RowProblem,
  rowMessage,
  STATUS_ERRORS_LISTED,
} from '../../contract/bulk/bulk'
import type { Language } from '../../contract/language'
import type { DB } from '../../db/client'
import { csvLine, csvStream } from '../../lib/csv'
import { notFound } from '../../lib/errors'
import type { Ctx } from '../../lib/types'
import { adminWith, type Caller } from '../core/actor'
import { changeOf } from './changes'

/**
 * What an import has done so far, for its author (another administrator gets 404): the counts, the first errors,
 * the time left at its pace so far; and all its errors as a CSV file, in the reader's language.
 */

/** The imports a list shows: the author's latest. */
const LISTED = 20

type ErrorRow = { id: number; ligne: number; colonne: string | null; code: string; valeurs: string | null }

const problemOf = (row: ErrorRow): RowProblem => ({
  code: row.code as RowErrorCode,
  colonne: row.colonne,
  valeurs: row.valeurs ? (JSON.parse(row.valeurs) as Record<string, string | number>) : {},
})

const imports = (db: DB, caller: Caller) =>
  db
    .selectFrom('import')
    .select([
      'id',
      'type',
      'fichier',
      'etat',
      'lignes',
      'traitees',
      'creees',
      'modifiees',
      'inchangees',
      'lignes_erreur',
      'erreurs',
      'changements',
      'motif_echec',
      'created_at',
      'started_at',
      'finished_at',
    ])
    .where('auteur_id', '=', caller.id)

type JobRow = Awaited<ReturnType<ReturnType<typeof imports>['executeTakeFirstOrThrow']>>

function errorsOf(db: DB, caller: Caller, id: number) {
  return db
    .selectFrom('import_erreur')
    .select(['id', 'ligne', 'colonne', 'code', 'valeurs'])
    .where('import_id', '=', id)
    .where(sql<SqlBool>`exists (select 1 from import where import.id = ${id} and import.auteur_id = ${caller.id})`)
    .orderBy('ligne')
    .orderBy('id')
}

/** A kept preview's changes of existing users, by line: none once it is imported (`launchImport` deletes them). */
function changesOf(db: DB, caller: Caller, id: number) {
  return db
    .selectFrom('import_changement')
    .select(['ligne', 'login', 'valeurs'])
    .where('import_id', '=', id)
    .where(
      sql<SqlBool>`exists (select 1 from import where import.id = ${id} and import.auteur_id = ${caller.id} and import.etat = 'APERCU')`,
    )
    .orderBy('ligne')
    .limit(PREVIEW_CHANGES_LISTED)
}

/** The seconds left at the pace of the rows done so far. */
function secondsLeft(job: JobRow, now: number): number | null {
  if (job.etat === 'TERMINE' || job.etat === 'ECHEC') return 0
  if (job.etat === 'APERCU') return null
  if (!job.started_at || job.traitees === 0) return null
  const elapsed = (now - Date.parse(job.started_at)) / 1000
  return Math.max(0, Math.round(((job.lignes - job.traitees) * elapsed) / job.traitees))
}

function toStatus(language: Language, job: JobRow, errors: ErrorRow[], changes: ImportChange[] = []): ImportStatus {
  const preview = job.etat === 'APERCU'
  return {
    id: job.id,
    type: job.type,
    fichier: job.fichier,
    etat: job.etat === 'RECEPTION' ? 'EN_ATTENTE' : job.etat,
    lignes: job.lignes,
    traitees: job.traitees,
    creees: job.creees,
    modifiees: job.modifiees,
    inchangees: job.inchangees,
    erreurs: errors.map((row) => ({
      ligne: row.ligne,
      colonne: row.colonne,
      message: rowMessage(language, problemOf(row)),
    })),
    totalErreurs: job.erreurs,
    lignesEnErreur: job.lignes_erreur,
    changements: preview ? changes : [],
    totalChangements: preview ? job.changements : 0,
    secondesRestantes: secondsLeft(job, Date.now()),
    motif: job.motif_echec ? (IMPORT_FAILURES[job.motif_echec as ImportFailure]?.[language] ?? job.motif_echec) : null,
    debut: job.created_at,
    fin: job.finished_at,
  }
}

/** GET rest/bd/import/{id}: with a page of its errors and, a kept preview, the first of its changes. */
export async function importStatus(ctx: Ctx, caller: Caller, id: number, page = 1): Promise<ImportStatus> {
  const db = ctx.db
  const { job, errors, changes } = await adminWith(ctx, caller, {
    job: imports(db, caller).where('id', '=', id),
    errors: errorsOf(db, caller, id)
      .limit(STATUS_ERRORS_LISTED)
      .offset((page - 1) * STATUS_ERRORS_LISTED),
    changes: changesOf(db, caller, id),
  })
  const found = job[0]
  if (!found) throw notFound('Unknown import')
  return toStatus(ctx.request.language, found, errors, changes.map(changeOf))
}

/** GET rest/bd/import: the caller's latest imports, newest first (their counts; their errors in each one's own read). */
export async function listImports(ctx: Ctx, caller: Caller): Promise<ImportStatus[]> {
  const { jobs } = await adminWith(ctx, caller, {
    jobs: imports(ctx.db, caller).orderBy('id', 'desc').limit(LISTED),
  })
  return jobs.map((job) => toStatus(ctx.request.language, job, []))
}

/** The errors an export reads per statement. */
const ERRORS_CHUNK = 1000

const HEADERS: Record<Language, string[]> = { fr: ['Ligne', 'Colonne', 'Message'], en: ['Line', 'Column', 'Message'] }

/** GET rest/bd/import/{id}/erreurs.csv: every error, by line, streamed. */
export async function importErrorsFile(ctx: Ctx, caller: Caller, id: number): Promise<ReadableStream<Uint8Array>> {
  const db = ctx.db
  const language = ctx.request.language
  const chunk = (after: { ligne: number; id: number } | null) =>
    errorsOf(db, caller, id)
      .$if(after !== null, (q) =>
        q.where(
          sql<SqlBool>`(ligne > ${after?.ligne} or (ligne = ${after?.ligne} and import_erreur.id > ${after?.id}))`,
        ),
      )
      .limit(ERRORS_CHUNK)
  const { job, errors } = await adminWith(ctx, caller, {
    job: imports(db, caller).where('id', '=', id),
    errors: chunk(null),
  })
  if (!job[0]) throw notFound('Unknown import')
  return csvStream({
    language,
    header: HEADERS[language],
    first: errors as ErrorRow[],
    lines: (row) => csvLine(language, [String(row.ligne), row.colonne, rowMessage(language, problemOf(row))]),
    next: {
      chunk: ERRORS_CHUNK,
      read: (after: { ligne: number; id: number }) => chunk(after).execute(),
      cursor: (last) => ({ ligne: last.ligne, id: last.id }),
    },
  })
}
