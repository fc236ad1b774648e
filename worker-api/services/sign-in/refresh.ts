import { type SqlBool, sql } from 'kysely'
import { addSeconds, todayIso } from '../../contract/dates'
import { type DB, insertWhen, namedBatch } from '../../db/client'
import { openWithToken, sealWithToken, sha256Hex } from '../../lib/crypto'
import { sameDomain } from '../../lib/domain'
import { BusinessError, unauthorized } from '../../lib/errors'
import { ACCESS_TOKEN_TTL_SECONDS } from '../../lib/jwt'
import type { Ctx } from '../../lib/types'
import { grantNow } from '../catalogue/grants'
import { unauthorizedDomain } from '../core/actor'
import {
  accessTokenFor,
  newRefreshToken,
  REFRESH_ABSOLUTE_SECONDS,
  REUSE_GRACE_SECONDS,
  revokeSessions,
  type Tokens,
} from './auth'

/** What a rotated refresh token keeps of the pair it was exchanged for (see `sealWithToken`). */
const SUCCESSOR_SEAL = 'portail/refresh-successor'

/**
 * The pair a rotated token was already exchanged for, opened with that token: the answer to a retry
 * inside the grace window (a lost answer, two tabs refreshing at once), never a second session.
 */
async function issuedSuccessor(presented: string, sealed: string | null | undefined): Promise<Tokens> {
  const opened = sealed ? await openWithToken(presented, SUCCESSOR_SEAL, sealed) : null
  if (!opened) throw unauthorized('INVALID_REFRESH_TOKEN', 'Unknown or revoked refresh token')
  return JSON.parse(opened) as Tokens
}

/**
 * Whether the application a token is bound to is still granted to its user today (a current post of a
 * function that grants it); always true for a portal session (DESIGN §4: access is derived).
 */
const stillGranted = (db: DB, today: string) =>
  sql<SqlBool>`(t.application_id is null or exists ${grantNow(db, sql.ref<number>('t.utilisateur_id'), sql.ref<number>('t.application_id'), today)})`

/**
 * The read of a presented refresh token (by its hash), with its user, its application's state and
 * whether that application is still granted.
 */
export function refreshTokenQuery(db: DB, hash: string, today = todayIso()) {
  return db
    .selectFrom('refresh_token as t')
    .innerJoin('utilisateur as u', 'u.id', 't.utilisateur_id')
    .leftJoin('application as a', 'a.id', 't.application_id')
    .select([
      'a.actif as application_actif',
      't.id',
      't.family_id',
      't.kind',
      't.application_id',
      't.parent_family_id',
      't.expires_at',
      't.family_expires_at',
      't.rotated_at',
      't.revoked_at',
      't.successor',
      't.scope',
      't.auth_time',
      't.issuer',
      't.appareil',
      'u.id as user_id',
      'u.admin',
      'u.domain',
      'u.actif',
      'u.supprime',
      't.revoked_reason',
      sql<number>`${stillGranted(db, today)}`.as('granted'),
    ])
    .where('t.token_hash', '=', hash)
}

export type RefreshRow = Awaited<ReturnType<ReturnType<typeof refreshTokenQuery>['executeTakeFirst']>>

/**
 * The portal's refresh endpoint. An OpenID Connect session's token is refused (401): its client must authenticate at
 * the token endpoint. A rotated token presented again within the grace window gets the pair it was exchanged for; after
 * it, it revokes its family (DESIGN §3). A launch code opens the application's own session (`app`), which may only read
 * its user and sign out (DESIGN §4).
 */
export async function refresh(ctx: Ctx, presented: string): Promise<Tokens> {
  const token = await refreshTokenQuery(ctx.db, await sha256Hex(presented)).executeTakeFirst()
  if (token?.scope)
    throw unauthorized('INVALID_REFRESH_TOKEN', 'An OpenID Connect session refreshes at the token endpoint')
  return await rotate(ctx, token, presented, ctx.request.origin)
}

/**
 * The rotation of a token read by `refreshTokenQuery` (its caller may have read it with more, in the
 * same round trip: the OpenID Connect token endpoint does), the one both refresh paths use: every
 * check a refresh makes is here. Its write is one batch, guarded by the grant it checked.
 */
