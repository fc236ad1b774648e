import { type Expression, type SqlBool, sql } from 'kysely'
import { API_BASE } from '../../../contract/base'
import { SCIM_PORTAL_USER, SCIM_USER, type ScimListQuery, type ScimPoste, type ScimUser } from '../../../contract/scim'
import type { DB } from '../../../db/client'
import { isUserAccount, userListedInScope, type Viewer } from '../../../lib/scope'
import type { Ctx } from '../../../lib/types'
import { adminWith, type Caller, callerValues, liveAdminOf, viewerOf } from '../../core/actor'
import { keepTotal, keptRead } from '../../organisation/user-list'
import { invalidValue, ScimError } from './errors'
import { attributeName, filterSql } from './filter'
import { listResponse, scimWindow } from './page'
import { projected } from './projection'

/**
 * SCIM's Users (RFC 7643 §4.1) read from the portal's: the users of the account's scope (as the user
 * list has them: by their current and future posts, else their structure), not deleted, with their
 * current and future posts in the portal's extension.
 */

/** Where SCIM lives under an origin. */
export const scimBase = (origin: string) => `${origin}${API_BASE}/scim/v2`

/** A user's current and future posts, as the extension's JSON array. */
const postesColumn = (db: DB, today: string) =>
  db
    .selectFrom('poste as p')
    .innerJoin('structure as ps', 'ps.id', 'p.structure_id')
    .innerJoin('fonction as pf', 'pf.id', 'p.fonction_id')
    .select(
      sql<string>`json_group_array(json_object(
        'structure', json_object('value', cast(ps.id as text), 'display', ps.nom),
        'fonction', json_object('value', cast(pf.id as text), 'display', pf.libelle),
        'dateDebut', p.date_debut, 'dateFin', p.date_fin))`.as('postes'),
    )
    .where(sql<SqlBool>`p.utilisateur_id = u.id`)
    .where('p.date_fin', '>=', today)

/** The users of the viewer's scope SCIM shows (not deleted, not a registration waiting), under `u`. */
export function scimUsersQuery(db: DB, viewer: Viewer) {
  return db
    .selectFrom('utilisateur as u')
    .select([
      'u.id',
      'u.external_id',
      'u.login',
      'u.nom',
      'u.prenom',
      'u.mail',
      'u.actif',
      'u.created_at',
      'u.updated_at',
      'u.version',
    ])
    .select(sql<string>`coalesce((${postesColumn(db, viewer.today)}), '[]')`.as('postes'))
    .where('u.supprime', '=', 0)
    .where(isUserAccount('u'))
    .where(userListedInScope(db, viewer, { from: 'users', withPostless: true }, 'u'))
}

export type ScimUserRow = {
  id: number
  external_id: string | null
  login: string
  nom: string
  prenom: string
  mail: string
  actif: number
  created_at: string
  updated_at: string
  version: number
  postes: string
}

/** The weak ETag of a user's representation (`version`, kept by migration 0027's triggers). */
export const userVersion = (version: number) => `W/"${version}"`

export function toScimUser(row: ScimUserRow, origin: string): ScimUser {
  const user: ScimUser = {
    schemas: [SCIM_USER, SCIM_PORTAL_USER],
    id: String(row.id),
    userName: row.login,
    name: { givenName: row.prenom, familyName: row.nom, formatted: `${row.prenom} ${row.nom}` },
    displayName: `${row.prenom} ${row.nom}`,
    emails: [{ value: row.mail, type: 'work', primary: true }],
    active: row.actif === 1,
    [SCIM_PORTAL_USER]: { postes: JSON.parse(row.postes) as ScimPoste[] },
    meta: {
      resourceType: 'User',
      created: row.created_at,
      lastModified: row.updated_at,
      location: `${scimBase(origin)}/Users/${row.id}`,
      version: userVersion(row.version),
    },
  }
  if (row.external_id !== null) user.externalId = row.external_id
  return user
}

