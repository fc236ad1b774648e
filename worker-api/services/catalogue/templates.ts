import { type Expression, type SqlBool, sql } from 'kysely'
import type { TemplateFonction, TemplateInput, Templates } from '../../contract/catalogue/catalogue'
import { type DB, insertWhen, namedBatch } from '../../db/client'
import { forbidden, invalidField, notFound } from '../../lib/errors'
import type { Ctx } from '../../lib/types'
import { type Caller, rootAdminWith, viewerOf } from '../core/actor'
import { adminLogWhen } from '../core/audit'
import { rootHolds } from '../core/root-admin'
import { structureTypesQuery } from '../core/structure-types'

/**
 * The function templates of the structure types: the functions (and what each grants) a new
 * structure of a type starts with, set by root administrators. A structure created in the portal, or
 * a carrier's company created at its authorisation, copies its type's template in the batch that
 * creates it (`copyTemplate`); from then on they are the structure's own functions.
 */

/** A type's template (every type's without `typeId`), in its order, each function's applications as one JSON column. */
function templateQuery(db: DB, typeId?: number) {
  const query = db
    .selectFrom('modele_fonction as m')
    .select(['m.id', 'm.type_id', 'm.libelle'])
    .select((eb) =>
      eb
        .selectFrom('modele_fonction_application as ma')
        .innerJoin('application as a', 'a.id', 'ma.application_id')
        .select(sql<string>`json_group_array(json_object('id', a.id, 'libelle', a.libelle))`.as('j'))
        .whereRef('ma.modele_id', '=', 'm.id')
        .as('applications'),
    )
    .orderBy('m.position')
  return typeId === undefined ? query : query.where('m.type_id', '=', typeId)
}

type TemplateRow = { libelle: string; applications: string | null }

const toTemplate = (rows: TemplateRow[]): TemplateFonction[] =>
  rows.map((row) => ({
    libelle: row.libelle,
    applications: (JSON.parse(row.applications ?? '[]') as { id: number; libelle: string }[]).sort((a, b) =>
      a.libelle.localeCompare(b.libelle, 'fr'),
    ),
  }))

const typeQuery = (db: DB, typeId: number) =>
  db.selectFrom('type_structure').select(['id', 'libelle']).where('id', '=', typeId)

/** GET rest/bd/typestructure/{id}/fonctions: the template of a structure type (root administrators). */
export async function getTemplate(ctx: Ctx, caller: Caller, typeId: number): Promise<TemplateFonction[]> {
  const db = ctx.db
  const {
    type: [type],
    rows,
  } = await rootAdminWith(ctx, caller, { type: typeQuery(db, typeId), rows: templateQuery(db, typeId) })
  if (!type) throw notFound('Unknown structure type')
  return toTemplate(rows)
}

/**
 * GET rest/bd/typestructure/fonctions: every type's template and the catalogue to choose grants from
 * (root administrators), in the one batch of the caller's check.
 */
export async function getTemplates(ctx: Ctx, caller: Caller): Promise<Templates> {
  const db = ctx.db
  const { types, rows, applications } = await rootAdminWith(ctx, caller, {
    types: structureTypesQuery(db),
    rows: templateQuery(db),
    applications: db
      .selectFrom('application')
      .select(['id', 'libelle', 'actif'])
      .orderBy(sql`libelle collate nocase`)
      .orderBy('id'),
  })
  return {
    types: types.map((type) => ({
      id: type.id,
      libelle: type.libelle,
      fonctions: toTemplate(rows.filter((row) => row.type_id === type.id)),
    })),
    applications: applications.map((a) => ({ id: a.id, libelle: a.libelle, actif: a.actif === 1 })),
  }
}

/**
 * PUT rest/bd/typestructure/{id}/fonctions: replaces a type's template, in the order given, with its
 * audit entry; every statement written only while the caller is still a root administrator. The
 * structures already created keep their functions.
 */