export async function rotate(ctx: Ctx, token: RefreshRow, presented: string, origin: string): Promise<Tokens> {
  const db = ctx.db
  if (!token || token.revoked_at) {
    // A session ended from another of the user's sessions or by an administrator: the browser is told.
    const reason = token?.revoked_reason ? [{ fin: token.revoked_reason }] : []
    throw new BusinessError('INVALID_REFRESH_TOKEN', 401, 'Unknown or revoked refresh token', reason)
  }
  // An application switched off in the catalogue opens no session and keeps none (its tokens are
  // revoked as it is switched off; this also holds for a code issued as that happened).
  if (token.application_id !== null && token.application_actif !== 1)
    throw unauthorized('INVALID_REFRESH_TOKEN', 'Application switched off')
  // Refused, and left as it was, when presented on another host than the user's (DESIGN §7).
  if (!sameDomain(token.domain, origin)) throw unauthorizedDomain()

  const now = new Date()
  const revokeFamily = () => revokeSessions(db, token.family_id, now).execute()

  if (!token.actif || token.supprime) {
    await revokeFamily()
    throw new BusinessError('USER_DISABLED', 403, 'User disabled')
  }
  // A post ended, a grant removed: an application's session ends with this refresh (a launch code
  // opens none).
  if (token.granted !== 1) {
    if (token.kind !== 'LAUNCH') await revokeFamily()
    throw unauthorized('INVALID_REFRESH_TOKEN', 'No current post grants this application')
  }
  if (token.kind === 'LAUNCH') {
    if (token.rotated_at || token.expires_at < now.toISOString()) {
      throw unauthorized('INVALID_REFRESH_TOKEN', 'Launch code used or expired')
    }
  } else if (token.rotated_at) {
    const sinceRotation = (now.getTime() - Date.parse(token.rotated_at)) / 1000
    if (sinceRotation > REUSE_GRACE_SECONDS) {
      await revokeFamily()
      throw unauthorized('REFRESH_TOKEN_REUSED', 'Refresh token reused; session revoked')
    }
    return await issuedSuccessor(presented, token.successor)
  }
  if (token.expires_at < now.toISOString() || token.family_expires_at < now.toISOString()) {
    throw unauthorized('REFRESH_TOKEN_EXPIRED', 'Refresh token expired')
  }

  // A launch code starts a session of its own for the application that received it.
  const familyId = token.kind === 'LAUNCH' ? crypto.randomUUID() : token.family_id
  const familyExpiresAt =
    token.kind === 'LAUNCH' ? addSeconds(REFRESH_ABSOLUTE_SECONDS, now).toISOString() : token.family_expires_at
  // Sessions opened by an application stay bound to it, and to the portal session that launched it,
  // through every rotation (an OpenID Connect session with its scopes and its sign-in time).
  const next = await newRefreshToken(token.user_id, familyId, familyExpiresAt, now, {
    id: token.application_id,
    parentFamilyId: token.parent_family_id,
    scope: token.scope,
    authTime: token.auth_time,
    issuer: token.issuer,
    appareil: token.appareil,
  })
  const tokens: Tokens = {
    accessToken: await accessTokenFor(
      ctx,
      { id: token.user_id, admin: token.admin, domain: token.domain },
      familyId,
      token.application_id,
      token.scope,
    ),
    refreshToken: next.token,
    expiresInMsec: ACCESS_TOKEN_TTL_SECONDS * 1000,
  }
  const successor = await sealWithToken(presented, SUCCESSOR_SEAL, JSON.stringify(tokens))
  // Of two requests rotating the same token at once, one marks it; only that one's successor is
  // stored, and the other answers with it.
  const { marked } = await namedBatch(ctx.d1, {
    marked: db
      .updateTable('refresh_token')
      .set({ rotated_at: now.toISOString(), successor })
      .where('id', '=', token.id)
      .where('rotated_at', 'is', null)
      // The grant read above still holds when the write runs (a post ended meanwhile: no new token).
      .where(({ exists }) =>
        token.application_id === null
          ? sql<SqlBool>`1 = 1`
          : exists(grantNow(db, token.user_id, token.application_id, todayIso(now))),
      ),
    successor: insertWhen(
      db,
      'refresh_token',
      next.row,
      db.selectFrom('refresh_token').select('id').where('id', '=', token.id).where('successor', '=', successor),
    ),
  })
  if ((marked?.meta.changes ?? 0) > 0) return tokens
  if (token.kind === 'LAUNCH') throw unauthorized('INVALID_REFRESH_TOKEN', 'Launch code used or expired')
  const winner = await db.selectFrom('refresh_token').select('successor').where('id', '=', token.id).executeTakeFirst()
  return await issuedSuccessor(presented, winner?.successor)
}
