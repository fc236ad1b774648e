import { addSeconds } from '../../contract/dates'
import type { SessionEndReason } from '../../contract/sign-in/auth'
import { batch, type DB } from '../../db/client'
import { browserOf } from '../../lib/browser'
import { randomToken, sha256Hex } from '../../lib/crypto'
import { signAccessToken } from '../../lib/jwt'
import type { Ctx } from '../../lib/types'
import type { Actor } from '../core/actor'
import { logEntry } from '../core/audit'

/** DESIGN §3 session lifetimes. */
export const REFRESH_IDLE_SECONDS = 30 * 60
export const REFRESH_ABSOLUTE_SECONDS = 10 * 60 * 60
/** A rotated token presented again within this window is a retry, not a theft. */
export const REUSE_GRACE_SECONDS = 10

export type Tokens = { accessToken: string; refreshToken: string; expiresInMsec: number }

/** A new refresh token row for a session family (the caller inserts it, usually in a batch). */
export async function newRefreshToken(
  userId: number,
  familyId: string,
  familyExpiresAt: string,
  now = new Date(),
  application: {
    id: number | null
    parentFamilyId: string | null
    scope?: string | null
    authTime?: string | null
    issuer?: string | null
    /** A device's session: the name its approver gave it (carried by every rotation). */
    appareil?: string | null
  } = { id: null, parentFamilyId: null },
) {
  const token = randomToken()
  const idle = addSeconds(REFRESH_IDLE_SECONDS, now).toISOString()
  return {
    token,
    row: {
      token_hash: await sha256Hex(token),
      utilisateur_id: userId,
      family_id: familyId,
      kind: 'SESSION' as const,
      application_id: application.id,
      parent_family_id: application.parentFamilyId,
      scope: application.scope ?? null,
      auth_time: application.authTime ?? null,
      issuer: application.issuer ?? null,
      appareil: application.appareil ?? null,
      created_at: now.toISOString(),
      expires_at: idle < familyExpiresAt ? idle : familyExpiresAt,
      family_expires_at: familyExpiresAt,
      rotated_at: null,
      revoked_at: null,
    },
  }
}

export async function accessTokenFor(
  ctx: Ctx,
  user: { id: number; admin: number; domain: string },
  sid: string,
  applicationId: number | null = null,
  scope: string | null = null,
) {
  const claims = { sub: String(user.id), admin: user.admin === 1, domain: user.domain, sid }
  if (applicationId === null) return signAccessToken(ctx.env.JWT_SECRET, claims)
  // An OpenID Connect session's tokens say what was granted (UserInfo answers by it).
  return signAccessToken(
    ctx.env.JWT_SECRET,
    scope === null ? { ...claims, app: applicationId } : { ...claims, app: applicationId, scope },
  )
}

/** A portal session's browser, kept with its first token for the list of sessions. */
export function sessionBrowser(userAgent: string | null) {
  const browser = browserOf(userAgent)
  return { nom_navigateur: browser.name, version_navigateur: browser.version }
}

/** Revokes a session family and the applications' sessions it launched (single logout). */
export function revokeSessions(db: DB, familyId: string, now = new Date(), reason: SessionEndReason | null = null) {
  return db
    .updateTable('refresh_token')
    .set({ revoked_at: now.toISOString(), revoked_reason: reason })
    .where((eb) => eb.or([eb('family_id', '=', familyId), eb('parent_family_id', '=', familyId)]))
    .where('revoked_at', 'is', null)
}

/**
 * Ends the caller's session, and the sessions applications opened from it: revokes the refresh-token
 * families and writes DECONNEXION. With a logout sequence (`suiteSaml`: the browser is there to carry it), the SAML
 * applications the session signed into are to be told through that browser (the portal's logout page walks it);
 * without, they are recorded as not reachable (migration 0037).
 */
export async function logout(ctx: Ctx, actor: Actor, suiteSaml?: string) {
  const db = ctx.db
  await batch(ctx.d1, [
    revokeSessions(db, actor.sid),
    db.insertInto('log').values(logEntry(actor.id, 'DECONNEXION', 'DECONNEXION', ctx.request.userAgent)),
    // After the statement that ended the session, whose trigger wrote what is to be told.
    ...(suiteSaml
      ? [
          db
            .updateTable('saml_deconnexion')
            .set({ suite: suiteSaml, statut: 'A_ENVOYER' })
            .where('family_id', '=', actor.sid)
            .where('statut', '=', 'INJOIGNABLE')
            .where('suite', 'is', null),
        ]
      : []),
  ])
}
