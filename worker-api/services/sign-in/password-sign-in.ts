import { type Expression, type SqlBool, sql } from 'kysely'
import { addSeconds, todayIso } from '../../contract/dates'
import type { User } from '../../contract/organisation/user'
import type { LoginMfaInput, MfaChallenge, MfaMethod } from '../../contract/sign-in/mfa'
import { batch, type Compilable, type DB, insertWhen, namedBatch } from '../../db/client'
import type { SignInMethod, UtilisateurRow } from '../../db/schema'
import { randomToken, sha256Hex } from '../../lib/crypto'
import { sameDomain } from '../../lib/domain'
import { BusinessError } from '../../lib/errors'
import { ACCESS_TOKEN_TTL_SECONDS } from '../../lib/jwt'
import { hashPassword, pepperKeyring, verifyPassword } from '../../lib/password'
import { acceptedStep, isRecoveryCode, recoveryCodeHash } from '../../lib/totp'
import type { Ctx } from '../../lib/types'
import { unauthorizedDomain } from '../core/actor'
import { attemptCounter, clearAttempts, FREE_FAILURES } from '../core/attempt-counter'
import { logEntry } from '../core/audit'
import { publicGate } from '../core/captcha'
import { userEvent } from '../core/events'
import { pendingMail, postesColumn, postesFrom, toUser } from '../core/users'
import { accessTokenFor, newRefreshToken, REFRESH_ABSOLUTE_SECONDS, sessionBrowser, type Tokens } from './auth'
import { mfaCodeInvalid } from './factors'

/** How long the second step of a sign-in may wait after the right password. */
export const MFA_CHALLENGE_SECONDS = 5 * 60

export type SignedIn = { user: User; jwt: Tokens }

/** The user's second factors, read with them at sign-in. */
const factorColumns = [
  sql<number>`exists (select 1 from mfa_totp t where t.utilisateur_id = utilisateur.id and t.secret is not null)`.as(
    'has_totp',
  ),
  sql<number>`exists (select 1 from passkey p where p.utilisateur_id = utilisateur.id)`.as('has_passkey'),
  sql<number>`exists (select 1 from mfa_recovery_code r where r.utilisateur_id = utilisateur.id and r.used_at is null)`.as(
    'has_codes',
  ),
]

/** A user as a sign-in reads them, by a password or a partner's provider: the row, the posts, the second factors. */
export const signInUserSelect = (db: DB, today: string) =>
  db.selectFrom('utilisateur').selectAll().select(pendingMail).select(postesColumn(today)).select(factorColumns)

/**
 * The first step of a sign-in: the password. A user without a second factor is signed in; one with
 * a second factor gets 403 MFA_REQUIRED, with a single-use challenge for the second step.
 */
export async function login(
  ctx: Ctx,
  input: { identifiant: string; motDePasse: string; captcha?: string | undefined },
): Promise<SignedIn> {
  const identifier = input.identifiant.trim().toLowerCase()
  const gate = await publicGate(ctx, {
    kind: 'login',
    limit: Number(ctx.env.LOGIN_RATE_PER_MINUTE ?? 30),
    captcha: input.captcha,
    remoteIp: ctx.request.ip,
  })
  // One round trip before the hash: the client's rate, the payload spent, the attempt counted (only
  // once both passed), and the user with their factors.
  const attempt = attemptCounter('login', identifier, gate.passed)
  const db = ctx.db
  const today = todayIso()
  const read = await namedBatch(ctx.d1, {
    ...gate.statements,
    ...attempt.statements,
    user: signInUserSelect(db, today).where(sql<boolean>`login = ${identifier} COLLATE NOCASE`),
  })
  gate.check(read)
  attempt.check(read)
  const row = read.user?.results[0]

  // The hash is computed in every branch, so that the time of an answer tells nothing either.
  const check = await verifyPassword(input.motDePasse, row?.password_hash ?? null, pepperKeyring(ctx.env))
  if (row && row.registration_state !== 'COMPLETE' && !row.supprime) {
    throw new BusinessError('USER_NOT_FINISH_REGISTRATION', 403, 'Registration not finished')
  }
  if (!row || !check.ok) {
    // Written for a login nobody has too (it then inserts nothing): the time of the answer tells nothing either.
    await tellLockout(ctx, row?.actif && !row.supprime ? row.id : 0, identifier, read)
    throw new BusinessError('BAD_CREDENTIAL', 401, 'Bad credentials')
  }
  if (!row.actif || row.supprime) throw new BusinessError('USER_DISABLED', 403, 'User disabled')
  if (!sameDomain(row.domain, ctx.request.origin)) throw unauthorizedDomain()

  const writes: Compilable[] = []
  // Mails sent later (an invitation, a notice) speak the language the user signs in with.
  if (row.langue !== ctx.request.language) {
    writes.push(db.updateTable('utilisateur').set({ langue: ctx.request.language }).where('id', '=', row.id))
  }
  if (check.needsRehash) {
    const password_hash = await hashPassword(input.motDePasse, pepperKeyring(ctx.env).current)
    writes.push(db.updateTable('utilisateur').set({ password_hash }).where('id', '=', row.id))
  }
  if (row.has_totp || row.has_passkey) throw await secondStep(ctx, row.id, identifier, methodsOf(row), writes)

  const now = new Date()
  const session = await openSession(ctx, row, identifier, now, 'MOT_DE_PASSE')
  await batch(ctx.d1, [...writes, ...Object.values(session.statements(sql<SqlBool>`1 = 1`))])
  return { user: toUser(row, postesFrom(row.postes, today), false), jwt: await session.tokens() }
}

