import { nowIso, organisationDateTime } from '../../contract/dates'
import { type DB, insertWhen, namedBatch } from '../../db/client'
import { forbidden, notFound } from '../../lib/errors'
import { mailLanguage, sessionsEndedByAdminMail } from '../../lib/mail/templates'
import type { Ctx } from '../../lib/types'
import { actorWith, adminWith, type Caller, liveAdmin } from '../core/actor'
import { adminLogWhen, logEntry } from '../core/audit'
import { mailQueued, queueMail } from '../core/outbox'
import { stillManaged } from '../organisation/user-admin'
import { revokeSessions } from './auth'
import {
  liveToken,
  managedUser,
  managedUserQuery,
  portalOrDeviceToken,
  type SessionRow,
  sessionsQuery,
  sessionsRead,
} from './sessions'

/**
 * Ending sessions from the list of a user's sessions (DESIGN §3): one's own, one at a time or all but
 * the current one, and an administrator ending all of a user's. Each revokes the portal sessions and
 * what was launched from them (single logout; OpenID Connect clients are then told by the back-channel
 * trigger), with its audit entry in the same batch.
 */

/** The tokens of the user's portal sessions live at `now` (aliased `t`): what an ending's audit entry is conditioned on. */
const livePortalTokens = (db: DB, userId: number, now: string) =>
  db
    .selectFrom('refresh_token as t')
    .select('t.id')
    .where('t.utilisateur_id', '=', userId)
    .where('t.kind', '=', 'SESSION')
    .where(portalOrDeviceToken())
    .where(liveToken(now))

/** The sessions an audit entry names, by their browser and sign-in time (at most ten, then how many more). */
function describe(sessions: SessionRow[]): string {
  const named = sessions.slice(0, 10).map((session) => {
    const browser = session.appareil
      ? `${session.appareil} (${session.appareil_application})`
      : [session.nom_navigateur ?? '?', session.version_navigateur ?? ''].join(' ').trim()
    const { date, time } = organisationDateTime(session.creation)
    return `${browser} (${date} ${time.slice(0, 5)})`
  })
  return sessions.length > 10 ? `${named.join(', ')} (+${sessions.length - 10})` : named.join(', ')
}

/**
 * DELETE rest/bd/session/{id}: ends one of the caller's open sessions (their current one too: a
 * sign-out) and what was launched from it. 404 for any id that is not one of their open sessions.
 */
export async function endOwnSession(ctx: Ctx, caller: Caller, id: string): Promise<void> {
  const db = ctx.db
  const now = nowIso()
  const {
    actor,
    session: [session],
  } = await actorWith(ctx, caller, { session: sessionsQuery(db, caller.id, now).where('t.family_id', '=', id) })
  if (!session) throw notFound('No such open session')
  const entry = logEntry(actor.id, 'DECONNEXION', 'SESSION_FIN', ctx.request.userAgent, {
    commentaire: describe([session]),
  })
  await namedBatch(ctx.d1, {
    // Written only if the session was still open: ended meanwhile, it is not ended twice in the history.
    log: insertWhen(db, 'log', entry, livePortalTokens(db, actor.id, now).where('t.family_id', '=', id)),
    // Ended from another session: its browser is told so at its next refresh (its own: a sign-out).
    revoked: revokeSessions(db, id, new Date(now), id === actor.sid ? null : 'AUTRE_APPAREIL').where(
      'utilisateur_id',
      '=',
      actor.id,
    ),
  })
}

/**
 * DELETE rest/bd/session/autres: ends every open session of the caller but the one of their token,
 * with what was launched from them. Nothing to end, nothing written.
 */
export async function endOtherSessions(ctx: Ctx, caller: Caller): Promise<void> {
  const db = ctx.db
  const now = nowIso()
  const { actor, sessions } = await actorWith(ctx, caller, { sessions: sessionsRead(db, caller.id, now) })
  const others = sessions.filter((session) => session.id !== actor.sid)
  if (others.length === 0) return
  // The caller's other portal sessions, read as the batch runs (one opened since the list was read too).
  const families = db
    .selectFrom('refresh_token as f')
    .select('f.family_id')
    .where('f.utilisateur_id', '=', actor.id)
    .where('f.kind', '=', 'SESSION')
    .where(portalOrDeviceToken('f'))
    .where('f.family_id', '!=', actor.sid)
  const entry = logEntry(actor.id, 'DECONNEXION', 'SESSIONS_AUTRES_FIN', ctx.request.userAgent, {
    commentaire: describe(others),
  })
  await namedBatch(ctx.d1, {
    log: insertWhen(db, 'log', entry, livePortalTokens(db, actor.id, now).where('t.family_id', '!=', actor.sid)),
    revoked: db
      .updateTable('refresh_token')
      .set({ revoked_at: now, revoked_reason: 'AUTRE_APPAREIL' })
      .where('utilisateur_id', '=', actor.id)
      .where('revoked_at', 'is', null)
      .where((eb) => eb.or([eb('family_id', 'in', families), eb('parent_family_id', 'in', families)])),
  })
}

/**
 * DELETE rest/bd/utilisateur/{id}/sessions: a managing administrator ends every session of the user (the portal's, the
 * applications', open launch codes) and the user is told by mail. Every statement holds only while the caller still
 * manages the user as the batch runs, else 403; the audit entry and the mail only if something ended.
 */
export async function endUserSessions(ctx: Ctx, caller: Caller, id: number): Promise<void> {
  const db = ctx.db
  const now = nowIso()
  const {
    actor,
    row: [row],
  } = await adminWith(ctx, caller, { row: managedUserQuery(db, caller, id) })
  const user = managedUser(actor, id, row)
  const managed = stillManaged(db, actor, id).where(liveAdmin(ctx, caller))
  const somethingToEnd = managed.where(({ exists }) =>
    exists(
      db
        .selectFrom('refresh_token as live')
        .select('live.id')
        .where('live.utilisateur_id', '=', id)
        .where('live.rotated_at', 'is', null)
        .where('live.revoked_at', 'is', null)
        .where('live.expires_at', '>', now),
    ),
  )
  const notice = sessionsEndedByAdminMail(mailLanguage(user.langue), user, `${actor.prenom} ${actor.nom}`)
  const written = await namedBatch(ctx.d1, {
    log: adminLogWhen(
      db,
      actor,
      'UTILISATEUR_SESSIONS_FIN',
      `#${user.id} ${user.login}`,
      ctx.request.userAgent,
      somethingToEnd,
    ),
    mail: queueMail(
      db,
      { ...notice, to: user.mail, userId: user.id, kind: 'SESSIONS_ENDED' },
      new Date(now),
      somethingToEnd,
    ),
    revoked: db
      .updateTable('refresh_token')
      .set({ revoked_at: now, revoked_reason: 'ADMINISTRATEUR', revoked_by: actor.id })
      .where('utilisateur_id', '=', id)
      .where('revoked_at', 'is', null)
      .where(({ exists }) => exists(managed)),
    // Read in the batch, after the writes it guarded: whether they could take place at all.
    held: managed,
  })
  if ((written.held?.results.length ?? 0) === 0) throw forbidden('You may no longer manage this user')
  mailQueued(ctx, [written.mail])
}
