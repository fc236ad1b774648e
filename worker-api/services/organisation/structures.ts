import { type SqlBool, sql } from 'kysely'
import type { STRUCTURE_SORTS, Structure, TypeStructure } from '../../contract/organisation/structure'
import { type DB, prepared } from '../../db/client'
import { BusinessError, forbidden, notFound } from '../../lib/errors'
import { containsPattern, type PageQuery, pageWindow, sortOf, uniqueViolation } from '../../lib/query'
import {
  inScopeColumn,
  scopeStructureIds,
  type Viewer,
  type ViewerValues,
  viewerIn,
  viewerValues,
} from '../../lib/scope'
import { likePattern } from '../../lib/search-text'
import type { Ctx } from '../../lib/types'
import { adminWith, type Caller, viewerOf } from '../core/actor'
import { structureTypesQuery } from '../core/structure-types'

export const nomTaken = (nom: string) =>
  new BusinessError('STRUCTURE_NOM_ALREADY_USED', 409, 'This structure name is already used', [nom])
/** A write refused by the unique index: another request took the name meanwhile; the same answer. */
export const nameRace = (error: unknown, nom: string) => (uniqueViolation(error) ? nomTaken(nom) : error)
export const parentInvalid = (message: string) => new BusinessError('STRUCTURE_PARENT_INVALID', 400, message)

/** The structure holding a name, whatever its case (names are unique that way). */
export const nameHolder = (db: DB, nom: string) =>
  db.selectFrom('structure').select(['id', 'nom']).where(sql<SqlBool>`nom = ${nom} collate nocase`)

/** The structures with their type and parent, as spec §3 shapes them; `nbUtilisateurs` on demand. */
export function structuresQuery(db: DB, viewer: Viewer, withUsers: boolean) {
  return db
    .selectFrom('structure as s')
    .innerJoin('type_structure as t', 't.id', 's.type_id')
    .leftJoin('structure as sp', 'sp.id', 's.parent_id')
    .select([
      's.id',
      's.nom',
      's.path',
      's.type_id',
      't.libelle as type_libelle',
      's.parent_id',
      'sp.nom as parent_nom',
    ])
    .select((eb) => {
      const count = eb
        .selectFrom('poste as up')
        .innerJoin('utilisateur as uu', 'uu.id', 'up.utilisateur_id')
        .select(sql<number>`count(distinct up.utilisateur_id)`.as('n'))
        .whereRef('up.structure_id', '=', 's.id')
        .where('up.date_fin', '>=', viewer.today)
        .where('uu.supprime', '=', 0)
      return (withUsers ? sql<number | null>`${count}` : sql<number | null>`null`).as('nb_utilisateurs')
    })
}

export type StructureRow = {
  id: number
  nom: string
  path: string
  type_id: number
  type_libelle: string
  parent_id: number | null
  parent_nom: string | null
  nb_utilisateurs: number | null
}

export function toStructure(row: StructureRow): Structure {
  return {
    id: row.id,
    nom: row.nom,
    type: { id: row.type_id, libelle: row.type_libelle },
    parent: row.parent_id === null ? null : { id: row.parent_id, nom: row.parent_nom ?? '' },
    path: row.path,
    nbUtilisateurs: row.nb_utilisateurs,
  }
}

/**
 * What the list's statements bind (`prepared`): the viewer and the name searched, as a pattern. The viewer's
 * domain, whether users are counted and whether a name is searched decide the SQL.
 */
type ListValues = ViewerValues & { users: boolean; searched: boolean; pattern?: string }
const LIST_SHAPE = ['domain', 'users', 'searched'] as const

/** The same filter for the page and for the total: the scope, and the name searched. */
const listFilter = (db: DB, values: ListValues) =>
  sql<SqlBool>`s.id in ${scopeStructureIds(db, viewerIn(values))} and ${
    values.searched ? containsPattern(['s.nom'], values.pattern ?? '') : sql`1`
  }`

const pageStatement = prepared(
  (
    db,
    values: ListValues & {
      sort: 'nom' | 'path'
      direction: 'asc' | 'desc'
      paged: boolean
      size?: number
      offset?: number
    },
  ) => {
    const filtered = structuresQuery(db, viewerIn(values), values.users).where(listFilter(db, values))
    const sorted =
      values.sort === 'nom'
        ? filtered.orderBy(sql`s.nom collate nocase`, values.direction).orderBy('s.path')
        : filtered.orderBy('s.path', values.direction)
    return values.paged ? sorted.limit(values.size ?? 0).offset(values.offset ?? 0) : sorted
  },
  [...LIST_SHAPE, 'sort', 'direction', 'paged'],
)

const countStatement = prepared(
  (db, values: ListValues) =>
    db
      .selectFrom('structure as s')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where(listFilter(db, values)),
  LIST_SHAPE,
)

/**
 * GET rest/bd/structure/user/me: the structures in the caller's scope, sorted by path (spec §5),
 * filtered by name; one page of them when `page` is given. The total comes with it, in the same round
 * trip as the caller's check.
 */
