import { type InferResult, type SqlBool, sql } from 'kysely'
import { nowIso } from '../../contract/dates'
import type { PortalSession, UserWithSessions } from '../../contract/sign-in/sessions'
import { type DB, prepared } from '../../db/client'
import { forbidden, notFound } from '../../lib/errors'
import { isUserAccount, modificationColumn } from '../../lib/scope'
import type { Ctx } from '../../lib/types'
import { type Actor, actorWith, adminWith, type Caller, viewerOf } from '../core/actor'
import { userAs, userRead } from '../core/users'
import { linksOf, toLien } from '../federation/link-reads'

/**
 * The open sessions of a user (DESIGN §3): their portal sessions — each a refresh-token family of a
 * sign-in, rotated at every refresh — still live, with the applications opened from each.
 */

/**
 * A token of a session that can still be refreshed at `now`: the family's current token (not rotated
 * yet), neither revoked nor past its idle or absolute end. Aliased `t` by the queries below.
 */
export const liveToken = (now: string) =>
  sql<SqlBool>`(t.rotated_at is null and t.revoked_at is null and t.expires_at > ${now} and t.family_expires_at > ${now})`

/**
 * The applications whose sessions, live at `now`, were opened from the family of the row the query
 * groups (`t.family_id`): launch codes exchanged and OpenID Connect sign-ins (DESIGN §4, single
 * logout), as one JSON column.
 */
const applicationsColumn = (db: DB, now: string) =>
  db
    .selectFrom('application as a')
    .select(sql<string>`json_group_array(json_object('id', a.id, 'libelle', a.libelle))`.as('applications'))
    .where(
      'a.id',
      'in',
      db
        .selectFrom('refresh_token as c')
        .select('c.application_id')
        .where('c.parent_family_id', '=', sql.ref<string>('t.family_id'))
        .where('c.kind', '=', 'SESSION')
        .where('c.rotated_at', 'is', null)
        .where('c.revoked_at', 'is', null)
        .where('c.expires_at', '>', now)
        .where('c.family_expires_at', '>', now),
    )
    .as('applications')

/**
 * A token of a session of the portal's list (aliased `alias`, `t` by default): a portal sign-in's, or a device's (its own family, opened by
 * the device authorization grant), not a session an application opened from a portal session.
 */
export const portalOrDeviceToken = (alias = 't') =>
  sql<SqlBool>`(${sql.ref(`${alias}.application_id`)} is null or ${sql.ref(`${alias}.appareil`)} is not null)`

/**
 * The live portal sessions of a user, the latest used first: one row per family of sign-in tokens
 * (not an application's; a device's, with its name and application), its browser as the sign-in saw it (kept on the family's first row), its
 * first and last token's times. Read from the user's tokens (`refresh_token (utilisateur_id)`).
 */
export function sessionsQuery(db: DB, userId: number, now = nowIso()) {
  return (
    db
      .selectFrom('refresh_token as t')
      // A device's application (a portal session has none).
      .leftJoin('application as da', 'da.id', 't.application_id')
      .select([
        't.family_id as id',
        sql<string | null>`max(t.nom_navigateur)`.as('nom_navigateur'),
        sql<string | null>`max(t.version_navigateur)`.as('version_navigateur'),
        sql<string>`min(t.created_at)`.as('creation'),
        sql<string>`max(t.created_at)`.as('derniere_utilisation'),
        sql<string | null>`max(t.appareil)`.as('appareil'),
        sql<string | null>`max(t.appareil_approuve_depuis)`.as('appareil_approuve_depuis'),
        sql<number | null>`max(t.application_id)`.as('appareil_application_id'),
        sql<string | null>`max(da.libelle)`.as('appareil_application'),
        applicationsColumn(db, now),
      ])
      .where('t.utilisateur_id', '=', userId)
      .where('t.kind', '=', 'SESSION')
      .where(portalOrDeviceToken())
      .groupBy('t.family_id')
      .having(sql<number>`max(${liveToken(now)})`, '=', 1)
      .orderBy(sql`max(t.created_at)`, 'desc')
      .orderBy('t.family_id')
  )
}

export type SessionRow = InferResult<ReturnType<typeof sessionsQuery>>[number]

/** `sessionsQuery` compiled once per isolate (db/client.ts `prepared`): the profile pages' read. */
const sessionsStatement = prepared((db, values: { userId: number; now: string }) =>
  sessionsQuery(db, values.userId, values.now),
)

