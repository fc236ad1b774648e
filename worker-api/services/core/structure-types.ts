import { sql } from 'kysely'
import type { DB } from '../../db/client'

/** The structure types, from the top of the hierarchy down, with each one's depth. */
function typesQuery(db: DB) {
  return db
    .withRecursive('depths(id, depth)', (q) =>
      q
        .selectFrom('type_structure')
        .select(['id', sql<number>`0`.as('depth')])
        .where('parent_type_id', 'is', null)
        .unionAll(
          q
            .selectFrom('type_structure as child')
            .innerJoin('depths', 'depths.id', 'child.parent_type_id')
            .select(['child.id', sql<number>`depths.depth + 1`.as('depth')]),
        ),
    )
    .selectFrom('type_structure as t')
    .innerJoin('depths', 'depths.id', 't.id')
    .select(['t.id', 't.libelle', 't.parent_type_id'])
    .orderBy('depths.depth')
    .orderBy('t.libelle')
}

/** The types a structure may be given: every one but the root's (a structure always has a parent). */
export const structureTypesQuery = (db: DB) => typesQuery(db).where('t.parent_type_id', 'is not', null)