export async function listStructures(
  ctx: Ctx,
  caller: Caller,
  query: PageQuery & {
    users?: 'true' | 'false' | undefined
    q?: string | undefined
    tri?: (typeof STRUCTURE_SORTS)[number] | undefined
  },
): Promise<{ items: Structure[]; total: number }> {
  const db = ctx.db
  const values: ListValues = {
    ...viewerValues(viewerOf(caller)),
    users: query.users === 'true',
    searched: Boolean(query.q),
    // A value each use binds is one its statement holds: none for a list not searched, or not paged.
    ...(query.q ? { pattern: likePattern(query.q) } : {}),
  }
  const { key: sort, direction } = sortOf(query.tri, 'path')
  const paged = query.page !== undefined
  const page = { ...values, sort, direction, paged, ...(paged ? pageWindow(query) : {}) }
  const {
    rows,
    counted: [counted],
  } = await adminWith(ctx, caller, { rows: pageStatement(db, page), counted: countStatement(db, values) })
  return { items: rows.map(toStructure), total: counted?.total ?? 0 }
}

/** The structure `id` with whether it lies in the viewer's scope. */
export function structureInScopeQuery(db: DB, viewer: Viewer, id: number, withUsers = true) {
  return structuresQuery(db, viewer, withUsers)
    .select(inScopeColumn(db, viewer, 's'))
    .where('s.id', '=', id)
}

export function inScopeOrFail<R extends { in_scope: number }>(row: R | undefined, what = 'Unknown structure'): R {
  if (!row) throw notFound(what)
  if (!row.in_scope) throw forbidden('This structure is outside your scope')
  return row
}

/** GET rest/bd/structure/{id}: one structure of the caller's scope, with its users' count. */
export async function getStructure(ctx: Ctx, caller: Caller, id: number): Promise<Structure> {
  const db = ctx.db
  const {
    row: [row],
  } = await adminWith(ctx, caller, { row: structureInScopeQuery(db, viewerOf(caller), id) })
  return toStructure(inScopeOrFail(row))
}

/** GET rest/bd/structure/nom/{nom}: the name as a structure holds it (any case), or null when free. */
export async function structureNom(ctx: Ctx, caller: Caller, nom: string): Promise<{ nom: string | null }> {
  const {
    row: [row],
  } = await adminWith(ctx, caller, { row: nameHolder(ctx.db, nom.trim()) })
  return { nom: row?.nom ?? null }
}

/**
 * GET rest/bd/typestructure/me: the types a structure can be given, from the top of the hierarchy
 * down. The root's type is not among them: a structure always has a parent (spec §5), and the root
 * is the only one without.
 */
export async function structureTypes(ctx: Ctx, caller: Caller): Promise<TypeStructure[]> {
  const { rows } = await adminWith(ctx, caller, { rows: structureTypesQuery(ctx.db) })
  return rows.map(({ id, libelle }) => ({ id, libelle }))
}

/**
 * GET rest/bd/structure/parent/{typeId}: the structures a structure of this type may hang below
 * (those of its parent type, DESIGN §4) inside the caller's scope, sorted by path.
 */
export async function parentCandidates(ctx: Ctx, caller: Caller, typeId: number): Promise<Structure[]> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const {
    type: [type],
    rows,
  } = await adminWith(ctx, caller, {
    type: db.selectFrom('type_structure').select(['id', 'parent_type_id']).where('id', '=', typeId),
    rows: structuresQuery(db, viewer, false)
      .where(
        's.type_id',
        '=',
        db.selectFrom('type_structure as wanted').select('wanted.parent_type_id').where('wanted.id', '=', typeId),
      )
      .where('s.id', 'in', scopeStructureIds(db, viewer))
      .orderBy('s.path'),
  })
  if (!type) throw notFound('Unknown structure type')
  return rows.map(toStructure)
}

/**
 * GET rest/bd/structure/{id}/parents: the structures the structure `id` (of the caller's scope) may
 * move under — of its own type's parent type, inside the caller's scope, outside its own sub-tree —
 * sorted by path. Its type is read from the structure itself, in the same statement: one round trip.
 */
export async function moveCandidates(ctx: Ctx, caller: Caller, id: number): Promise<Structure[]> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const moved = db.selectFrom('structure as moved').where('moved.id', '=', id)
  const {
    structure: [structure],
    rows,
  } = await adminWith(ctx, caller, {
    structure: structureInScopeQuery(db, viewer, id, false),
    rows: structuresQuery(db, viewer, false)
      .where(
        's.type_id',
        '=',
        moved.innerJoin('type_structure as own', 'own.id', 'moved.type_id').select('own.parent_type_id'),
      )
      .where('s.id', 'in', scopeStructureIds(db, viewer))
      .where(({ not, exists }) =>
        not(exists(moved.select('moved.id').where(sql<SqlBool>`substr(s.path, 1, length(moved.path)) = moved.path`))),
      )
      .orderBy('s.path'),
  })
  inScopeOrFail(structure)
  return rows.map(toStructure)
}

export const fonctionsQuery = (db: DB, structureId: number) =>
  db.selectFrom('fonction').select(['id', 'libelle']).where('structure_id', '=', structureId).orderBy('libelle')