/** The columns a list may be sorted by (RFC 7644 §3.4.2.3), by their normalised names. */
const SORTS: Record<string, Expression<unknown>> = {
  id: sql.ref('u.id'),
  username: sql`u.login collate nocase`,
  externalid: sql.ref('u.external_id'),
  'name.familyname': sql`u.nom collate nocase`,
  'name.givenname': sql`u.prenom collate nocase`,
  emails: sql`u.mail collate nocase`,
  'emails.value': sql`u.mail collate nocase`,
  'meta.created': sql.ref('u.created_at'),
  'meta.lastmodified': sql.ref('u.updated_at'),
}

/** GET Users: a page of the scope's users matching the filter, sorted, with the total. */
export async function listScimUsers(ctx: Ctx, caller: Caller, query: ScimListQuery) {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const { startIndex, count, order } = scimWindow(query)
  const filter = query.filter === undefined || query.filter.trim() === '' ? null : filterSql(query.filter)
  const sortKey = query.sortBy ? attributeName(query.sortBy) : 'id'
  const sort = SORTS[sortKey]
  if (!sort) throw invalidValue(`Users cannot be sorted by ${query.sortBy}`)
  const matching = filter === null ? scimUsersQuery(db, viewer) : scimUsersQuery(db, viewer).where(filter)
  const counted = matching.clearSelect().select((eb) => eb.fn.countAll<number>().as('n'))
  // The scope's whole count is kept between writes, as the user list's is (a root account's is 100 000 users); a
  // filtered one, which a provisioning client makes selective (`userName eq`), is counted each time.
  const key = JSON.stringify(['scim', viewer.today, viewer.id, viewer.domain])
  // A filtered page carries its count (a window over the matching rows): one statement fewer. (Not the whole scope's:
  // the window would count every user for each page.)
  const page =
    count === 0
      ? null
      : matching
          .select(
            filter === null
              ? sql<number | null>`null`.as('matching_total')
              : sql<number>`count(*) over ()`.as('matching_total'),
          )
          .orderBy(sort, order)
          .orderBy('u.id', order)
          .limit(count)
          .offset(startIndex - 1)
  const { rows, total, kept } = await adminWith(ctx, caller, {
    rows: page,
    total: filter !== null && page === null ? counted : null,
    keep:
      filter === null
        ? keepTotal(db, viewer, {
            key,
            count: sql<number>`(${counted})`,
            allowed: liveAdminOf(db, callerValues(caller)),
          })
        : null,
    kept: filter === null ? keptRead(db, { key }) : null,
  })
  const resources = (rows ?? []).map((row) => projected(toScimUser(row, ctx.request.origin), query, SCIM_USER))
  const n =
    filter === null
      ? (kept?.[0]?.total ?? 0)
      : page === null
        ? (total?.[0]?.n ?? 0)
        : (rows?.[0]?.matching_total ??
          // A window past the last match says no count: asked on its own (a client reading past the end).
          (startIndex === 1 ? 0 : ((await counted.executeTakeFirst())?.n ?? 0)))
  return listResponse(resources, n, startIndex)
}

/** The row of one user of the scope, or 404. */
export async function scimUserRow(ctx: Ctx, caller: Caller, id: string): Promise<ScimUserRow> {
  const userId = /^\d{1,15}$/.test(id) ? Number(id) : 0
  const { rows } = await adminWith(ctx, caller, {
    rows: scimUsersQuery(ctx.db, viewerOf(caller)).where('u.id', '=', userId),
  })
  const row = rows[0]
  if (!row) throw new ScimError(404, `No user ${id} in this account's scope`)
  return row
}

/** GET Users/{id}. */
export async function getScimUser(ctx: Ctx, caller: Caller, id: string, query: ScimListQuery) {
  const row = await scimUserRow(ctx, caller, id)
  return { user: projected(toScimUser(row, ctx.request.origin), query, SCIM_USER), version: userVersion(row.version) }
}
