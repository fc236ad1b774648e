import { type SqlBool, sql } from 'kysely'
import type { FonctionInput, FonctionUpdate, StructureFonction } from '../../contract/organisation/structure'
import { type DB, type Guard, insertWhen, namedBatch } from '../../db/client'
import { BusinessError, forbidden, invalidField } from '../../lib/errors'
import { uniqueViolation } from '../../lib/query'
import { inScopeColumn, pathInScope, type Viewer } from '../../lib/scope'
import type { Ctx } from '../../lib/types'
import { ofFonction, tellAccess } from '../catalogue/access-told'
import { adminWith, type Caller, requireRootAdmin, viewerOf } from '../core/actor'
import { adminLogWhen } from '../core/audit'
import { rootHolds } from '../core/root-admin'
import { inScopeOrFail, structureInScopeQuery } from './structures'

/**
 * The functions of a structure (DESIGN §4: a post is a user holding a function in a structure, and
 * the catalogue says what each function grants). Every administrator creates, renames and deletes
 * the functions of the structures in their scope, as they manage those structures; which applications
 * a function grants is the root administrators' to change (the catalogue's rule).
 */

/** Functions with the applications each grants (one JSON column) and the posts holding it. */
function fonctionsQuery(db: DB) {
  return db
    .selectFrom('fonction as f')
    .select(['f.id', 'f.libelle', 'f.structure_id'])
    .select((eb) =>
      eb
        .selectFrom('fonction_application as fa')
        .innerJoin('application as a', 'a.id', 'fa.application_id')
        .select(sql<string>`json_group_array(json_object('id', a.id, 'libelle', a.libelle, 'actif', a.actif))`.as('j'))
        .whereRef('fa.fonction_id', '=', 'f.id')
        .as('applications'),
    )
    .select((eb) =>
      eb
        .selectFrom('poste as held')
        .select(sql<number>`count(*)`.as('n'))
        .whereRef('held.fonction_id', '=', 'f.id')
        .as('nb_postes'),
    )
}

type FonctionRow = { id: number; libelle: string; applications: string | null; nb_postes: number | null }

function toFonction(row: FonctionRow): StructureFonction {
  const applications = JSON.parse(row.applications ?? '[]') as { id: number; libelle: string; actif: number }[]
  return {
    id: row.id,
    libelle: row.libelle,
    applications: applications
      .map((a) => ({ id: a.id, libelle: a.libelle, actif: a.actif === 1 }))
      .sort((a, b) => a.libelle.localeCompare(b.libelle, 'fr')),
    nbPostes: row.nb_postes ?? 0,
  }
}

/** One function with its structure's name and whether that structure lies in the viewer's scope. */
const fonctionInScopeQuery = (db: DB, viewer: Viewer, id: number) =>
  fonctionsQuery(db)
    .innerJoin('structure as s', 's.id', 'f.structure_id')
    .select(['s.nom as structure_nom', inScopeColumn(db, viewer, 's')])
    .where('f.id', '=', id)

/** GET fonction/structure/{id}: the functions of a structure of the caller's scope, by name. */
export async function structureFonctions(ctx: Ctx, caller: Caller, id: number): Promise<StructureFonction[]> {
  const db = ctx.db
  const {
    row: [row],
    fonctions,
  } = await adminWith(ctx, caller, {
    row: structureInScopeQuery(db, viewerOf(caller), id, false),
    fonctions: fonctionsQuery(db).where('f.structure_id', '=', id).orderBy('f.libelle'),
  })
  inScopeOrFail(row)
  return fonctions.map(toFonction)
}

/** The function of a structure holding a name whatever its case, but `except`. */
const libelleHolder = (db: DB, structureId: number | ReturnType<typeof sql<number>>, libelle: string, except = 0) =>
  db
    .selectFrom('fonction as holder')
    .select(['holder.id', 'holder.libelle'])
    .where(sql<SqlBool>`holder.structure_id = ${structureId}`)
    .where(sql<SqlBool>`holder.libelle = ${libelle} collate nocase`)
    .where('holder.id', '!=', except)

const libelleTaken = (libelle: string) =>
  new BusinessError('FONCTION_LIBELLE_ALREADY_USED', 409, 'This structure already has a function of this name', [
    libelle,
  ])
/** A write refused by the unique index: another request took the name meanwhile; the same answer. */
const libelleRace = (error: unknown, libelle: string) => (uniqueViolation(error) ? libelleTaken(libelle) : error)

