import { sql } from 'kysely'
import { addSeconds, todayIso } from '../contract/dates'
import type { User } from '../contract/user'
import { batch, type Compilable, type DB, getDb, namedBatch } from '../db/client'
import type { Env } from '../env'
import { randomToken, sha256Hex } from '../lib/crypto'
import { browserOf } from '../lib/browser'
import { sameDomain } from '../lib/domain'
import { BusinessError } from '../lib/errors'
import { ACCESS_TOKEN_TTL_SECONDS, signAccessToken } from '../lib/jwt'
import { hashPassword, pepperKeyring, verifyPassword } from '../lib/password'
import type { requestContext } from '../lib/request'
import { type Actor, unauthorizedDomain } from './actor'
import { attemptCounter, clearAttempts } from './attempt-counter'
import { logEntry } from './audit'
import { publicGate } from './captcha'
import { pendingMail, postesColumn, postesFrom, toUser } from './users'

/** DESIGN §3 session lifetimes. */
export const REFRESH_IDLE_SECONDS = 30 * 60
export const REFRESH_ABSOLUTE_SECONDS = 10 * 60 * 60
/** A rotated token presented again within this window is a retry, not a theft. */
export const REUSE_GRACE_SECONDS = 10

export type RequestContext = ReturnType<typeof requestContext>
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
      created_at: now.toISOString(),
      expires_at: idle < familyExpiresAt ? idle : familyExpiresAt,
      family_expires_at: familyExpiresAt,
      rotated_at: null,
      revoked_at: null,
    },
  }
}

export async function accessTokenFor(
  env: Env,
  user: { id: number; admin: number; domain: string },
  sid: string,
  applicationId: number | null = null,
  scope: string | null = null,
) {
  const claims = { sub: String(user.id), admin: user.admin === 1, domain: user.domain, sid }
  if (applicationId === null) return signAccessToken(env.JWT_SECRET, claims)
  // An OpenID Connect session's tokens say what was granted (UserInfo answers by it).
  return signAccessToken(
    env.JWT_SECRET,
    scope === null ? { ...claims, app: applicationId } : { ...claims, app: applicationId, scope },
  )
}

export async function login(
  env: Env,
  input: { identifiant: string; motDePasse: string; captcha?: string | undefined },
  context: RequestContext,
): Promise<{ user: User; jwt: Tokens }> {
  const identifier = input.identifiant.trim().toLowerCase()
  const gate = await publicGate(env, {
    kind: 'login',
    limit: Number(env.LOGIN_RATE_PER_MINUTE ?? 30),
    captcha: input.captcha,
    remoteIp: context.ip,
  })
  // One round trip before the hash: the client's rate, the payload spent, the attempt counted (only
  // once both passed), and the user.
  const attempt = attemptCounter('login', identifier, gate.passed)
  const db = getDb(env.DB)
  const today = todayIso()
  const read = await namedBatch(env.DB, {
    ...gate.statements,
    ...attempt.statements,
    user: db
      .selectFrom('utilisateur')
      .selectAll()
      .select(pendingMail)
      .select(postesColumn(today))
      .where(sql<boolean>`login = ${identifier} COLLATE NOCASE`),
  })
  gate.check(read)
  attempt.check(read)
  const row = read.user?.results[0]

  // The hash is computed in every branch, so that the time of an answer tells nothing either.
  const check = await verifyPassword(input.motDePasse, row?.password_hash ?? null, pepperKeyring(env))
  if (row && row.registration_state !== 'COMPLETE' && !row.supprime) {
    throw new BusinessError('USER_NOT_FINISH_REGISTRATION', 403, 'Registration not finished')
  }
  if (!row || !check.ok) throw new BusinessError('BAD_CREDENTIAL', 401, 'Bad credentials')
  if (!row.actif || row.supprime) throw new BusinessError('USER_DISABLED', 403, 'User disabled')
  if (!sameDomain(row.domain, context.origin)) throw unauthorizedDomain()

  const now = new Date()
  const familyId = crypto.randomUUID()
  const refresh = await newRefreshToken(row.id, familyId, addSeconds(REFRESH_ABSOLUTE_SECONDS, now).toISOString(), now)
  const writes: Compilable[] = [
    clearAttempts(db, 'login', identifier),
    db.insertInto('refresh_token').values({ ...refresh.row, ...sessionBrowser(context.userAgent) }),
    db.insertInto('log').values(logEntry(row.id, 'CONNEXION', 'CONNEXION', context.userAgent)),
  ]
  // Mails sent later (an invitation, a notice) speak the language the user signs in with.
  if (row.langue !== context.language) {
    writes.push(db.updateTable('utilisateur').set({ langue: context.language }).where('id', '=', row.id))
  }
  if (check.needsRehash) {
    const password_hash = await hashPassword(input.motDePasse, pepperKeyring(env).current)
    writes.push(db.updateTable('utilisateur').set({ password_hash }).where('id', '=', row.id))
  }
  await batch(env.DB, writes)
  return {
    user: toUser(row, postesFrom(row.postes, today), false),
    jwt: {
      accessToken: await accessTokenFor(env, row, familyId),
      refreshToken: refresh.token,
      expiresInMsec: ACCESS_TOKEN_TTL_SECONDS * 1000,
    },
  }
}

/** A portal session's browser, kept with its first token for the list of sessions. */
export function sessionBrowser(userAgent: string | null) {
  const browser = browserOf(userAgent)
  return { nom_navigateur: browser.name, version_navigateur: browser.version }
}

/** Revokes a session family and the applications' sessions it launched (single logout). */
export function revokeSessions(db: DB, familyId: string, now = new Date()) {
  return db
    .updateTable('refresh_token')
    .set({ revoked_at: now.toISOString() })
    .where((eb) => eb.or([eb('family_id', '=', familyId), eb('parent_family_id', '=', familyId)]))
    .where('revoked_at', 'is', null)
}

/**
 * Ends the caller's session, and the sessions applications opened from it: revokes the refresh-token
 * families and writes DECONNEXION.
 */
export async function logout(env: Env, actor: Actor, userAgent: string | null) {
  const db = getDb(env.DB)
  await batch(env.DB, [
    revokeSessions(db, actor.sid),
    db.insertInto('log').values(logEntry(actor.id, 'DECONNEXION', 'DECONNEXION', userAgent)),
  ])
}
