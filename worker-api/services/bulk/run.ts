import { type Expression, type Insertable, type Selectable, type SqlBool, sql } from 'kysely'
import type { ImportFailure, ImportMessage, RowProblem } from '../../contract/bulk/bulk'
import { aborted, abortUnless, batch, type Compilable, namedBatch } from '../../db/client'
import type { ImportTable } from '../../db/schema'
import type { Ctx } from '../../lib/types'
import type { Actor } from '../core/actor'
import { logEntry } from '../core/audit'
import { afterOneRow, importEvent } from '../core/events'
import { enqueue } from '../core/jobs'
import { importerLive, importerRead, viewerOfImport } from './importer'
import { type Counts, count, type FileRow, noCounts, type Planned } from './plan'
import { planStructureRow, type StructureAction, structureFileState } from './structure-plan'
import { Tree, treeReads } from './tree'
import { chunkNames, planUserRow, type UserAction, userLookups } from './user-plan'
import { userChunkReads } from './user-reads'
import { errorRows, errorsInsert, type LotWriter, postesPlaced, structureLotWrites, userLotWrites } from './writes'

/**
 * An import's run, one queue message per lot, in the file's order (a lot sends the next once written, so a structure
 * is created before the rows below it name it). A lot is planned on what D1 holds when it runs and written in one
 * batch with its audit entries, its errors, the import's progress and the deletion of the lot, first checking that
 * the lot is still there and the importer still an administrator: a message delivered twice writes once, and a lot
 * whose reads went stale meanwhile is planned again. A Worker's CPU limit bounds a lot, never an import.
 */

/** The deliveries of a lot's message before the import is stopped (LOT_EN_ECHEC). */
export const IMPORT_ATTEMPTS = 5
/** An import that has not moved for this long has its next lot sent again (a message lost). */
export const STALLED_MINUTES = 5

type ImportRow = Selectable<ImportTable>

/** How a lot stores its rows (upload.ts). */
type StoredRow = [number, string[], RowProblem[]]

/** The import's history entry: who, which file, what it did. */
export function importEntry(
  importerId: number,
  job: Pick<ImportRow, 'id' | 'fichier' | 'type'>,
  counts: Counts,
  end: string,
) {
  return logEntry(importerId, 'ADMINISTRATION', 'ORGANISATION_IMPORT', null, {
    commentaire: `#${job.id} ${job.fichier} (${job.type}) : ${counts.lignes} lignes, ${counts.creees} créées, ${counts.modifiees} modifiées, ${counts.inchangees} inchangées, ${counts.erreurs} en erreur${end}`,
  })
}

/** A file with a header and no row: an import done at once, with its entry. */
export async function finishEmpty(ctx: Ctx, actor: Actor, row: Insertable<ImportTable>): Promise<number> {
  const db = ctx.db
  const at = new Date().toISOString()
  const { inserted } = await namedBatch(ctx.d1, {
    inserted: db
      .insertInto('import')
      .values({ ...row, etat: 'TERMINE', started_at: at, finished_at: at })
      .returning('id'),
    event: importEvent(db, viewerOfImport(actor.id, row.domaine), sql<number>`last_insert_rowid()`, afterOneRow),
    log: db.insertInto('log').values({
      ...importEntry(actor.id, { id: 0, fichier: row.fichier, type: row.type }, noCounts(), ''),
      commentaire: `${row.fichier} (${row.type}) : 0 ligne`,
    }),
  })
  return inserted?.results[0]?.id ?? 0
}

/** Stops an import: its lots go, it says why, and its entry says what it did until then. */
export async function failImport(ctx: Ctx, importId: number, motif: ImportFailure) {
  const db = ctx.db
  const job = await db.selectFrom('import').selectAll().where('id', '=', importId).executeTakeFirst()
  if (!job || job.etat === 'TERMINE' || job.etat === 'ECHEC') return
  const at = new Date().toISOString()
  const counts = {
    lignes: job.lignes,
    creees: job.creees,
    modifiees: job.modifiees,
    inchangees: job.inchangees,
    erreurs: job.lignes_erreur,
  }
  await batch(ctx.d1, [
    db
      .updateTable('import')
      .set({ etat: 'ECHEC', motif_echec: motif, finished_at: at, updated_at: at })
      .where('id', '=', importId)
      .where('etat', 'in', ['EN_ATTENTE', 'EN_COURS']),
    importEvent(db, viewerOfImport(job.auteur_id, job.domaine), importId, afterOneRow),
    db.deleteFrom('import_lot').where('import_id', '=', importId),
    db.insertInto('log').values(importEntry(job.auteur_id, job, counts, ` ; arrêté (${motif})`)),
  ])
}

