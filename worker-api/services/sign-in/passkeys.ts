import {
  type AuthenticatorTransport,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  verifyRegistrationResponse,
} from '@simplewebauthn/server'
import { decodeClientDataJSON } from '@simplewebauthn/server/helpers'
import { type SqlBool, sql } from 'kysely'
import { addSeconds } from '../../contract/dates'
import type { FactorProof } from '../../contract/sign-in/mfa'
import type { PasskeyRegistration } from '../../contract/sign-in/passkeys'
import { type DB, insertWhen, namedBatch } from '../../db/client'
import { base64url, sha256Hex } from '../../lib/crypto'
import { hostOf } from '../../lib/domain'
import { BusinessError, notFound } from '../../lib/errors'
import { factorAddedMail, factorRemovedMail } from '../../lib/mail/templates'
import { hasSecondFactor } from '../../lib/scope'
import type { Caller, Ctx } from '../../lib/types'
import { actorOf, actorWith, unauthorizedDomain } from '../core/actor'
import { clearAttempts } from '../core/attempt-counter'
import { logEntry } from '../core/audit'
import { mailQueued } from '../core/outbox'
import {
  afterProof,
  codesOfNoFactor,
  mailUserQuery,
  mfaCodeInvalid,
  noticeTo,
  proven,
  recoveryCodesWrite,
  selectWhen,
  spendProof,
} from './factors'

/** How long a browser may take between the options and its authenticator's answer. */
export const PASSKEY_CHALLENGE_SECONDS = 5 * 60

/** The name a passkey prompt shows for the portal. */
const RP_NAME = 'Portail'

export const passkeyInvalid = () =>
  new BusinessError('PASSKEY_INVALID', 400, 'The passkey could not be verified (unknown, wrong or used challenge)')

/** The WebAuthn challenge a browser's answer signed, read from its clientDataJSON; null when unreadable. */
export function signedChallenge(clientDataJSON: string): string | null {
  try {
    const challenge = decodeClientDataJSON(clientDataJSON).challenge
    return typeof challenge === 'string' && challenge.length > 0 && challenge.length <= 200 ? challenge : null
  } catch {
    return null
  }
}

/** A passkey's transports as stored (JSON), for the options' credential lists. */
export function transportsOf(stored: string | null): AuthenticatorTransport[] | undefined {
  if (!stored) return undefined
  try {
    const parsed: unknown = JSON.parse(stored)
    return Array.isArray(parsed) ? (parsed as AuthenticatorTransport[]) : undefined
  } catch {
    return undefined
  }
}

/** A WebAuthn challenge row: the SHA-256 of the challenge is its key, so the browser's answer finds it. */
export async function webauthnChallenge(
  purpose: WebauthnPurpose,
  challenge: string,
  userId: number | null,
  now = new Date(),
) {
  return {
    hash: await sha256Hex(challenge),
    purpose,
    utilisateur_id: userId,
    identifier: null,
    webauthn: challenge,
    created_at: now.toISOString(),
    expires_at: addSeconds(PASSKEY_CHALLENGE_SECONDS, now).toISOString(),
  }
}

type WebauthnPurpose = 'PASSKEY_REGISTRATION' | 'PASSKEY_LOGIN'

/** The challenge a browser's answer signed (`hash`: its SHA-256), as it was stored. */
export const readChallenge = (db: DB, hash: string, purpose: WebauthnPurpose) =>
  db
    .selectFrom('mfa_challenge')
    .select(['webauthn', 'utilisateur_id', 'expires_at'])
    .where('hash', '=', hash)
    .where('purpose', '=', purpose)

/** Spends a challenge that still lives: the statement changes one row for one request only. */
export const spendChallenge = (db: DB, hash: string, purpose: WebauthnPurpose, now: string) =>
  db.deleteFrom('mfa_challenge').where('hash', '=', hash).where('purpose', '=', purpose).where('expires_at', '>', now)

/**
 * A new passkey's options, after the proof a factor's change asks for (a current code or the password, counted like a
 * wrong old password, so a stolen session cannot add its own passkey), checked before the authenticator is asked. Bound
 * to the domain's host; the user's passkeys are excluded, so none is registered twice.
 */