export async function putTemplate(
  ctx: Ctx,
  caller: Caller,
  typeId: number,
  input: TemplateInput,
): Promise<TemplateFonction[]> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const ids = [...new Set(input.flatMap((f) => f.applications.map((a) => a.id)))]
  const {
    actor,
    type: [type],
    applications,
  } = await rootAdminWith(ctx, caller, {
    type: typeQuery(db, typeId),
    applications: db
      .selectFrom('application')
      .select('id')
      .where(ids.length > 0 ? sql<SqlBool>`id in (${sql.join(ids)})` : sql<SqlBool>`0`),
  })
  if (!type) throw notFound('Unknown structure type')
  if (applications.length < ids.length) {
    const known = new Set(applications.map((a) => a.id))
    const index = input.findIndex((f) => f.applications.some((a) => !known.has(a.id)))
    throw invalidField(`${index}.applications`, 'Unknown application', 'validation.unknown')
  }
  const guard = rootHolds(db, viewer)
  const modele = (libelle: string) =>
    sql<number>`(select id from modele_fonction where type_id = ${typeId} and libelle = ${libelle})`
  const grants = input.flatMap((fonction) => {
    const granted = [...new Set(fonction.applications.map((a) => a.id))]
    if (granted.length === 0) return []
    return [
      db
        .insertInto('modele_fonction_application')
        .columns(['modele_id', 'application_id'])
        .expression(
          db
            .selectFrom('application as a')
            .select([modele(fonction.libelle).as('modele_id'), 'a.id as application_id'])
            .where(sql<SqlBool>`a.id in (${sql.join(granted)})`)
            .where(({ exists }) => exists(guard)),
        ),
    ]
  })
  const results = await namedBatch(ctx.d1, {
    log: adminLogWhen(
      db,
      actor,
      'MODELE_FONCTIONS',
      `${type.libelle} : ${input.map((f) => f.libelle).join(', ') || '-'}`,
      ctx.request.userAgent,
      guard,
    ),
    emptied: db
      .deleteFrom('modele_fonction')
      .where('type_id', '=', typeId)
      .where(({ exists }) => exists(guard)),
    fonctions: input.map((fonction, position) =>
      insertWhen(db, 'modele_fonction', { type_id: typeId, libelle: fonction.libelle, position }, guard),
    ),
    grants,
    template: templateQuery(db, typeId),
  })
  // The caller was no longer a root administrator when the batch ran: nothing was written.
  if ((results.log?.meta.changes ?? 0) === 0) throw forbidden('Root administrators only')
  return toTemplate((results.template?.results ?? []) as TemplateRow[])
}

/**
 * The two statements that give a structure created in the same batch its type's template: its
 * functions, then what each grants. `structure` is an expression of the new structure's id; the copy
 * takes place only if that structure was created at `createdAt` (by this batch: a structure of that
 * name created meanwhile by another request keeps its own functions).
 */
export function copyTemplate(db: DB, structure: Expression<number | null>, typeId: number, createdAt: string) {
  const justCreated = db
    .selectFrom('structure as created')
    .select('created.id')
    .where(sql<SqlBool>`created.id = ${structure}`)
    .where('created.created_at', '=', createdAt)
  return [
    db
      .insertInto('fonction')
      .columns(['libelle', 'structure_id'])
      .expression(
        db
          .selectFrom('modele_fonction as m')
          .select(['m.libelle', sql<number>`${structure}`.as('structure_id')])
          .where('m.type_id', '=', typeId)
          .where(({ exists }) => exists(justCreated))
          .orderBy('m.position'),
      ),
    db
      .insertInto('fonction_application')
      .columns(['fonction_id', 'application_id'])
      .expression(
        db
          .selectFrom('modele_fonction_application as ma')
          .innerJoin('modele_fonction as m', 'm.id', 'ma.modele_id')
          .innerJoin('fonction as f', (join) =>
            join.on(sql<SqlBool>`f.structure_id = ${structure}`).onRef('f.libelle', '=', 'm.libelle'),
          )
          .select(['f.id as fonction_id', 'ma.application_id'])
          .where('m.type_id', '=', typeId)
          .where(({ exists }) => exists(justCreated)),
      ),
  ]
}
