import { type ImportType, type RowProblem, rowMessage } from '../../contract/bulk'
import { batch, type Compilable } from '../../db/client'
import { BusinessError } from '../../lib/errors'
import type { Ctx } from '../../lib/types'
import { adminWith, type Caller } from '../core/actor'
import { boundOrigin } from '../organisation/user-creation'
import { fileChunks } from './file'
import { finishEmpty } from './run'

/**
 * `POST rest/bd/import`: the file stored as it arrives, cut into lots of `IMPORT_LOT_ROWS` rows (D1, beside the
 * organisation: a lot is a run's unit, written and deleted in the batch of its rows), then the first lot sent to the
 * imports' queue; the answer (202) does not wait for the run. A file refused whole (no header, a wrong one, too many
 * rows) leaves nothing behind.
 */

/** The rows of a lot: one D1 batch of their writes with their audit entries, well under D1's statements a call. */
export const IMPORT_LOT_ROWS = 100
/** The lots stored per D1 call while the file arrives. */
const LOTS_PER_CALL = 20

export type ImportRequest = { type: ImportType; invitation: boolean; fichier: string }

/** A file that cannot be imported at all: 400, with the file's problem as the caller reads it. */
function refused(ctx: Ctx, line: number, problem: RowProblem) {
  const message = rowMessage(ctx.request.language, problem)
  return new BusinessError('VALIDATION_FAILED', 400, message, [{ ligne: line, colonne: problem.colonne, message }])
}

export async function startImport(
  ctx: Ctx,
  caller: Caller,
  request: ImportRequest,
  body: ReadableStream<Uint8Array> | null,
): Promise<{ id: number }> {
  const db = ctx.db
  const queue = ctx.env.IMPORTS
  const { actor } = await adminWith(ctx, caller)
  if (!queue) throw new BusinessError('TECHNICAL_ERROR', 503, 'Imports are not configured on this server (IMPORTS)')
  const now = new Date().toISOString()
  const row = {
    type: request.type,
    auteur_id: actor.id,
    fichier: request.fichier,
    domaine: boundOrigin(actor, undefined, ctx.request.origin),
    origine: ctx.request.origin,
    inviter: request.invitation ? 1 : 0,
    created_at: now,
    updated_at: now,
  }
  let id: number | null = null
  let lots = 0
  let lignes = 0
  let pending: Compilable[] = []
  try {
    for await (const chunk of fileChunks(body, request.type, IMPORT_LOT_ROWS)) {
      const problem = chunk.fileProblems[0]
      if (problem) throw refused(ctx, problem.line, problem.problem)
      if (chunk.rows.length === 0) continue
      if (id === null) id = (await db.insertInto('import').values(row).returning('id').executeTakeFirstOrThrow()).id
      lots++
      lignes += chunk.rows.length
      const rows = chunk.rows.map(({ line, cells, problems }) => [line, cells, problems])
      pending.push(db.insertInto('import_lot').values({ import_id: id, numero: lots, lignes: JSON.stringify(rows) }))
      if (pending.length >= LOTS_PER_CALL) {
        await batch(ctx.d1, pending)
        pending = []
      }
    }
    if (pending.length > 0) await batch(ctx.d1, pending)
  } catch (error) {
    // Its lots go with it (ON DELETE CASCADE).
    if (id !== null) await db.deleteFrom('import').where('id', '=', id).execute()
    throw error
  }
  if (id === null) return { id: await finishEmpty(ctx, actor, row) }
  await db
    .updateTable('import')
    .set({ etat: 'EN_ATTENTE', lignes, lots, updated_at: new Date().toISOString() })
    .where('id', '=', id)
    .execute()
  await queue.send({ importId: id, lot: 1, auteur: actor.id })
  return { id }
}
