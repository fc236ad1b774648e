import { type SqlBool, sql } from 'kysely'
import { SCIM_GROUP, type ScimGroup, type ScimListQuery } from '../../../contract/machines/scim'
import type { DB } from '../../../db/client'
import { isUserAccount, scopeStructureIds, type Viewer } from '../../../lib/scope'
import type { Ctx } from '../../../lib/types'
import { adminWith, type Caller, viewerOf } from '../../core/actor'
import { invalidValue, ScimError } from './errors'
import { attributeName, type Column, filterSql } from './filter'
import { listResponse, scimWindow } from './page'
import { projected } from './projection'
import { scimBase } from './users'

/**
 * SCIM's Groups (RFC 7643 §4.2), read-only: one per function of a structure in scope (a post is a
 * user in a function of a structure, and a function belongs to its structure), named "Structure /
 * Fonction", its members the users with a current post in it. Posts carry dates, so they are written
 * through the user (the portal's extension), never as group memberships.
 */

const DISPLAY_NAME = sql<string>`(s.nom || ' / ' || f.libelle)`

/** What a filter on groups may name. */
const GROUP_ATTRIBUTES: Record<string, Column> = {
  id: { sql: sql.ref('f.id'), kind: 'id' },
  displayname: { sql: DISPLAY_NAME, kind: 'text' },
}

/** A group's members: the users of the scope with a current post in the function (as JSON). */
const membersColumn = (db: DB, today: string) =>
  db
    .selectFrom('poste as m')
    .innerJoin('utilisateur as mu', 'mu.id', 'm.utilisateur_id')
    .select(
      sql<string>`json_group_array(json_object('value', cast(mu.id as text), 'display', mu.prenom || ' ' || mu.nom))`.as(
        'members',
      ),
    )
    .where(sql<SqlBool>`m.fonction_id = f.id`)
    .where('m.date_debut', '<=', today)
    .where('m.date_fin', '>=', today)
    .where('mu.supprime', '=', 0)
    .where(isUserAccount('mu'))

/** The functions of the structures in scope, as groups (members read only when answered). */
function groupsQuery(db: DB, viewer: Viewer, withMembers: boolean) {
  return db
    .selectFrom('fonction as f')
    .innerJoin('structure as s', 's.id', 'f.structure_id')
    .select(['f.id', DISPLAY_NAME.as('display_name')])
    .$if(withMembers, (q) => q.select(sql<string>`coalesce((${membersColumn(db, viewer.today)}), '[]')`.as('members')))
    .where('f.structure_id', 'in', scopeStructureIds(db, viewer))
}

type GroupRow = { id: number; display_name: string; members?: string }

function toGroup(row: GroupRow, origin: string): ScimGroup {
  const base = scimBase(origin)
  const group: ScimGroup = {
    schemas: [SCIM_GROUP],
    id: String(row.id),
    displayName: row.display_name,
    meta: { resourceType: 'Group', location: `${base}/Groups/${row.id}` },
  }
  if (row.members !== undefined) {
    group.members = (JSON.parse(row.members) as { value: string; display: string }[]).map((member) => ({
      ...member,
      $ref: `${base}/Users/${member.value}`,
    }))
  }
  return group
}

/** Whether the answer shows the members (they are read only then: a large function holds thousands). */
const membersAnswered = (query: ScimListQuery) => {
  const excluded = (query.excludedAttributes ?? '').split(',').map((name) => attributeName(name.trim()))
  const asked = query.attributes?.trim()
    ? query.attributes.split(',').some((name) => attributeName(name.trim()).split('.')[0] === 'members')
    : true
  return asked && !excluded.includes('members')
}

/** GET Groups. */
export async function listScimGroups(ctx: Ctx, caller: Caller, query: ScimListQuery) {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const { startIndex, count, order } = scimWindow(query)
  const filter = query.filter?.trim() ? filterSql(query.filter, GROUP_ATTRIBUTES) : null
  const sortKey = query.sortBy ? attributeName(query.sortBy) : 'id'
  if (sortKey !== 'id' && sortKey !== 'displayname') throw invalidValue(`Groups cannot be sorted by ${query.sortBy}`)
  const all = groupsQuery(db, viewer, membersAnswered(query))
  const matching = filter === null ? all : all.where(filter)
  const { rows, total } = await adminWith(ctx, caller, {
    rows:
      count === 0
        ? null
        : matching
            .orderBy(sortKey === 'id' ? sql`f.id` : sql`${DISPLAY_NAME} collate nocase`, order)
            .orderBy('f.id', order)
            .limit(count)
            .offset(startIndex - 1),
    total: matching.clearSelect().select((eb) => eb.fn.countAll<number>().as('n')),
  })
  const resources = (rows ?? []).map((row) => projected(toGroup(row, ctx.request.origin), query, SCIM_GROUP))
  return listResponse(resources, total[0]?.n ?? 0, startIndex)
}

/** GET Groups/{id}. */
export async function getScimGroup(ctx: Ctx, caller: Caller, id: string, query: ScimListQuery) {
  const groupId = /^\d{1,15}$/.test(id) ? Number(id) : 0
  const { rows } = await adminWith(ctx, caller, {
    rows: groupsQuery(ctx.db, viewerOf(caller), membersAnswered(query)).where('f.id', '=', groupId),
  })
  const row = rows[0]
  if (!row) throw new ScimError(404, `No group ${id} in this account's scope`)
  return projected(toGroup(row, ctx.request.origin), query, SCIM_GROUP)
}

/** A write on Groups: not done here, and said so. */
export const groupsReadOnly = () =>
  new ScimError(
    501,
    "Groups are read-only: a post has dates, so it is written through the user (the extension's postes, urn:ietf:params:scim:schemas:extension:portail:2.0:User)",
  )
