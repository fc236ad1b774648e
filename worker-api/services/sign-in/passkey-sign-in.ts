import {
  generateAuthenticationOptions,
  type PublicKeyCredentialRequestOptionsJSON,
  verifyAuthenticationResponse,
} from '@simplewebauthn/server'
import { generateChallenge } from '@simplewebauthn/server/helpers'
import { type SqlBool, sql } from 'kysely'
import { todayIso } from '../../contract/dates'
import type { PasskeyLogin } from '../../contract/sign-in/passkeys'
import { insertWhen, namedBatch } from '../../db/client'
import { base64url, fromBase64url, sha256Hex } from '../../lib/crypto'
import { hostOf, sameDomain } from '../../lib/domain'
import { BusinessError } from '../../lib/errors'
import type { Ctx } from '../../lib/types'
import { unauthorizedDomain } from '../core/actor'
import { attemptCounter, FREE_FAILURES } from '../core/attempt-counter'
import { clientCounter } from '../core/rate-limit'
import { pendingMail, postesColumn, postesFrom, toUser } from '../core/users'
import {
  credentialResponse,
  passkeyInvalid,
  readChallenge,
  signedChallenge,
  spendChallenge,
  transportsOf,
  webauthnChallenge,
} from './passkeys'
import {
  challengeInvalid,
  federatedSession,
  federatedStep,
  openSession,
  type SignedIn,
  tellLockout,
} from './password-sign-in'

/** A sign-in's LOGIN challenge (after the right password) that still lives, in SQL. */
const liveLogin = (hash: string, now: string) =>
  sql<SqlBool>`exists (select 1 from mfa_challenge where hash = ${hash} and purpose = 'LOGIN' and expires_at > ${now})`

const rateLimit = (ctx: Ctx) => Number(ctx.env.LOGIN_RATE_PER_MINUTE ?? 30)

/**
 * The options of a passkey sign-in, for the host the request reached (a passkey is bound to the host
 * it was registered on). Without `challenge`, passwordless: any discoverable passkey of the site may
 * answer, and must verify its user. With the challenge of 403 MFA_REQUIRED, the second step: only
 * that user's passkeys. No captcha (nothing to guess); counted per client like the password sign-in.
 */
export async function passkeyLoginOptions(
  ctx: Ctx,
  input: { challenge?: string | undefined },
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const db = ctx.db
  const rpID = hostOf(ctx.request.origin)
  if (!rpID) throw unauthorizedDomain()
  const now = new Date()
  const loginHash = input.challenge === undefined ? null : await sha256Hex(input.challenge)
  const loginUser = loginHash
    ? sql<number>`(select utilisateur_id from mfa_challenge where hash = ${loginHash} and purpose = 'LOGIN'
        and expires_at > ${now.toISOString()})`
    : null
  const rate = clientCounter('passkey-login', ctx.request.ip, rateLimit(ctx))
  const challenge = base64url(await generateChallenge())
  const row = await webauthnChallenge('PASSKEY_LOGIN', challenge, null, now)
  const read = await namedBatch(ctx.d1, {
    rate: rate.statement(),
    keys: loginUser
      ? db
          .selectFrom('passkey')
          .select(['id', 'transports'])
          .where('utilisateur_id', '=', loginUser)
          .where('rp_id', '=', rpID)
          .orderBy('created_at')
      : null,
    stored: insertWhen(
      db,
      'mfa_challenge',
      { ...row, utilisateur_id: loginUser ?? null },
      db
        .selectNoFrom(sql<number>`1`.as('one'))
        .where(sql<SqlBool>`${sql.raw(rate.within)}`)
        .where(loginHash ? liveLogin(loginHash, now.toISOString()) : sql<SqlBool>`1 = 1`),
    ),
  })
  rate.check(read.rate?.results[0])
  if ((read.stored?.meta.changes ?? 0) === 0) throw challengeInvalid()
  return generateAuthenticationOptions({
    rpID,
    challenge: fromBase64url(challenge),
    allowCredentials: (read.keys?.results ?? []).map((key) => ({
      id: key.id,
      transports: transportsOf(key.transports),
    })),
    // Alone, a passkey must also verify its user (a PIN, a fingerprint): possession is not enough.
    userVerification: loginHash ? 'preferred' : 'required',
    timeout: 5 * 60 * 1000,
  })
}

/**
 * A passkey sign-in, checked against the challenge (spent: once), the request's origin and the host it reached. As a
 * second step (403 MFA_REQUIRED's `challenge`) the passkey must be that user's, and a failure counts like a wrong
 * password (the same lockout, which ends the challenge).
 */