/**
 * The failure that starts a series' first lockout (the attempt counted just past FREE_FAILURES), told:
 * `connexion.verrouillee` about the user, with until when and after how many failures, written only while the lock
 * holds. The longer locks that follow in the same series, and any other failure, tell nothing: a stranger typing a
 * login cannot make the portal speak more than once per series.
 */
export async function tellLockout(
  ctx: Ctx,
  userId: number,
  identifier: string,
  read: { claim?: { results: { failures: number }[] } | undefined },
) {
  const failures = Number(read.claim?.results[0]?.failures ?? 0)
  if (failures !== FREE_FAILURES + 1) return
  const lock = sql<string>`(select locked_until from login_attempt where counter = 'login' and identifier = ${identifier})`
  const now = new Date()
  await userEvent(
    ctx.db,
    'connexion.verrouillee',
    'systeme',
    userId,
    sql<SqlBool>`${lock} > ${now.toISOString()}`,
    now,
    {
      verrouilleJusqua: lock,
      echecs: failures,
    },
  ).execute()
}

/** The methods of the second step a user's factors offer. */
export const methodsOf = (row: { has_totp: number; has_passkey: number; has_codes: number }): MfaMethod[] => [
  ...(row.has_totp ? (['totp'] as const) : []),
  ...(row.has_passkey ? (['passkey'] as const) : []),
  ...(row.has_codes ? (['codeSecours'] as const) : []),
]

/**
 * The right password of a user with a second factor: a challenge for the second step, and the
 * attempt the password counted given back (the sign-in is not over, but the password was right; the
 * codes that follow count in the same lockout). 403 MFA_REQUIRED carries it.
 */
export async function secondStep(
  ctx: Ctx,
  userId: number,
  identifier: string,
  methods: MfaMethod[],
  writes: Compilable[],
  /** A sign-in through a partner's provider: the session the step opens is that provider's. */
  federation: { fournisseurId: number; idToken: string } | null = null,
) {
  const db = ctx.db
  const challenge = randomToken()
  const now = new Date()
  const expiration = addSeconds(MFA_CHALLENGE_SECONDS, now).toISOString()
  await batch(ctx.d1, [
    ...writes,
    db.insertInto('mfa_challenge').values({
      hash: await sha256Hex(challenge),
      purpose: 'LOGIN',
      utilisateur_id: userId,
      identifier,
      webauthn: null,
      created_at: now.toISOString(),
      expires_at: expiration,
      fournisseur_id: federation?.fournisseurId ?? null,
      id_token: federation?.idToken ?? null,
    }),
    db
      .updateTable('login_attempt')
      .set((eb) => ({
        failures: eb('failures', '-', 1),
        // The claim passed, so no wait was running: a wait now is the one this right password started.
        locked_until: null,
      }))
      .where('counter', '=', 'login')
      .where('identifier', '=', identifier)
      .where('failures', '>', 0),
  ])
  const attribute: MfaChallenge = { challenge, methodes: methods, expiration }
  return new BusinessError('MFA_REQUIRED', 403, 'A second factor is required', [attribute])
}