/** The live portal sessions of a user at `now`: `sessionsQuery`, compiled once. */
export const sessionsRead = (db: DB, userId: number, now = nowIso()) => sessionsStatement(db, { userId, now })

const byName = new Intl.Collator('fr', { sensitivity: 'base' })

/** A row of `sessionsQuery` as the API answers it; `current`: the caller's own session, if theirs. */
export function toPortalSession(row: SessionRow, current: string | null): PortalSession {
  const applications = (JSON.parse(row.applications ?? '[]') as PortalSession['applications']).sort((a, b) =>
    byName.compare(a.libelle, b.libelle),
  )
  return {
    id: row.id,
    navigateur: row.nom_navigateur,
    versionNavigateur: row.version_navigateur,
    creation: row.creation,
    derniereUtilisation: row.derniere_utilisation,
    courante: row.id === current,
    applications,
    appareil:
      row.appareil === null || row.appareil_application_id === null
        ? null
        : {
            nom: row.appareil,
            application: { id: row.appareil_application_id, libelle: row.appareil_application ?? '' },
            approuveDepuis: row.appareil_approuve_depuis,
          },
  }
}

/** GET rest/bd/session/liste: the caller's open sessions, theirs marked, with the caller's check in one round trip. */
export async function ownSessions(ctx: Ctx, caller: Caller): Promise<PortalSession[]> {
  const { actor, rows } = await actorWith(ctx, caller, { rows: sessionsRead(ctx.db, caller.id) })
  return rows.map((row) => toPortalSession(row, actor.sid))
}

/** A user an administrator acts on, with whether the caller may manage them (`modification`). */
export function managedUserQuery(db: DB, caller: Caller, id: number) {
  return (
    db
      .selectFrom('utilisateur')
      .select([
        'utilisateur.id',
        'utilisateur.login',
        'utilisateur.nom',
        'utilisateur.prenom',
        'utilisateur.mail',
        'utilisateur.langue',
      ])
      .select(modificationColumn(db, viewerOf(caller)))
      .where('utilisateur.id', '=', id)
      // A pending registration is the authorisation queue's: unknown here (DESIGN §4).
      .where(isUserAccount())
  )
}

/**
 * The user of a `managedUserQuery` row, when the administrator manages them (DESIGN §4 `modification`);
 * else 403, or 404 for no such user. One's own sessions are read and ended from one's own list.
 */
export function managedUser<Row extends { modification: number }>(actor: Actor, id: number, row: Row | undefined) {
  if (id === actor.id) throw forbidden('Your own sessions are at rest/bd/session/liste')
  if (!row) throw notFound('Unknown user')
  if (!row.modification) throw forbidden('You may not manage this user')
  return row
}

/**
 * GET rest/bd/utilisateur/{id}/sessions: the open sessions of a user the administrator manages, with
 * the caller's check and the user in one round trip.
 */
export async function sessionsOfUser(ctx: Ctx, caller: Caller, id: number): Promise<PortalSession[]> {
  const db = ctx.db
  const {
    actor,
    user: [user],
    rows,
  } = await adminWith(ctx, caller, { user: managedUserQuery(db, caller, id), rows: sessionsRead(db, id) })
  managedUser(actor, id, user)
  return rows.map((row) => toPortalSession(row, null))
}

/**
 * GET rest/bd/utilisateur/{id}?sessions=true: the user as `getUser` answers them and their open sessions, with the
 * caller's check in one round trip: one's own (the caller's marked), or those of a user the caller manages; null for
 * a user the caller may only see.
 */
export async function userWithSessions(ctx: Ctx, caller: Caller, id: number): Promise<UserWithSessions> {
  const viewer = viewerOf(caller)
  const { actor, user, sessions, links } = await actorWith(ctx, caller, {
    user: userRead(ctx.db, id, viewer),
    sessions: sessionsRead(ctx.db, id),
    // One's own links are on one's security page (GET rest/bd/mfa).
    links: id === caller.id ? null : linksOf(ctx.db, id),
  })
  const answer = userAs(actor, id, user[0], viewer.today)
  const own = id === actor.id
  if (!own && !answer.modification) return { ...answer, sessions: null, fournisseurs: null }
  return {
    ...answer,
    sessions: sessions.map((row) => toPortalSession(row, own ? actor.sid : null)),
    ...(links ? { fournisseurs: links.map(toLien) } : {}),
  }
}
