import { type Expression, type SelectQueryBuilder, type SqlBool, sql } from 'kysely'
import type { Structure, StructureInput } from '../../contract/organisation/structure'
import { type DB, namedBatch } from '../../db/client'
import type { Database } from '../../db/schema'
import { BusinessError, forbidden, invalidField, notFound } from '../../lib/errors'
import { pathInScope, type Viewer } from '../../lib/scope'
import type { Ctx } from '../../lib/types'
import { copyTemplate } from '../catalogue/templates'
import { adminWith, type Caller, viewerOf } from '../core/actor'
import { adminLog, adminLogWhen } from '../core/audit'
import {
  inScopeOrFail,
  nameHolder,
  nameRace,
  nomTaken,
  parentInvalid,
  structureInScopeQuery,
  toStructure,
} from './structures'

/**
 * The organisation tree's writes (spec §7): a structure created (with its type's template of
 * functions), moved or renamed, or deleted once empty, each with its audit entry in its batch.
 */

/**
 * What a create or an update must check about the new name, type and parent, read in one round trip
 * with the caller's check: the type (and the type its parents must have), the parent (in scope?), a
 * structure already holding the name — and for an update (`id`), the structure itself and the types
 * of its children.
 */
async function readPlacement(ctx: Ctx, caller: Caller, input: StructureInput, id: number | null) {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const {
    actor,
    type: [type],
    parents,
    holder: [holder],
    currents,
    children,
  } = await adminWith(ctx, caller, {
    type: db.selectFrom('type_structure').select(['id', 'libelle', 'parent_type_id']).where('id', '=', input.type.id),
    parents: structureInScopeQuery(db, viewer, input.parent?.id ?? 0, false),
    holder: nameHolder(db, input.nom),
    currents: structureInScopeQuery(db, viewer, id ?? 0, false),
    children: db
      .selectFrom('structure as c')
      .innerJoin('type_structure as ct', 'ct.id', 'c.type_id')
      .select(['c.id', 'ct.parent_type_id'])
      .where('c.parent_id', '=', id ?? 0),
  })
  if (!type) throw invalidField('type.id', 'Unknown structure type', 'validation.unknown')
  const parent = input.parent ? parents[0] : undefined
  if (input.parent && !parent) throw invalidField('parent.id', 'Unknown parent structure', 'validation.unknown')
  if (parent && !parent.in_scope) throw forbidden('The parent structure is outside your scope')
  if (type.parent_type_id === null) {
    if (parent) throw parentInvalid('A structure of this type has no parent')
  } else if (!parent) {
    throw parentInvalid('A parent structure is required')
  } else if (parent.type_id !== type.parent_type_id) {
    throw parentInvalid("The parent's type does not fit this type of structure")
  }
  return { actor, type, parent: parent ?? null, holder, current: currents[0], children }
}

/**
 * The insert of a new structure below `parentId`: its id (the next free one) and its materialised path
 * are given in the statement itself, so the rows a batch writes with it need no round trip to learn
 * them. Nothing is written when the parent does not exist.
 */
export function insertStructure(
  db: DB,
  structure: { nom: string; typeId: number; parentId: number | Expression<number>; createdAt: string },
  /** Written only if this finds a row when the statement runs (a guard inside a batch). */
  onlyIf?: SelectQueryBuilder<Database, keyof Database, unknown>,
) {
  const next = sql<number>`(select coalesce(max(id), 0) + 1 from structure)`
  const row = db
    .selectFrom('structure as p')
    .select([
      next.as('id'),
      sql.val(structure.nom).as('nom'),
      sql.val(structure.typeId).as('type_id'),
      'p.id as parent_id',
      sql<string>`p.path || ${next} || '/'`.as('path'),
      sql.val(structure.createdAt).as('created_at'),
    ])
    .where('p.id', '=', structure.parentId)
  return db
    .insertInto('structure')
    .columns(['id', 'nom', 'type_id', 'parent_id', 'path', 'created_at'])
    .expression(onlyIf ? row.where(({ exists }) => exists(onlyIf)) : row)
}

/**
 * POST rest/bd/structure: a new structure below a parent of the caller's scope whose type its own
 * type requires, under a free name. Its id and path are given in the one statement that inserts it,
 * written with its type's template of functions and its audit entry in one batch.
 */