/** A row while the structure `id` lies in the viewer's scope as the statement runs. */
const structureHolds = (db: DB, viewer: Viewer, id: number): Guard =>
  db
    .selectFrom('structure as held')
    .select('held.id')
    .where('held.id', '=', id)
    .where(pathInScope(db, viewer, sql.ref<string>('held.path')))

/** A row while the function `id` exists in a structure of the viewer's scope as the statement runs. */
const fonctionHolds = (db: DB, viewer: Viewer, id: number) =>
  db
    .selectFrom('fonction as target')
    .innerJoin('structure as target_structure', 'target_structure.id', 'target.structure_id')
    .select('target.id')
    .where('target.id', '=', id)
    .where(pathInScope(db, viewer, sql.ref<string>('target_structure.path')))

/**
 * POST rest/bd/fonction: a new function of a structure of the caller's scope, under a name free in
 * that structure, with its audit entry; both written only while the structure is still in scope.
 */
export async function createFonction(ctx: Ctx, caller: Caller, input: FonctionInput): Promise<StructureFonction> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const {
    actor,
    structure: [structure],
    holder: [holder],
  } = await adminWith(ctx, caller, {
    structure: structureInScopeQuery(db, viewer, input.structure.id, false),
    holder: libelleHolder(db, input.structure.id, input.libelle),
  })
  if (!structure) throw invalidField('structure.id', 'Unknown structure', 'validation.unknown')
  if (!structure.in_scope) throw forbidden('This structure is outside your scope')
  if (holder) throw libelleTaken(holder.libelle)
  const guard = structureHolds(db, viewer, structure.id)
  const results = await namedBatch(ctx.d1, {
    created: insertWhen(db, 'fonction', { libelle: input.libelle, structure_id: structure.id }, guard).returning('id'),
    log: adminLogWhen(
      db,
      actor,
      'FONCTION_CREATION',
      `${input.libelle} (${structure.nom})`,
      ctx.request.userAgent,
      guard,
    ),
  }).catch((error) => {
    throw libelleRace(error, input.libelle)
  })
  const [created] = results.created?.results ?? []
  if (!created) throw forbidden('This structure is outside your scope')
  return { id: created.id, libelle: input.libelle, applications: [], nbPostes: 0 }
}

/** What an update or a delete must know of the function first, read with the caller's check. */
async function readFonction(ctx: Ctx, caller: Caller, id: number, input?: FonctionUpdate) {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const applicationIds = [...new Set((input?.applications ?? []).map((a) => a.id))]
  const structureId = sql<number>`(select structure_id from fonction where id = ${id})`
  const {
    actor,
    row: [row],
    holders,
    applications,
  } = await adminWith(ctx, caller, {
    row: fonctionInScopeQuery(db, viewer, id),
    holders: libelleHolder(db, structureId, input?.libelle ?? '', id),
    applications: db
      .selectFrom('application')
      .select(['id', 'libelle'])
      .where(applicationIds.length > 0 ? sql<SqlBool>`id in (${sql.join(applicationIds)})` : sql<SqlBool>`0`),
  })
  const fonction = inScopeOrFail(row, 'Unknown function')
  return { actor, viewer, fonction, holder: input ? holders[0] : undefined, applicationIds, applications }
}

/**
 * The statements that make the applications a function grants exactly `applicationIds`: those left
 * out are taken away, those missing added; both only while `guard` finds a row.
 */
function setGrants(db: DB, fonctionId: number, applicationIds: number[], guard: Guard) {
  const removed = db
    .deleteFrom('fonction_application')
    .where('fonction_id', '=', fonctionId)
    .$if(applicationIds.length > 0, (q) => q.where(sql<SqlBool>`application_id not in (${sql.join(applicationIds)})`))
    .where(({ exists }) => exists(guard))
  if (applicationIds.length === 0) return [removed]
  const held = db
    .selectFrom('fonction_application as held')
    .select('held.fonction_id')
    .where(sql<SqlBool>`held.fonction_id = ${fonctionId} and held.application_id = granted.id`)
  const added = db
    .insertInto('fonction_application')
    .columns(['fonction_id', 'application_id'])
    .expression(
      db
        .selectFrom('application as granted')
        .select([sql<number>`${fonctionId}`.as('fonction_id'), 'granted.id as application_id'])
        .where(sql<SqlBool>`granted.id in (${sql.join(applicationIds)})`)
        .where(({ not, exists }) => not(exists(held)))
        .where(({ exists }) => exists(guard)),
    )
  return [removed, added]
}

