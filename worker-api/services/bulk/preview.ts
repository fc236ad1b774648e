import {
  type ImportChange,
  type ImportPreview,
  type ImportType,
  PREVIEW_CHANGES_LISTED,
  PREVIEW_ERRORS_LISTED,
  type RowError,
  type RowProblem,
  rowMessage,
} from '../../contract/bulk/bulk'
import type { Ctx } from '../../lib/types'
import { type Actor, adminWith, type Caller, viewerOf } from '../core/actor'
import { changesInsert, userChange } from './changes'
import { type FileChunk, fileChunks } from './file'
import { count, noCounts } from './plan'
import { planStructureRow, structureFileState } from './structure-plan'
import { Tree, treeReads } from './tree'
import { fileRefused, IMPORT_LOT_ROWS, importRow, lotStore } from './upload'
import { chunkNames, planUserRow, type UserFileState, userLookups } from './user-plan'
import { userChunkReads } from './user-reads'
import { errorRows, errorsInsert } from './writes'

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
  keep: { fichier: string } | null = null,
): Promise<ImportPreview> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const { actor, structures, types } = await adminWith(ctx, caller, treeReads(db, viewer))
  // A preview kept for the screens: its file stored as an import's (upload.ts), its errors with it.
  const store = keep ? lotStore(ctx, importRow(ctx, actor, { type, invitation: false, fichier: keep.fichier })) : null
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
  const changements: ImportChange[] = []
  let totalChangements = 0
  const structureState = structureFileState()
  const userState: UserFileState = new Map()
  try {
    // Kept, the file is read in the lots its import will run.
    for await (const chunk of fileChunks(body, type, store ? IMPORT_LOT_ROWS : PREVIEW_CHUNK_ROWS)) {
      // A file that cannot be imported at all is not kept: 400, as its import would be.
      const problem = chunk.fileProblems[0]
      if (store && problem) throw fileRefused(ctx, problem.line, problem.problem)
      const { errors, changes } = await previewChunk(chunk)
      await store?.add(chunk.rows, (id) => [
        ...(errors.length === 0 ? [] : [errorsInsert(db, id, errors)]),
        ...(changes.length === 0 ? [] : [changesInsert(db, id, changes)]),
      ])
    }
    await store?.flush()
  } catch (error) {
    await store?.discard()
    throw error
  }

  /** A chunk's rows planned and reported; answers their errors and changes as the kept preview stores them. */
  async function previewChunk(chunk: FileChunk) {
    for (const { line, problem } of chunk.fileProblems) report(line, [problem])
    const plannable = chunk.rows.filter((row) => row.problems.length === 0)
    const planned = new Map<number, ReturnType<typeof planUserRow> | ReturnType<typeof planStructureRow>>()
    const changes: ImportChange[] = []
    if (type === 'structures') {
      for (const row of plannable) planned.set(row.line, planStructureRow(row, tree, structureState))
    } else if (plannable.length > 0) {
      const { names, structureIds } = chunkNames(plannable, tree)
      const { users, fonctions } = await adminWith(ctx, caller, userChunkReads(db, viewer, names, structureIds))
      const world = userLookups({ tree, users, fonctions, importer, today: viewer.today })
      const byId = new Map(users.map((user) => [user.id, user]))
      for (const row of plannable) {
        const outcome = planUserRow(row, world, userState)
        planned.set(row.line, outcome)
        if (outcome.kind !== 'modifiee' || outcome.action.kind !== 'update') continue
        const target = outcome.action.target
        const change = userChange(row.line, outcome.action, 'id' in target ? byId.get(target.id) : undefined)
        if (change) changes.push(change)
      }
    }
    totalChangements += changes.length
    changements.push(...changes.slice(0, PREVIEW_CHANGES_LISTED - changements.length))
    const errors: ReturnType<typeof errorRows> = []
    for (const row of chunk.rows) {
      const outcome = planned.get(row.line) ?? { kind: 'erreur' as const, problems: row.problems }
      count(counts, outcome)
      if (outcome.kind !== 'erreur') continue
      report(row.line, outcome.problems)
      errors.push(...errorRows(row.line, outcome.problems))
    }
    return { errors, changes }
  }
  const kept = store?.id ?? (store ? await emptyPreview(ctx, actor, type, keep?.fichier ?? '') : null)
  if (store && kept !== null && store.id !== null) {
    await db
      .updateTable('import')
      .set({
        etat: 'APERCU',
        lignes: store.lignes,
        lots: store.lots,
        creees: counts.creees,
        modifiees: counts.modifiees,
        inchangees: counts.inchangees,
        lignes_erreur: counts.erreurs,
        erreurs: totalErreurs,
        changements: totalChangements,
        updated_at: new Date().toISOString(),
      })
      .where('id', '=', kept)
      .execute()
  }
  return {
    lignes: counts.lignes,
    creees: counts.creees,
    modifiees: counts.modifiees,
    inchangees: counts.inchangees,
    erreurs,
    totalErreurs,
    changements,
    totalChangements,
    ...(kept === null ? {} : { id: kept }),
  }
}

/** A kept preview of a file with no row: an import with nothing to do, waiting for "Importer" all the same. */
async function emptyPreview(ctx: Ctx, actor: Actor, type: ImportType, fichier: string) {
  const row = { ...importRow(ctx, actor, { type, invitation: false, fichier }), etat: 'APERCU' as const }
  return (await ctx.db.insertInto('import').values(row).returning('id').executeTakeFirstOrThrow()).id
}