/** The lot after this one, if any, to the queue. */
async function sendNext(ctx: Ctx, job: ImportRow, lot: number) {
  if (lot < job.lots) await enqueue(ctx, { kind: 'import-lot', importId: job.id, lot: lot + 1, auteur: job.auteur_id })
}

/**
 * One lot of an import (a queue message). Answers when the lot is written, or was already; throws to have the message
 * delivered again (a batch stopped by its guard, D1 unavailable).
 */
export async function runLot(ctx: Ctx, message: ImportMessage): Promise<void> {
  const db = ctx.db
  const viewer = viewerOfImport(message.auteur, '')
  const first = await namedBatch(ctx.d1, {
    job: db.selectFrom('import').selectAll().where('id', '=', message.importId),
    lot: db
      .selectFrom('import_lot')
      .select('lignes')
      .where('import_id', '=', message.importId)
      .where('numero', '=', message.lot),
    importer: importerRead(db, viewer),
    ...treeReads(db, viewer),
  })
  const job = first.job?.results[0] as ImportRow | undefined
  if (!job || job.auteur_id !== message.auteur || !['EN_ATTENTE', 'EN_COURS'].includes(job.etat)) return
  const stored = first.lot?.results[0]
  // Written already (the message came twice): the next one goes on.
  if (!stored) return sendNext(ctx, job, message.lot)
  const importerRow = first.importer?.results[0]
  if (!importerRow?.live) return failImport(ctx, job.id, 'IMPORTATEUR')

  const now = new Date()
  const at = now.toISOString()
  const importer: Actor = {
    id: importerRow.id,
    login: importerRow.login,
    nom: importerRow.nom,
    prenom: importerRow.prenom,
    admin: true,
    racine: importerRow.racine === 1,
    domain: importerRow.domain,
    sid: '',
    langue: importerRow.langue,
    app: null,
    mfaEnrolmentRequired: false,
  }
  const scoped = viewerOfImport(job.auteur_id, job.domaine)
  const tree = new Tree(first.structures?.results ?? [], first.types?.results ?? [])
  const rows = (JSON.parse(stored.lignes) as StoredRow[]).map(([line, cells, problems]) => ({ line, cells, problems }))
  const plannable: FileRow[] = rows.filter((row) => row.problems.length === 0)
  const writer: LotWriter = {
    db,
    importer,
    viewer: scoped,
    importId: job.id,
    domaine: job.domaine,
    origine: job.origine,
    inviter: job.inviter === 1,
    now,
  }
  const suffix = ` (import #${job.id})`
  const planned = new Map<number, Planned<UserAction> | Planned<StructureAction>>()
  let writes: Compilable[]
  let placed: Expression<SqlBool> = sql<SqlBool>`1 = 1`
  if (job.type === 'structures') {
    const state = structureFileState()
    const actions: StructureAction[] = []
    for (const row of plannable) {
      const outcome = planStructureRow(row, tree, state)
      planned.set(row.line, outcome)
      if (outcome.kind === 'creee' || outcome.kind === 'modifiee') actions.push(outcome.action)
    }
    writes = structureLotWrites(writer, tree, actions, suffix)
  } else {
    const { names, structureIds } = chunkNames(plannable, tree)
    const reads = await namedBatch(ctx.d1, userChunkReads(db, scoped, names, structureIds))
    const users = reads.users?.results ?? []
    const world = userLookups({
      tree,
      users,
      fonctions: reads.fonctions?.results ?? [],
      importer,
      today: scoped.today,
    })
    const state = new Map()
    const actions: UserAction[] = []
    for (const row of plannable) {
      const outcome = planUserRow(row, world, state)
      planned.set(row.line, outcome)
      if (outcome.kind === 'creee' || outcome.kind === 'modifiee') actions.push(outcome.action)
      else if (outcome.kind === 'inchangee' && outcome.invitable && writer.inviter) actions.push(outcome.invitable)
    }
    writes = await userLotWrites(writer, actions, users, suffix)
    placed = postesPlaced(
      db,
      scoped,
      actions.flatMap((action) => (action.poste ? [action.poste] : [])),
    )
  }

  const counts = noCounts()
  const errors: ReturnType<typeof errorRows> = []
  for (const row of rows) {
    const outcome = planned.get(row.line) ?? { kind: 'erreur' as const, problems: row.problems }
    count(counts, outcome)
    if (outcome.kind === 'erreur') errors.push(...errorRows(row.line, outcome.problems))
  }
  const last = message.lot >= job.lots
  const total: Counts = {
    lignes: job.traitees + counts.lignes,
    creees: job.creees + counts.creees,
    modifiees: job.modifiees + counts.modifiees,
    inchangees: job.inchangees + counts.inchangees,
    erreurs: job.lignes_erreur + counts.erreurs,
  }
  const lotThere = db
    .selectFrom('import_lot')
    .select('numero')
    .where('import_id', '=', job.id)
    .where('numero', '=', message.lot)
  const statements: Compilable[] = [
    abortUnless(db, lotThere.where(importerLive(scoped)).where(placed)),
    ...writes,
    ...(errors.length === 0 ? [] : [errorsInsert(db, job.id, errors)]),
    db.deleteFrom('import_lot').where('import_id', '=', job.id).where('numero', '=', message.lot),
    db
      .updateTable('import')
      .set({
        etat: last ? 'TERMINE' : 'EN_COURS',
        traitees: total.lignes,
        creees: total.creees,
        modifiees: total.modifiees,
        inchangees: total.inchangees,
        lignes_erreur: total.erreurs,
        erreurs: sql<number>`erreurs + ${errors.length}`,
        started_at: sql<string>`coalesce(started_at, ${at})`,
        finished_at: last ? at : null,
        updated_at: at,
      })
      .where('id', '=', job.id),
    ...(last
      ? [
          db.insertInto('log').values(importEntry(job.auteur_id, job, { ...total, lignes: job.lignes }, '')),
          // Integrators hear it is done (the lot's guard above holds the whole batch).
          importEvent(db, viewerOfImport(job.auteur_id, job.domaine), job.id),
        ]
      : []),
  ]
  try {
    await batch(ctx.d1, statements)
  } catch (error) {
    // Another delivery wrote the lot meanwhile: nothing to do again. Else what the plan rested on changed: again.
    if (aborted(error)) {
      const still = await lotThere.executeTakeFirst()
      if (!still) return sendNext(ctx, job, message.lot)
      throw new Error('What the lot read changed before its write: it is planned again')
    }
    throw error
  }
  await sendNext(ctx, job, message.lot)
}

/**
 * The minute's cron: each import that has not moved for `STALLED_MINUTES` has its next lot sent again (a message the
 * queue lost, or one sent while the queue refused it). A lot sent twice is written once.
 */
export async function resumeStalled(ctx: Ctx, now = new Date()) {
  if (!ctx.env.JOBS) return 0
  const before = new Date(now.getTime() - STALLED_MINUTES * 60_000).toISOString()
  const stalled = await ctx.db
    .selectFrom('import')
    .select(['id', 'auteur_id'])
    .select((eb) =>
      eb
        .selectFrom('import_lot')
        .select((inner) => inner.fn.min('numero').as('next'))
        .whereRef('import_lot.import_id', '=', 'import.id')
        .as('next'),
    )
    .where('etat', 'in', ['EN_ATTENTE', 'EN_COURS'])
    .where('updated_at', '<', before)
    .execute()
  for (const job of stalled) {
    if (job.next === null) continue
    await enqueue(ctx, { kind: 'import-lot', importId: job.id, lot: Number(job.next), auteur: job.auteur_id })
    await ctx.db.updateTable('import').set({ updated_at: now.toISOString() }).where('id', '=', job.id).execute()
  }
  return stalled.length
}
