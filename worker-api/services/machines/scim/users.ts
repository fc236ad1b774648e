import { type Expression, type SqlBool, sql } from 'kysely'
import { API_BASE } from '../../../contract/base'
import { SCIM_PORTAL_USER, SCIM_USER, type ScimListQuery, type ScimUser } from '../../../contract/machines/scim'
import { type DB, namedBatch, prepared, type RowOf } from '../../../db/client'
import {
  isUserAccount,
  userListedInScope,
  type Viewer,
  type ViewerValues,
  viewerIn,
  viewerValues,
} from '../../../lib/scope'
import type { Ctx } from '../../../lib/types'
import { adminWith, type Caller, type CallerValues, callerValues, liveAdminOf, viewerOf } from '../../core/actor'
import { keepTotal, keptRead } from '../../organisation/user-list'
import { invalidValue, ScimError } from './errors'
import { attributeName, filterForm, fromForm } from './filter'
import { listText, scimWindow } from './page'
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

/**
 * A user's representation (RFC 7643 §4.1, `ScimUser`), written by SQLite as JSON text: a page of 100 users
 * comes out of D1 ready to send, with nothing parsed or serialised again in the Worker. `base` is
 * `scimBase` of the request's origin (a bound value); `externalId` is left out when the user has none.
 */
const resourceColumn = (db: DB, today: string, base: string) =>
  sql<string>`json_patch(json_object(
    'schemas', json_array(${sql.lit(SCIM_USER)}, ${sql.lit(SCIM_PORTAL_USER)}),
    'id', cast(u.id as text),
    'userName', u.login,
    'name', json_object('givenName', u.prenom, 'familyName', u.nom, 'formatted', u.prenom || ' ' || u.nom),
    'displayName', u.prenom || ' ' || u.nom,
    'emails', json_array(json_object('value', u.mail, 'type', 'work', 'primary', json('true'))),
    'active', json(iif(u.actif = 1, 'true', 'false')),
    ${sql.lit(SCIM_PORTAL_USER)}, json_object('postes', json(coalesce((${postesColumn(db, today)}), '[]'))),
    'meta', json_object(
      'resourceType', 'User',
      'created', u.created_at,
      'lastModified', u.updated_at,
      'location', ${base} || '/Users/' || u.id,
      'version', 'W/"' || u.version || '"')
  ), json_object('externalId', u.external_id))`

/** The users of the viewer's scope SCIM shows (not deleted, not a registration waiting), under `u`. */
const scopeUsers = (db: DB, viewer: Viewer) =>
  db
    .selectFrom('utilisateur as u')
    .where('u.supprime', '=', 0)
    .where(isUserAccount('u'))
    .where(userListedInScope(db, viewer, { from: 'users', withPostless: true }, 'u'))

/** The scope's users with what a write checks and their representation (`resource`; `base`: `scimBase`). */
export function scimUsersQuery(db: DB, viewer: Viewer, base: string) {
  return scopeUsers(db, viewer)
    .select(['u.id', 'u.external_id', 'u.login', 'u.nom', 'u.prenom', 'u.mail', 'u.actif', 'u.version'])
    .select(resourceColumn(db, viewer.today, base).as('resource'))
}

export type ScimUserRow = RowOf<ReturnType<typeof scimUsersQuery>>

/** The weak ETag of a user's representation (`version`, kept by migration 0027's triggers). */
export const userVersion = (version: number) => `W/"${version}"`

export const toScimUser = (row: { resource: string }): ScimUser => JSON.parse(row.resource) as ScimUser

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

/** A filter's values, as the named values of a prepared statement. */
type FilterValues = { [value: `f${number}`]: unknown }
const filterValues = (values: readonly unknown[]): FilterValues =>
  Object.fromEntries(values.map((value, index) => [`f${index}`, value]))
const filterIn = (filter: string, values: FilterValues) =>
  filter === '' ? null : fromForm(filter, (index) => values[`f${index}`])

/** The scope's users that match a filter's form (`filterForm`; none: '') under `u`. */
const matchingUsers = (db: DB, values: ViewerValues & FilterValues & { filter: string }) => {
  const filter = filterIn(values.filter, values)
  const users = scopeUsers(db, viewerIn(values))
  return filter === null ? users : users.where(filter)
}

/**
 * A page of the users that match, sorted, compiled once per filter's form and sort (the values bound at
 * each call): a filtered page carries its count (a window over the matching rows, one statement fewer;
 * not the whole scope's, which the window would count for each page).
 */