/**
 * A new portal session for a signed-in user: its statements, each written only while `guard` holds
 * at its place in the batch (the second step's code spent by this very request), then its tokens.
 */
export async function openSession(
  ctx: Ctx,
  row: Pick<UtilisateurRow, 'id' | 'admin' | 'domain'>,
  identifier: string,
  now: Date,
  method: SignInMethod,
  commentaire: string | null = null,
) {
  const db = ctx.db
  const familyId = crypto.randomUUID()
  const refresh = await newRefreshToken(row.id, familyId, addSeconds(REFRESH_ABSOLUTE_SECONDS, now).toISOString(), now)
  const opened = db.selectFrom('refresh_token').select('id').where('token_hash', '=', refresh.row.token_hash)
  return {
    statements: (guard: Expression<SqlBool>) => ({
      opened: insertWhen(
        db,
        'refresh_token',
        { ...refresh.row, ...sessionBrowser(ctx.request.userAgent), methode: method },
        db.selectNoFrom(sql`1`.as('one')).where(guard),
      ),
      signInLog: insertWhen(
        db,
        'log',
        logEntry(row.id, 'CONNEXION', 'CONNEXION', ctx.request.userAgent, { commentaire }),
        opened,
      ),
      cleared: clearAttempts(db, 'login', identifier).where(({ exists }) => exists(opened)),
      // Integrators hear of it (connexion.reussie), with how they proved who they are.
      signInEvent: userEvent(db, 'connexion.reussie', row.id, row.id, sql<SqlBool>`exists ${opened}`, now, {
        methode: method,
      }),
    }),
    tokenHash: refresh.row.token_hash,
    familyId,
    tokens: async (): Promise<Tokens> => ({
      accessToken: await accessTokenFor(ctx, row, familyId),
      refreshToken: refresh.token,
      expiresInMsec: ACCESS_TOKEN_TTL_SECONDS * 1000,
    }),
  }
}

/** The provider a second step follows, as its challenge keeps it (a sign-in through a partner's provider). */
export function federatedStep(challenge: {
  fournisseur_id: number | null
  id_token: string | null
  fournisseur_nom: string | null
}) {
  if (challenge.fournisseur_id === null || challenge.id_token === null) return null
  return {
    fournisseurId: challenge.fournisseur_id,
    idToken: challenge.id_token,
    commentaire: `via ${challenge.fournisseur_nom ?? ''}`,
  }
}

/**
 * The session a second step opens, recorded as its provider's, and the link's last sign-in: written only once the
 * session is.
 */
export function federatedSession(
  db: DB,
  via: { fournisseurId: number; idToken: string } | null,
  session: { familyId: string; tokenHash: string; userId: number },
  now: Date,
) {
  if (!via) return { federated: null, federatedLink: null }
  const opened = db.selectFrom('refresh_token').select('id').where('token_hash', '=', session.tokenHash)
  return {
    federated: insertWhen(
      db,
      'session_fournisseur',
      {
        family_id: session.familyId,
        fournisseur_id: via.fournisseurId,
        id_token: via.idToken,
        created_at: now.toISOString(),
      },
      opened,
    ),
    federatedLink: db
      .updateTable('lien_fournisseur')
      .set({ derniere_connexion: now.toISOString() })
      .where('fournisseur_id', '=', via.fournisseurId)
      .where('utilisateur_id', '=', session.userId)
      .where(({ exists }) => exists(opened)),
  }
}

/** A live sign-in challenge, in SQL. */
const liveChallenge = (hash: string, now: string) =>
  sql<SqlBool>`exists (select 1 from mfa_challenge where hash = ${hash} and purpose = 'LOGIN' and expires_at > ${now})`

export const challengeInvalid = () =>
  new BusinessError('MFA_CHALLENGE_INVALID', 401, 'Unknown, used or expired sign-in challenge')

/**
 * The second step: a TOTP code or a recovery code for the challenge the password gave. Each code is
 * accepted once; a wrong one counts like a wrong password (the same counter, the same lockout), and
 * the challenge dies with the lockout.
 */