export async function passkeyRegistrationOptions(
  ctx: Ctx,
  caller: Caller,
  proof: FactorProof,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const db = ctx.db
  const {
    actor,
    totp,
    step,
    extra: { keys },
  } = await proven(ctx, caller, proof, {
    keys: db
      .selectFrom('passkey')
      .select(['id', 'transports'])
      .where('utilisateur_id', '=', caller.id)
      .orderBy('created_at'),
  })
  const rpID = hostOf(actor.domain)
  if (!rpID) throw unauthorizedDomain()
  const options = await generateRegistrationOptions({
    rpName: RP_NAME,
    rpID,
    userName: actor.login,
    userDisplayName: `${actor.prenom} ${actor.nom}`.trim(),
    // Stable per user, so that an authenticator keeps one discoverable passkey per account and site.
    userID: new TextEncoder().encode(`portail:${actor.id}`),
    timeout: PASSKEY_CHALLENGE_SECONDS * 1000,
    attestationType: 'none',
    excludeCredentials: keys.map((key) => ({ id: key.id, transports: transportsOf(key.transports) })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
  })
  const results = await namedBatch(ctx.d1, {
    // A code proves once: its step spent first, and the challenge made only with it.
    proof: spendProof(db, actor.id, totp, step),
    challenge: insertWhen(
      db,
      'mfa_challenge',
      await webauthnChallenge('PASSKEY_REGISTRATION', options.challenge, actor.id),
      selectWhen(db, afterProof(step)),
    ),
    cleared: clearAttempts(db, 'password-change', String(actor.id)),
  })
  if ((results.challenge?.meta.changes ?? 0) === 0) throw mfaCodeInvalid()
  return options
}

/**
 * The browser's answer as @simplewebauthn reads it: its own fields, with no client extension taken
 * into account (none is asked for).
 */
export const credentialResponse = <
  R extends { id: string; rawId: string; response: unknown; authenticatorAttachment?: unknown; type: 'public-key' },
>(
  reponse: R,
) => ({
  id: reponse.id,
  rawId: reponse.rawId,
  response: reponse.response as R['response'],
  authenticatorAttachment: reponse.authenticatorAttachment as R['authenticatorAttachment'],
  clientExtensionResults: {},
  type: reponse.type,
})

/**
 * Registers the caller's new passkey from their authenticator's answer to the options: checked by
 * @simplewebauthn/server against the challenge (spent in the same batch: once), the request's
 * origin and the domain's host. Audited and told by mail; as the user's first factor, it comes with
 * ten recovery codes (shown once). 400 PASSKEY_INVALID when anything does not verify.
 */
export async function registerPasskey(ctx: Ctx, caller: Caller, input: PasskeyRegistration) {
  const db = ctx.db
  const challenge = signedChallenge(input.reponse.response.clientDataJSON)
  // An unreadable answer finds no challenge, after the caller was checked like on any call.
  const hash = await sha256Hex(challenge ?? '')
  const now = new Date().toISOString()
  // The caller, the challenge (made only for a caller who proved it was them) and their factors, in
  // one round trip.
  const { actor, challenges, factors, users } = await actorWith(ctx, caller, {
    challenges: readChallenge(db, hash, 'PASSKEY_REGISTRATION').where('utilisateur_id', '=', caller.id),
    factors: db.selectNoFrom(sql<number>`${hasSecondFactor(caller.id)}`.as('any')),
    users: mailUserQuery(db, caller.id),
  })
  const user = users[0]
  const stored = challenges[0]
  const rpID = hostOf(actor.domain)
  if (!challenge || !stored?.webauthn || stored.expires_at <= now || !user || !rpID) throw passkeyInvalid()

  const { reponse } = input
  let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>
  try {
    verified = await verifyRegistrationResponse({
      response: credentialResponse(reponse),
      expectedChallenge: stored.webauthn,
      expectedOrigin: ctx.request.origin,
      expectedRPID: rpID,
      requireUserVerification: false,
    })
  } catch {
    throw passkeyInvalid()
  }
  if (!verified.verified) throw passkeyInvalid()
  const { credential } = verified.registrationInfo
  const nom = input.nom

  // Each write holds only once the challenge was spent by this request and the passkey added.
  const added = sql<SqlBool>`exists (select 1 from passkey where id = ${credential.id}
    and utilisateur_id = ${actor.id} and created_at = ${now})`
  const firstFactor = sql<SqlBool>`${added}
    and not exists (select 1 from mfa_totp where utilisateur_id = ${actor.id} and secret is not null)
    and not exists (select 1 from passkey where utilisateur_id = ${actor.id} and id <> ${credential.id})`
  const recovery = Number(factors[0]?.any ?? 0) ? null : await recoveryCodesWrite(db, actor.id, firstFactor)
  const results = await namedBatch(ctx.d1, {
    spent: spendChallenge(db, hash, 'PASSKEY_REGISTRATION', now),
    passkey: insertWhen(
      db,
      'passkey',
      {
        id: credential.id,
        utilisateur_id: actor.id,
        nom,
        public_key: base64url(credential.publicKey),
        counter: credential.counter,
        transports: credential.transports?.length ? JSON.stringify(credential.transports) : null,
        rp_id: rpID,
        created_at: now,
        last_used_at: null,
      },
      db
        .selectNoFrom(sql<number>`1`.as('one'))
        .where(sql<SqlBool>`changes() = 1`)
        .where(sql<SqlBool>`not exists (select 1 from passkey where id = ${credential.id})`),
    ),
    ...recovery?.statements,
    log: insertWhen(
      db,
      'log',
      logEntry(actor.id, 'ADMINISTRATION', 'MFA_CLE_AJOUT', ctx.request.userAgent),
      selectWhen(db, added),
    ),
    mail: await noticeTo(db, user, factorAddedMail, { kind: 'passkey', nom }, added),
  })
  if ((results.passkey?.meta.changes ?? 0) === 0) throw passkeyInvalid()
  const codesSecours = recovery && (results.newCodes?.meta.changes ?? 0) > 0 ? recovery.codes : undefined
  return {
    passkey: { id: credential.id, nom, ...(codesSecours ? { codesSecours } : {}) },
  }
}

/** Renames one of the caller's passkeys; 404 for any other. */
export async function renamePasskey(ctx: Ctx, caller: Caller, id: string, nom: string) {
  const actor = await actorOf(ctx, caller)
  const { renamed } = await namedBatch(ctx.d1, {
    renamed: ctx.db.updateTable('passkey').set({ nom }).where('id', '=', id).where('utilisateur_id', '=', actor.id),
  })
  if ((renamed?.meta.changes ?? 0) === 0) throw notFound('No such passkey')
  return { id, nom }
}

/**
 * Removes one of the caller's passkeys (404 for any other) with the proof a factor's change asks for
 * (a current code or the password, counted like a wrong old password): audited and told by mail. With
 * no factor left, the recovery codes go too.
 */
export async function removePasskey(ctx: Ctx, caller: Caller, id: string, input: FactorProof) {
  const db = ctx.db
  const {
    actor,
    user,
    totp,
    step,
    extra: { keys },
  } = await proven(ctx, caller, input, {
    keys: db.selectFrom('passkey').select('nom').where('id', '=', id).where('utilisateur_id', '=', caller.id),
  })
  const key = keys[0]
  if (!key) {
    // Proven, with nothing to remove: the count starts over as after any success.
    await clearAttempts(db, 'password-change', String(actor.id)).execute()
    throw notFound('No such passkey')
  }
  const removed = sql<SqlBool>`not exists (select 1 from passkey where id = ${id})`
  const results = await namedBatch(ctx.d1, {
    // A code proves once: its step spent first, and the passkey removed only with it.
    proof: spendProof(db, actor.id, totp, step),
    removed: db
      .deleteFrom('passkey')
      .where('id', '=', id)
      .where('utilisateur_id', '=', actor.id)
      .where(afterProof(step)),
    log: insertWhen(
      db,
      'log',
      logEntry(actor.id, 'ADMINISTRATION', 'MFA_CLE_RETRAIT', ctx.request.userAgent),
      selectWhen(db, sql<SqlBool>`changes() = 1`),
    ),
    cleared: clearAttempts(db, 'password-change', String(actor.id)),
    codes: codesOfNoFactor(db, actor.id),
    mail: await noticeTo(db, user, factorRemovedMail, { kind: 'passkey', nom: key.nom }, removed),
  })
  if ((results.removed?.meta.changes ?? 0) === 0) throw step === null ? notFound('No such passkey') : mfaCodeInvalid()
  mailQueued(ctx, [results.mail])
}
