import {
  type ImportPreview,
  type ImportType,
  PREVIEW_ERRORS_LISTED,
  type RowError,
  type RowProblem,
  rowMessage,
} from '../../contract/bulk'
import type { Ctx } from '../../lib/types'
import { adminWith, type Caller, viewerOf } from '../core/actor'
import { fileChunks } from './file'
import { count, noCounts } from './plan'
import { planStructureRow, structureFileState } from './structure-plan'
import { Tree, treeReads } from './tree'
import { chunkNames, planUserRow, type UserFileState, userChunkReads, userLookups } from './user-plan'

/** The rows a preview plans per read of D1: the users and functions they name in one statement each. */
export const PREVIEW_CHUNK_ROWS = 500

/**
 * `POST rest/bd/import?essai=true`: what importing the file would do, row by row, and nothing written. The file is
 * read as it arrives, a chunk of rows at a time, each chunk's users and functions read in one round trip; what the
 * earlier rows would have created or changed is kept, so each row is planned as the import would find it.
 */
export async function previewImport(
  ctx: Ctx,
  caller: Caller,
  type: ImportType,
  body: ReadableStream<Uint8Array> | null,
): Promise<ImportPreview> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const { actor, structures, types } = await adminWith(ctx, caller, treeReads(db, viewer))
  const tree = new Tree(structures, types)
  const importer = { id: actor.id, racine: actor.racine }
  const counts = noCounts()
  const erreurs: RowError[] = []
  let totalErreurs = 0
  const report = (line: number, problems: RowProblem[]) => {
    totalErreurs += problems.length
    for (const problem of problems) {
      if (erreurs.length >= PREVIEW_ERRORS_LISTED) break
      erreurs.push({ ligne: line, colonne: problem.colonne, message: rowMessage(ctx.request.language, problem) })
    }
  }
  const structureState = structureFileState()
  const userState: UserFileState = new Map()
  for await (const chunk of fileChunks(body, type, PREVIEW_CHUNK_ROWS)) {
    for (const { line, problem } of chunk.fileProblems) report(line, [problem])
    const plannable = chunk.rows.filter((row) => row.problems.length === 0)
    const planned = new Map<number, ReturnType<typeof planUserRow> | ReturnType<typeof planStructureRow>>()
    if (type === 'structures') {
      for (const row of plannable) planned.set(row.line, planStructureRow(row, tree, structureState))
    } else if (plannable.length > 0) {
      const { names, structureIds } = chunkNames(plannable, tree)
      const { users, fonctions } = await adminWith(ctx, caller, userChunkReads(db, viewer, names, structureIds))
      const world = userLookups({ tree, users, fonctions, importer, today: viewer.today })
      for (const row of plannable) planned.set(row.line, planUserRow(row, world, userState))
    }
    for (const row of chunk.rows) {
      const outcome = planned.get(row.line) ?? { kind: 'erreur' as const, problems: row.problems }
      count(counts, outcome)
      if (outcome.kind === 'erreur') report(row.line, outcome.problems)
    }
  }
  return {
    lignes: counts.lignes,
    creees: counts.creees,
    modifiees: counts.modifiees,
    inchangees: counts.inchangees,
    erreurs,
    totalErreurs,
  }
}