export async function passkeyLogin(ctx: Ctx, input: PasskeyLogin): Promise<SignedIn> {
  const db = ctx.db
  const today = todayIso()
  const now = new Date()
  const nowIso = now.toISOString()
  const signed = signedChallenge(input.reponse.response.clientDataJSON)
  const hash = await sha256Hex(signed ?? '')
  const loginHash = input.challenge === undefined ? null : await sha256Hex(input.challenge)
  const rate = clientCounter('passkey-login', ctx.request.ip, rateLimit(ctx))
  const attempt = loginHash
    ? attemptCounter('login', {
        sql: `SELECT identifier FROM mfa_challenge WHERE hash = ?8 AND purpose = 'LOGIN' AND expires_at > ?2`,
        bind: loginHash,
      })
    : null
  const credentialId = input.reponse.id
  const read = await namedBatch(ctx.d1, {
    rate: rate.statement(),
    login: loginHash
      ? db
          .selectFrom('mfa_challenge')
          .leftJoin('fournisseur', 'fournisseur.id', 'mfa_challenge.fournisseur_id')
          .select([
            'identifier',
            'utilisateur_id',
            'expires_at',
            'fournisseur_id',
            'id_token',
            'fournisseur.nom as fournisseur_nom',
          ])
          .where('hash', '=', loginHash)
          .where('purpose', '=', 'LOGIN')
      : null,
    ...attempt?.statements,
    challenge: readChallenge(db, hash, 'PASSKEY_LOGIN'),
    passkey: db.selectFrom('passkey').selectAll().where('id', '=', credentialId),
    user: db
      .selectFrom('utilisateur')
      .selectAll()
      .select(pendingMail)
      .select(postesColumn(today))
      .where('id', '=', db.selectFrom('passkey').select('utilisateur_id').where('id', '=', credentialId)),
  })
  rate.check(read.rate?.results[0])
  const login = read.login?.results[0]
  const dropLogin = async () => {
    if (loginHash) await db.deleteFrom('mfa_challenge').where('hash', '=', loginHash).execute()
  }
  if (loginHash) {
    if (!login?.identifier || login.expires_at <= nowIso) throw challengeInvalid()
    try {
      attempt?.check(read)
    } catch (error) {
      await dropLogin()
      throw error
    }
  }
  /** A refusal: as the second step, counted already; the failure that starts a lockout ends the challenge. */
  const refused = async (error: BusinessError = passkeyInvalid()) => {
    if (loginHash && Number(read.claim?.results[0]?.failures ?? 0) > FREE_FAILURES) await dropLogin()
    if (login?.utilisateur_id && login.identifier) await tellLockout(ctx, login.utilisateur_id, login.identifier, read)
    return error
  }

  const stored = read.challenge?.results[0]
  const key = read.passkey?.results[0]
  const row = read.user?.results[0]
  if (!signed || !stored?.webauthn || stored.expires_at <= nowIso || !key || !row) throw await refused()
  // Bound to the host it was registered on, and to the user the options were asked for.
  if (key.rp_id !== hostOf(ctx.request.origin)) throw await refused()
  if (stored.utilisateur_id !== null && stored.utilisateur_id !== key.utilisateur_id) throw await refused()
  if (login && login.utilisateur_id !== key.utilisateur_id) throw await refused()

  let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>
  try {
    const { reponse } = input
    verified = await verifyAuthenticationResponse({
      response: credentialResponse(reponse),
      expectedChallenge: stored.webauthn,
      expectedOrigin: ctx.request.origin,
      expectedRPID: key.rp_id,
      credential: {
        id: key.id,
        publicKey: fromBase64url(key.public_key),
        counter: key.counter,
        transports: transportsOf(key.transports),
      },
      requireUserVerification: !loginHash,
    })
  } catch {
    throw await refused()
  }
  if (!verified.verified) throw await refused()

  if (row.registration_state !== 'COMPLETE') {
    throw await refused(new BusinessError('USER_NOT_FINISH_REGISTRATION', 403, 'Registration not finished'))
  }
  if (!row.actif || row.supprime) throw await refused(new BusinessError('USER_DISABLED', 403, 'User disabled'))
  if (!sameDomain(row.domain, ctx.request.origin)) throw await refused(unauthorizedDomain())

  const counter = verified.authenticationInfo.newCounter
  const via = login ? federatedStep(login) : null
  const session = await openSession(
    ctx,
    row,
    login?.identifier ?? row.login.toLowerCase(),
    now,
    'CLE_ACCES',
    via?.commentaire ?? null,
  )
  const written = await namedBatch(ctx.d1, {
    spent: spendChallenge(db, hash, 'PASSKEY_LOGIN', nowIso),
    // An authenticator that counts must count on: an answer replayed, or cloned, does not pass.
    used: db
      .updateTable('passkey')
      .set({ counter, last_used_at: nowIso })
      .where('id', '=', key.id)
      .where(sql<SqlBool>`changes() = 1`)
      .where((eb) => (counter === 0 ? eb('counter', '=', 0) : eb('counter', '<', counter))),
    login: loginHash
      ? db
          .deleteFrom('mfa_challenge')
          .where('hash', '=', loginHash)
          .where('purpose', '=', 'LOGIN')
          .where('expires_at', '>', nowIso)
          .where(sql<SqlBool>`changes() = 1`)
      : null,
    ...session.statements(sql<SqlBool>`changes() = 1`),
    ...federatedSession(db, via, { ...session, userId: row.id }, now),
    // Mails sent later speak the language the user signs in with.
    language:
      row.langue === ctx.request.language
        ? null
        : db
            .updateTable('utilisateur')
            .set({ langue: ctx.request.language })
            .where('id', '=', row.id)
            .where(({ exists, selectFrom }) =>
              exists(selectFrom('refresh_token').select('id').where('token_hash', '=', session.tokenHash)),
            ),
  })
  if ((written.opened?.meta.changes ?? 0) === 0) throw await refused()
  return { user: toUser(row, postesFrom(row.postes, today), false), jwt: await session.tokens() }
}
