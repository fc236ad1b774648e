import type { Insertable } from 'kysely'
import { type ImportType, type RowProblem, rowMessage } from '../../contract/bulk/bulk'
import { aborted, abortUnless, batch, type Compilable, namedBatch } from '../../db/client'
import type { ImportTable } from '../../db/schema'
import { BusinessError, notFound } from '../../lib/errors'
import type { Ctx } from '../../lib/types'
import { type Actor, adminWith, type Caller, liveAdmin } from '../core/actor'
import { enqueue, jobsConfigured } from '../core/jobs'
import { boundOrigin } from '../organisation/user-creation'
import { type ChunkRow, fileChunks } from './file'
import { noCounts } from './plan'
import { finishEmpty, importEntry } from './run'

/**
 * `POST rest/bd/import`: the file stored as it arrives, cut into lots of `IMPORT_LOT_ROWS` rows (in D1 beside the
 * organisation: a lot is a run's unit, written and deleted in the batch of its rows), then the first lot sent to the
 * jobs queue; the answer (202) does not wait for the run. A file refused whole (no header, a wrong one, too many
 * rows) leaves nothing behind. A preview kept for the screens (`APERCU`) is stored the same way and started later
 * (`launchImport`), so that "Importer" needs no second upload.
 */

/** The rows of a lot: one D1 batch of their writes with their audit entries, well under D1's statements a call. */
export const IMPORT_LOT_ROWS = 100
/** The lots stored per D1 call while the file arrives. */
const LOTS_PER_CALL = 20

export type ImportRequest = { type: ImportType; invitation: boolean; fichier: string }

/** A file that cannot be imported at all: 400, with the file's problem as the caller reads it. */
export function fileRefused(ctx: Ctx, line: number, problem: RowProblem) {
  const message = rowMessage(ctx.request.language, problem)
  return new BusinessError('VALIDATION_FAILED', 400, message, [{ ligne: line, colonne: problem.colonne, message }])
}

/** The import's row as a file posted by `actor` starts it. */
export function importRow(ctx: Ctx, actor: Actor, request: ImportRequest): Insertable<ImportTable> {
  const now = new Date().toISOString()
  return {
    type: request.type,
    auteur_id: actor.id,
    fichier: request.fichier,
    domaine: boundOrigin(actor, undefined, ctx.request.origin),
    origine: ctx.request.origin,
    inviter: request.invitation ? 1 : 0,
    created_at: now,
    updated_at: now,
  }
}

/**
 * A file's lots, stored as its chunks arrive (with what else a chunk writes: `also`), a few D1 calls for the whole
 * file; the import's row is written with the first.
 */
export function lotStore(ctx: Ctx, row: Insertable<ImportTable>) {
  const db = ctx.db
  let id: number | null = null
  let lots = 0
  let lignes = 0
  let pending: Compilable[] = []
  return {
    get id() {
      return id
    },
    get lots() {
      return lots
    },
    get lignes() {
      return lignes
    },
    async add(rows: ChunkRow[], also: (id: number) => Compilable[] = () => []) {
      if (rows.length === 0) return
      if (id === null) id = (await db.insertInto('import').values(row).returning('id').executeTakeFirstOrThrow()).id
      lots++
      lignes += rows.length
      const stored = JSON.stringify(rows.map(({ line, cells, problems }) => [line, cells, problems]))
      pending.push(db.insertInto('import_lot').values({ import_id: id, numero: lots, lignes: stored }), ...also(id))
      if (pending.length >= LOTS_PER_CALL) await this.flush()
    },
    async flush() {
      if (pending.length > 0) await batch(ctx.d1, pending)
      pending = []
    },
    /** The import and its lots gone (ON DELETE CASCADE): a file refused, or a failure while it arrived. */
    async discard() {
      pending = []
      if (id !== null) await db.deleteFrom('import').where('id', '=', id).execute()
    },
  }
}

export async function startImport(
  ctx: Ctx,
  caller: Caller,
  request: ImportRequest,
  body: ReadableStream<Uint8Array> | null,
): Promise<{ id: number }> {
  const db = ctx.db
  const { actor } = await adminWith(ctx, caller)
  jobsConfigured(ctx)
  const row = importRow(ctx, actor, request)
  const store = lotStore(ctx, row)
  try {
    for await (const chunk of fileChunks(body, request.type, IMPORT_LOT_ROWS)) {
      const problem = chunk.fileProblems[0]
      if (problem) throw fileRefused(ctx, problem.line, problem.problem)
      await store.add(chunk.rows)
    }
    await store.flush()
  } catch (error) {
    await store.discard()
    throw error
  }
  const id = store.id
  if (id === null) return { id: await finishEmpty(ctx, actor, row) }
  await db
    .updateTable('import')
    .set({ etat: 'EN_ATTENTE', lignes: store.lignes, lots: store.lots, updated_at: new Date().toISOString() })
    .where('id', '=', id)
    .execute()
  await enqueue(ctx, { kind: 'import-lot', importId: id, lot: 1, auteur: actor.id })
  return { id }
}

/**
 * `POST rest/bd/import/{id}/lancement`: a preview the caller kept, imported. Only once, and only while its author is
 * an administrator: the change of state holds both inside its batch, so two clicks start it once (409).
 */
export async function launchImport(ctx: Ctx, caller: Caller, id: number, invitation: boolean): Promise<{ id: number }> {
  const db = ctx.db
  const { job } = await adminWith(ctx, caller, {
    job: db
      .selectFrom('import')
      .select(['id', 'etat', 'lots', 'fichier', 'type'])
      .where('id', '=', id)
      .where('auteur_id', '=', caller.id),
  })
  const found = job[0]
  if (!found) throw notFound('Unknown import')
  jobsConfigured(ctx)
  const started = () => new BusinessError('IMPORT_ALREADY_STARTED', 409, 'This import has already started')
  if (found.etat !== 'APERCU') throw started()
  const at = new Date().toISOString()
  const empty = found.lots === 0
  try {
    await namedBatch(ctx.d1, {
      guard: abortUnless(
        db,
        db
          .selectFrom('import')
          .select('id')
          .where('id', '=', id)
          .where('etat', '=', 'APERCU')
          .where(liveAdmin(ctx, caller)),
      ),
      // The preview's counts, errors and changes give way to the import's own.
      errors: db.deleteFrom('import_erreur').where('import_id', '=', id),
      changes: db.deleteFrom('import_changement').where('import_id', '=', id),
      empty: empty ? db.insertInto('log').values(importEntry(caller.id, found, noCounts(), '')) : null,
      start: db
        .updateTable('import')
        .set({
          etat: empty ? 'TERMINE' : 'EN_ATTENTE',
          inviter: invitation ? 1 : 0,
          creees: 0,
          modifiees: 0,
          inchangees: 0,
          lignes_erreur: 0,
          erreurs: 0,
          changements: 0,
          updated_at: at,
          finished_at: empty ? at : null,
        })
        .where('id', '=', id),
    })
  } catch (error) {
    if (aborted(error)) throw started()
    throw error
  }
  if (!empty) await enqueue(ctx, { kind: 'import-lot', importId: id, lot: 1, auteur: caller.id })
  return { id }
}