const pageStatement = prepared(
  (
    db,
    values: ViewerValues &
      FilterValues & {
        filter: string
        sort: string
        order: 'asc' | 'desc'
        count: number
        offset: number
        base: string
      },
  ) =>
    matchingUsers(db, values)
      .select(resourceColumn(db, values.today, values.base).as('resource'))
      .select(
        values.filter === ''
          ? sql<number | null>`null`.as('matching_total')
          : sql<number>`count(*) over ()`.as('matching_total'),
      )
      .orderBy(SORTS[values.sort] ?? sql.ref('u.id'), values.order)
      .orderBy('u.id', values.order)
      .limit(values.count)
      .offset(values.offset),
  ['domain', 'filter', 'sort', 'order'],
)

/** How many users match (a page of none, or a window past the last match). */
const countOf = (db: DB, values: ViewerValues & FilterValues & { filter: string }) =>
  matchingUsers(db, values).select((eb) => eb.fn.countAll<number>().as('n'))

const countStatement = prepared(countOf, ['domain', 'filter'])

/** The scope's whole count, kept between writes as the user list's is (a root account's is 100 000 users). */
const keepStatement = prepared(
  (db, values: ViewerValues & CallerValues & { key: string }) =>
    keepTotal(db, viewerIn(values), {
      key: values.key,
      count: sql<number>`(${countOf(db, { ...values, filter: '' })})`,
      allowed: liveAdminOf(db, values),
    }),
  ['domain'],
)

/** GET Users: a page of the scope's users matching the filter, sorted, with the total. */
export async function listScimUsers(ctx: Ctx, caller: Caller, query: ScimListQuery) {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const { startIndex, count, order } = scimWindow(query)
  const form = query.filter === undefined || query.filter.trim() === '' ? null : filterForm(db, query.filter)
  const sort = query.sortBy ? attributeName(query.sortBy) : 'id'
  if (!SORTS[sort]) throw invalidValue(`Users cannot be sorted by ${query.sortBy}`)
  const matching = { ...viewerValues(viewer), filter: form?.text ?? '', ...filterValues(form?.values ?? []) }
  const counted = countStatement(db, matching)
  // A provisioning client makes a filter selective (`userName eq`): its count comes with its page.
  const key = JSON.stringify(['scim', viewer.today, viewer.id, viewer.domain])
  const base = scimBase(ctx.request.origin)
  const page = count === 0 ? null : pageStatement(db, { ...matching, sort, order, count, offset: startIndex - 1, base })
  const { rows, total, kept } = await adminWith(ctx, caller, {
    rows: page,
    total: form !== null && page === null ? counted : null,
    keep: form === null ? keepStatement(db, { ...viewerValues(viewer), ...callerValues(caller), key }) : null,
    kept: form === null ? keptRead(db, { key }) : null,
  })
  // Each resource is SQLite's JSON text, sent as it is unless the client asked for some attributes only.
  const projecting = Boolean(query.attributes?.trim() || query.excludedAttributes?.trim())
  const resources = (rows ?? []).map((row) =>
    projecting ? JSON.stringify(projected(toScimUser(row), query, SCIM_USER)) : row.resource,
  )
  const n =
    form === null
      ? (kept?.[0]?.total ?? 0)
      : page === null
        ? (total?.[0]?.n ?? 0)
        : (rows?.[0]?.matching_total ??
          // A window past the last match says no count: asked on its own (a client reading past the end).
          (startIndex === 1 ? 0 : ((await namedBatch(ctx.d1, { counted })).counted?.results[0]?.n ?? 0)))
  return listText(resources, n, startIndex)
}

/** One user of the scope, compiled once. */
const oneUser = prepared(
  (db, values: ViewerValues & { userId: number; base: string }) =>
    scimUsersQuery(db, viewerIn(values), values.base).where('u.id', '=', values.userId),
  ['domain'],
)

/** The row of one user of the scope, or 404. */
export async function scimUserRow(ctx: Ctx, caller: Caller, id: string): Promise<ScimUserRow> {
  const userId = /^\d{1,15}$/.test(id) ? Number(id) : 0
  const { rows } = await adminWith(ctx, caller, {
    rows: oneUser(ctx.db, { ...viewerValues(viewerOf(caller)), userId, base: scimBase(ctx.request.origin) }),
  })
  const row = rows[0]
  if (!row) throw new ScimError(404, `No user ${id} in this account's scope`)
  return row
}

/** GET Users/{id}. */
export async function getScimUser(ctx: Ctx, caller: Caller, id: string, query: ScimListQuery) {
  const row = await scimUserRow(ctx, caller, id)
  return { user: projected(toScimUser(row), query, SCIM_USER), version: userVersion(row.version) }
}
