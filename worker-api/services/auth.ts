import { sql } from 'kysely'
import { addSeconds, todayIso } from '../contract/dates'
import type { User } from '../contract/user'
import { batch, type Compilable, type DB, getDb, insertWhen, namedBatch } from '../db/client'
import type { Env } from '../env'
import { openWithToken, randomToken, sealWithToken, sha256Hex } from '../lib/crypto'
import { sameDomain } from '../lib/domain'
import { BusinessError, unauthorized } from '../lib/errors'
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
async function newRefreshToken(
  userId: number,
  familyId: string,
  familyExpiresAt: string,
  now = new Date(),
  application: { id: number | null; parentFamilyId: string | null } = { id: null, parentFamilyId: null },
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
      created_at: now.toISOString(),
      expires_at: idle < familyExpiresAt ? idle : familyExpiresAt,
      family_expires_at: familyExpiresAt,
      rotated_at: null,
      revoked_at: null,
    },
  }
}

async function accessTokenFor(
  env: Env,
  user: { id: number; admin: number; domain: string },
  sid: string,
  applicationId: number | null = null,
) {
  const claims = { sub: String(user.id), admin: user.admin === 1, domain: user.domain, sid }
  return signAccessToken(env.JWT_SECRET, applicationId === null ? claims : { ...claims, app: applicationId })
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
    db.insertInto('refresh_token').values(refresh.row),
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
 * Exchanges a refresh token (or an application's launch code) for a new access token and a rotated
 * refresh token. A rotated token presented again within the grace window gets the pair it was already
 * exchanged for; after the window it revokes its whole family (reuse detection, DESIGN §3).
 * A launch code opens a session of the application's own, whose tokens carry its id (`app`) and may
 * only read their user and sign out (DESIGN §4: bound to that application).
 */
export async function refresh(env: Env, presented: string, origin: string): Promise<Tokens> {
  const db = getDb(env.DB)
  const hash = await sha256Hex(presented)
  const token = await db
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
      'u.id as user_id',
      'u.admin',
      'u.domain',
      'u.actif',
      'u.supprime',
    ])
    .where('t.token_hash', '=', hash)
    .executeTakeFirst()
  if (!token || token.revoked_at) throw unauthorized('INVALID_REFRESH_TOKEN', 'Unknown or revoked refresh token')
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
    return issuedSuccessor(presented, token.successor)
  }
  if (token.expires_at < now.toISOString() || token.family_expires_at < now.toISOString()) {
    throw unauthorized('REFRESH_TOKEN_EXPIRED', 'Refresh token expired')
  }

  // A launch code starts a session of its own for the application that received it.
  const familyId = token.kind === 'LAUNCH' ? crypto.randomUUID() : token.family_id
  const familyExpiresAt =
    token.kind === 'LAUNCH' ? addSeconds(REFRESH_ABSOLUTE_SECONDS, now).toISOString() : token.family_expires_at
  // Sessions opened by an application stay bound to it, and to the portal session that launched it,
  // through every rotation.
  const next = await newRefreshToken(token.user_id, familyId, familyExpiresAt, now, {
    id: token.application_id,
    parentFamilyId: token.parent_family_id,
  })
  const tokens: Tokens = {
    accessToken: await accessTokenFor(
      env,
      { id: token.user_id, admin: token.admin, domain: token.domain },
      familyId,
      token.application_id,
    ),
    refreshToken: next.token,
    expiresInMsec: ACCESS_TOKEN_TTL_SECONDS * 1000,
  }
  const successor = await sealWithToken(presented, SUCCESSOR_SEAL, JSON.stringify(tokens))
  // Of two requests rotating the same token at once, one marks it; only that one's successor is
  // stored, and the other answers with it.
  const { marked } = await namedBatch(env.DB, {
    marked: db
      .updateTable('refresh_token')
      .set({ rotated_at: now.toISOString(), successor })
      .where('id', '=', token.id)
      .where('rotated_at', 'is', null),
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
  return issuedSuccessor(presented, winner?.successor)
}

/** Revokes a session family and the applications' sessions it launched (single logout). */
function revokeSessions(db: DB, familyId: string, now = new Date()) {
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