export async function createStructure(ctx: Ctx, caller: Caller, input: StructureInput): Promise<Structure> {
  const db = ctx.db
  const { actor, type, parent, holder } = await readPlacement(ctx, caller, input, null)
  if (holder) throw nomTaken(holder.nom)
  if (!parent) throw parentInvalid('A parent structure is required')
  const createdAt = new Date().toISOString()
  const insert = insertStructure(db, { nom: input.nom, typeId: type.id, parentId: parent.id, createdAt }).returning([
    'id',
    'path',
  ])
  try {
    const { inserted } = await namedBatch(ctx.d1, {
      inserted: insert,
      // It starts with its type's functions (the template root administrators set).
      template: copyTemplate(db, sql<number>`(select id from structure where nom = ${input.nom})`, type.id, createdAt),
      log: db
        .insertInto('log')
        .values(adminLog(actor, 'STRUCTURE_CREATION', `${input.nom} (${type.libelle})`, ctx.request.userAgent)),
    })
    const created = inserted?.results[0]
    if (!created) throw notFound('Unknown parent structure')
    return {
      id: created.id,
      nom: input.nom,
      type: { id: type.id, libelle: type.libelle },
      parent: { id: parent.id, nom: parent.nom },
      path: created.path,
      nbUtilisateurs: 0,
    }
  } catch (error) {
    throw nameRace(error, input.nom)
  }
}

/**
 * What an update must check before it is written, as read with the caller's check: the placement
 * (readPlacement), the structure itself in scope, a free name, a parent that is neither the structure
 * nor below it, and a type its children allow. Only the root has no parent and the root's type, so no
 * administrator can cut a structure (their own scope's root included) out of the tree.
 */
async function checkedUpdate(ctx: Ctx, caller: Caller, input: StructureInput, id: number) {
  const placement = await readPlacement(ctx, caller, input, id)
  const { type, parent, holder, children } = placement
  const current = inScopeOrFail(placement.current)
  if (holder && holder.id !== id) throw nomTaken(holder.nom)
  if (!parent && current.parent_id !== null) throw parentInvalid('Only the root structure has no parent')
  if (parent && (parent.id === id || parent.path.startsWith(current.path)))
    throw parentInvalid('A structure cannot hang below itself or its own sub-tree')
  if (children.some((child) => child.parent_type_id !== type.id))
    throw new BusinessError('STRUCTURE_HAS_CHILD', 409, 'Its child structures need its present type')
  return { ...placement, current }
}

/**
 * The structure `id` when its placement below `parent` (null: it is the root and stays so) still holds
 * as the batch runs: the structure and the parent in the viewer's scope, the parent of the type wanted
 * and not the structure nor one of its descendants by the parent links. Read in the write itself, so
 * that two moves crossing each other (A below B, B below A) cannot both pass the checks read before.
 */
function placementHolds(db: DB, viewer: Viewer, id: number, parent: { id: number; typeId: number } | null) {
  const structure = db
    .selectFrom('structure')
    .select('structure.id')
    .where('structure.id', '=', id)
    .where(pathInScope(db, viewer, sql.ref<string>('structure.path')))
  if (!parent) return structure.where('structure.parent_id', 'is', null)
  const newParent = db
    .selectFrom('structure as new_parent')
    .select('new_parent.id')
    .where('new_parent.id', '=', parent.id)
    .where('new_parent.type_id', '=', parent.typeId)
    .where(pathInScope(db, viewer, sql.ref<string>('new_parent.path')))
  return structure.where(({ exists }) => exists(newParent)).where(sql<SqlBool>`${id} not in ${ancestorsOf(parent.id)}`)
}

/** A structure and its ancestors by the parent links; `union` keeps each once, so a cycle ends the walk. */
const ancestorsOf = (id: number) =>
  sql`(with recursive up(id) as (
      select ${id}
      union
      select s.parent_id from structure s join up on s.id = up.id where s.parent_id is not null
    ) select id from up)`

/**
 * PUT rest/bd/structure: renames, retypes or moves a structure of the caller's scope. The placement is
 * checked again by the write itself (placementHolds), the audit entry written under the same condition,
 * and a move keeps every path of the sub-tree right in the same batch: they are recomputed from the
 * parent links as they stand when the batch runs, so a concurrent move cannot leave a stale prefix.
 */
export async function updateStructure(ctx: Ctx, caller: Caller, input: StructureInput): Promise<Structure> {
  const db = ctx.db
  const id = input.id
  if (!id) throw invalidField('id', 'The structure id is required', 'validation.required')
  const { actor, type, parent, current } = await checkedUpdate(ctx, caller, input, id)

  const moved = (parent?.id ?? null) !== current.parent_id
  const change = [
    current.nom !== input.nom && `${current.nom} → ${input.nom}`,
    current.type_id !== type.id && `${current.type_libelle} → ${type.libelle}`,
    moved && `${current.parent_nom ?? '-'} → ${parent?.nom ?? '-'}`,
  ].filter(Boolean)
  const viewer = viewerOf(actor)
  const holds = placementHolds(db, viewer, id, parent && { id: parent.id, typeId: parent.type_id })
  // The structure as it stands after the change, read at the end of the same batch.
  const after = structureInScopeQuery(db, viewer, id)
  const { updated, read } = await namedBatch(ctx.d1, {
    // Before the update, under its very condition: nothing the insert writes changes what it reads.
    log: adminLogWhen(db, actor, 'STRUCTURE_MODIFICATION', `#${id} ${change.join(', ')}`, ctx.request.userAgent, holds),
    updated: db
      .updateTable('structure')
      .set({ nom: input.nom, type_id: type.id, parent_id: parent?.id ?? null })
      .where('id', '=', id)
      .where(({ exists }) => exists(holds))
      .returning('id'),
    // Rewrites nothing unless the structure's path no longer follows its parent's: a move took place.
    paths: { compile: () => subtreePaths(id).compile(db) },
    read: after,
  }).catch((error) => {
    throw nameRace(error, input.nom)
  })
  if ((updated?.results.length ?? 0) === 0) {
    // The tree changed between the checks and the write: the checks again say how it stands now.
    await checkedUpdate(ctx, caller, input, id)
    throw parentInvalid('The structure or its parent moved meanwhile')
  }
  const [row] = read?.results ?? []
  if (!row) throw notFound('Unknown structure')
  return toStructure(row)
}