/**
 * PUT rest/bd/fonction: renames a function of a structure of the caller's scope; with
 * `applications`, a root administrator also sets the applications it grants (the whole list). Each
 * statement holds only while the function is still in scope (and, for the grants, the caller still a
 * root administrator); the audit entry under the same condition.
 */
export async function updateFonction(ctx: Ctx, caller: Caller, input: FonctionUpdate): Promise<StructureFonction> {
  const db = ctx.db
  const { actor, viewer, fonction, holder, applicationIds, applications } = await readFonction(
    ctx,
    caller,
    input.id,
    input,
  )
  const grants = input.applications !== undefined
  if (grants) requireRootAdmin(actor)
  if (holder) throw libelleTaken(holder.libelle)
  if (applications.length < applicationIds.length)
    throw invalidField('applications', 'Unknown application', 'validation.unknown')
  const before = toFonction(fonction)
  const change = [
    before.libelle !== input.libelle && `${before.libelle} → ${input.libelle}`,
    ...(grants
      ? [
          ...applications.filter((a) => !before.applications.some((b) => b.id === a.id)).map((a) => `+${a.libelle}`),
          ...before.applications.filter((b) => !applicationIds.includes(b.id)).map((b) => `-${b.libelle}`),
        ]
      : []),
  ].filter(Boolean)
  const target = fonctionHolds(db, viewer, input.id)
  const grantGuard = fonctionHolds(db, viewer, input.id).where(({ exists }) => exists(rootHolds(db, viewer)))
  const grantWrites = grants ? setGrants(db, input.id, applicationIds, grantGuard) : []
  const results = await namedBatch(ctx.d1, {
    // Before the update, under its very condition.
    log: adminLogWhen(
      db,
      actor,
      'FONCTION_MODIFICATION',
      `${before.libelle} (${fonction.structure_nom}) ${change.join(', ')}`.trim(),
      ctx.request.userAgent,
      grants ? grantGuard : target,
    ),
    updated: db
      .updateTable('fonction')
      .set({ libelle: input.libelle })
      .where('id', '=', input.id)
      .where(({ exists }) => exists(grants ? grantGuard : target))
      .returning('id'),
    grants: grantWrites,
    // What the grants give the holders of its current posts, or take from them.
    access: grants
      ? tellAccess(db, actor.id, ofFonction(db, input.id, viewer.today), undefined, sql<SqlBool>`exists ${grantGuard}`)
      : null,
    fonction: fonctionInScopeQuery(db, viewer, input.id),
  }).catch((error) => {
    throw libelleRace(error, input.libelle)
  })
  const [row] = (results.fonction?.results ?? []) as FonctionRow[]
  if ((results.updated?.results.length ?? 0) === 0 || !row) {
    // The function left the caller's reach between the checks and the write: the checks say how.
    await readFonction(ctx, caller, input.id, input)
    throw forbidden(grants ? 'Root administrators only' : 'This function is outside your scope')
  }
  return toFonction(row)
}

const hasPostes = (count: number) =>
  new BusinessError('FONCTION_HAS_POSTES', 409, 'Posts hold this function (past ones included)', [count])

/**
 * DELETE rest/bd/fonction/{id}: a function no post holds (past and future ones included: a post keeps
 * its function for the history), of a structure of the caller's scope; its grants go with it. The
 * delete re-checks both when it runs; its audit entry is written under the same condition.
 */
export async function deleteFonction(ctx: Ctx, caller: Caller, id: number): Promise<void> {
  const db = ctx.db
  const { actor, viewer, fonction } = await readFonction(ctx, caller, id)
  if ((fonction.nb_postes ?? 0) > 0) throw hasPostes(fonction.nb_postes ?? 0)
  const guard = fonctionHolds(db, viewer, id).where(({ not, exists }) =>
    not(exists(db.selectFrom('poste as holding').select('holding.id').where('holding.fonction_id', '=', id))),
  )
  const { deleted } = await namedBatch(ctx.d1, {
    log: adminLogWhen(
      db,
      actor,
      'FONCTION_SUPPRESSION',
      `${fonction.libelle} (${fonction.structure_nom})`,
      ctx.request.userAgent,
      guard,
    ),
    deleted: db
      .deleteFrom('fonction')
      .where('id', '=', id)
      .where(({ exists }) => exists(guard))
      .returning('id'),
  })
  if ((deleted?.results.length ?? 0) === 0) {
    // Something changed between the check and the delete: a post was given, or the function is gone.
    const again = await readFonction(ctx, caller, id)
    throw hasPostes(again.fonction.nb_postes ?? 0)
  }
}