export async function loginMfa(ctx: Ctx, input: LoginMfaInput): Promise<SignedIn> {
  const db = ctx.db
  const today = todayIso()
  const now = new Date()
  const hash = await sha256Hex(input.challenge)
  const attempt = attemptCounter('login', {
    sql: `SELECT identifier FROM mfa_challenge WHERE hash = ?8 AND purpose = 'LOGIN' AND expires_at > ?2`,
    bind: hash,
  })
  const user = sql<number>`(select utilisateur_id from mfa_challenge where hash = ${hash} and purpose = 'LOGIN')`
  const read = await namedBatch(ctx.d1, {
    challenge: db
      .selectFrom('mfa_challenge')
      .leftJoin('fournisseur', 'fournisseur.id', 'mfa_challenge.fournisseur_id')
      .select(['identifier', 'expires_at', 'fournisseur_id', 'id_token', 'fournisseur.nom as fournisseur_nom'])
      .where('hash', '=', hash)
      .where('purpose', '=', 'LOGIN'),
    ...attempt.statements,
    user: db
      .selectFrom('utilisateur')
      .selectAll()
      .select(pendingMail)
      .select(postesColumn(today))
      .where('id', '=', user),
    totp: db.selectFrom('mfa_totp').select(['secret', 'last_step']).where('utilisateur_id', '=', user),
    codes: db
      .selectFrom('mfa_recovery_code')
      .select('code_hash')
      .where('utilisateur_id', '=', user)
      .where('used_at', 'is', null),
  })
  const challenge = read.challenge?.results[0]
  const row = read.user?.results[0]
  if (!challenge?.identifier || challenge.expires_at <= now.toISOString() || !row) throw challengeInvalid()
  const dropChallenge = () => db.deleteFrom('mfa_challenge').where('hash', '=', hash).execute()
  try {
    attempt.check(read)
  } catch (error) {
    await dropChallenge()
    throw error
  }
  if (!row.actif || row.supprime) throw new BusinessError('USER_DISABLED', 403, 'User disabled')
  if (!sameDomain(row.domain, ctx.request.origin)) throw unauthorizedDomain()

  const spend = await spendCode(db, row.id, input.code, read, hash, now.toISOString())
  if (!spend) {
    // The failure that starts a lockout ends the challenge: after the wait, the password again.
    if (Number(read.claim?.results[0]?.failures ?? 0) > FREE_FAILURES) await dropChallenge()
    await tellLockout(ctx, row.id, challenge.identifier, read)
    throw mfaCodeInvalid()
  }
  const via = federatedStep(challenge)
  const session = await openSession(ctx, row, challenge.identifier, now, 'SECOND_FACTEUR', via?.commentaire ?? null)
  const written = await namedBatch(ctx.d1, {
    spent: spend,
    challenge: db.deleteFrom('mfa_challenge').where('hash', '=', hash).where(sql<SqlBool>`changes() = 1`),
    ...session.statements(sql<SqlBool>`changes() = 1`),
    ...federatedSession(db, via, { ...session, userId: row.id }, now),
  })
  if ((written.opened?.meta.changes ?? 0) === 0) throw mfaCodeInvalid()
  return { user: toUser(row, postesFrom(row.postes, today), false), jwt: await session.tokens() }
}

/**
 * The statement that spends a right code (a TOTP step later than the last one accepted, or an unused
 * recovery code) while the challenge lives; null for a wrong code.
 */
async function spendCode(
  db: DB,
  userId: number,
  code: string,
  read: {
    totp?: { results: { secret: string | null; last_step: number }[] } | undefined
    codes?: { results: { code_hash: string }[] } | undefined
  },
  challengeHash: string,
  now: string,
) {
  const totp = read.totp?.results[0]
  if (isRecoveryCode(code)) {
    const codeHash = await recoveryCodeHash(code)
    if (!read.codes?.results.some((row) => row.code_hash === codeHash)) return null
    return db
      .updateTable('mfa_recovery_code')
      .set({ used_at: now })
      .where('utilisateur_id', '=', userId)
      .where('code_hash', '=', codeHash)
      .where('used_at', 'is', null)
      .where(liveChallenge(challengeHash, now))
  }
  if (!totp?.secret) return null
  const step = acceptedStep(totp.secret, code, totp.last_step)
  if (step === null) return null
  return db
    .updateTable('mfa_totp')
    .set({ last_step: step })
    .where('utilisateur_id', '=', userId)
    .where('secret', '=', totp.secret)
    .where('last_step', '<', step)
    .where(liveChallenge(challengeHash, now))
}