/**
 * Recomputes the paths of the sub-tree of `id` from the parent links (one statement, for a batch),
 * when the structure's own path no longer follows its parent's. Each step adds a structure not yet on
 * the path, so even a cycle forced into the links ends the walk instead of looping.
 */
export function subtreePaths(id: number) {
  return sql`with recursive placed(id, path) as (
      select s.id, coalesce((select p.path from structure p where p.id = s.parent_id), '/') || s.id || '/'
      from structure s where s.id = ${id}
    ), tree(id, path) as (
      select placed.id, placed.path from placed join structure s on s.id = placed.id where s.path <> placed.path
      union all
      select c.id, tree.path || c.id || '/' from structure c join tree on c.parent_id = tree.id
      where instr(tree.path, '/' || c.id || '/') = 0
    )
    update structure set path = tree.path from tree where structure.id = tree.id`
}

/**
 * DELETE rest/bd/structure/{id}: only a structure without children (STRUCTURE_HAS_CHILD), posts or
 * registrations (STRUCTURE_HAS_USERS: nothing is orphaned); its functions go with it. The delete
 * re-checks those conditions when it runs, and its audit entry is written only if it took place.
 */
export async function deleteStructure(ctx: Ctx, caller: Caller, id: number): Promise<void> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const hasStructure = db.selectFrom('structure as gone').select('gone.id').where('gone.id', '=', id)
  const hasChild = db.selectFrom('structure as child').select('child.id').where('child.parent_id', '=', id)
  const hasPoste = db.selectFrom('poste').select('poste.id').where('poste.structure_id', '=', id)
  // A registration on the structure, or one waiting in it for the company it typed to be created there.
  const hasRegistration = db
    .selectFrom('utilisateur')
    .select('utilisateur.id')
    .where((eb) =>
      eb.or([
        eb('utilisateur.registration_structure_id', '=', id),
        eb.and([eb('utilisateur.rattachement_id', '=', id), eb('utilisateur.registration_state', '=', 'PENDING')]),
      ]),
    )
  // A webhook subscription on it: its integrator is told of the sub-tree's events, which must not silently stop.
  const hasWebhook = db.selectFrom('webhook').select('webhook.id').where('webhook.structure_id', '=', id)
  const {
    actor,
    row: [row],
    children,
    postes,
    registrations,
    webhooks,
  } = await adminWith(ctx, caller, {
    row: structureInScopeQuery(db, viewer, id, false),
    children: hasChild.limit(1),
    postes: hasPoste.limit(1),
    registrations: hasRegistration.limit(1),
    webhooks: hasWebhook.limit(1),
  })
  const structure = inScopeOrFail(row)
  const refuse = (child: boolean) =>
    child
      ? new BusinessError('STRUCTURE_HAS_CHILD', 409, 'The structure has child structures')
      : new BusinessError('STRUCTURE_HAS_USERS', 409, 'The structure has posts or registrations')
  if (children.length > 0) throw refuse(true)
  if (postes.length > 0 || registrations.length > 0) throw refuse(false)
  if (webhooks.length > 0) {
    throw new BusinessError('STRUCTURE_HAS_WEBHOOK', 409, 'Webhook subscriptions are made on the structure')
  }
  const { deleted } = await namedBatch(ctx.d1, {
    deleted: db
      .deleteFrom('structure')
      .where('id', '=', id)
      .where(({ not, exists }) => not(exists(hasChild)))
      .where(({ not, exists }) => not(exists(hasPoste)))
      .where(({ not, exists }) => not(exists(hasRegistration)))
      .where(({ not, exists }) => not(exists(hasWebhook)))
      .returning('id'),
    log: adminLogWhen(
      db,
      actor,
      'STRUCTURE_SUPPRESSION',
      `${structure.nom} (#${id})`,
      ctx.request.userAgent,
      db.selectNoFrom(sql.lit(1).as('gone')).where(({ not, exists }) => not(exists(hasStructure))),
    ),
  })
  // Something was added to it between the check and the delete.
  if ((deleted?.results.length ?? 0) === 0) throw refuse(false)
}
