import { type Expression, type SqlBool, sql } from 'kysely'
import type { FactorProof, MfaStatus, PasswordProof, TotpEnrolment } from '../../contract/mfa'
import { type DB, insertWhen, namedBatch } from '../../db/client'
import { BusinessError, notFound } from '../../lib/errors'
import { type Factor, factorAddedMail, factorRemovedMail, mailLanguage } from '../../lib/mail/templates'
import { pepperKeyring, verifyPassword } from '../../lib/password'
import { hasSecondFactor } from '../../lib/scope'
import {
  acceptedStep,
  isRecoveryCode,
  newRecoveryCodes,
  newTotpSecret,
  otpauthUri,
  recoveryCodeHash,
} from '../../lib/totp'
import type { Caller, Ctx } from '../../lib/types'
import { type ActorAnd, actorWith, type Reads } from '../core/actor'
import { attemptCounter, clearAttempts } from '../core/attempt-counter'
import { logEntry } from '../core/audit'
import { mailQueued, queueMail } from '../core/outbox'

export const mfaCodeInvalid = () => new BusinessError('MFA_CODE_INVALID', 400, 'Wrong or already used code')

const totpAlreadyOn = () =>
  new BusinessError('MFA_TOTP_ALREADY_ON', 409, 'An authenticator app is on: turn it off first to set up another')

/** The caller's TOTP row, their passkeys and how many recovery codes they have left: GET rest/bd/mfa. */
export function factorsQueries(db: DB, userId: number | Expression<number>) {
  return {
    totp: db.selectFrom('mfa_totp').selectAll().where('utilisateur_id', '=', userId),
    passkeys: db
      .selectFrom('passkey')
      .select(['id', 'nom', 'created_at', 'last_used_at'])
      .where('utilisateur_id', '=', userId)
      .orderBy('created_at'),
    codes: db
      .selectFrom('mfa_recovery_code')
      .select((eb) => eb.fn.countAll<number>().as('left'))
      .where('utilisateur_id', '=', userId)
      .where('used_at', 'is', null),
  }
}

export async function mfaStatus(ctx: Ctx, caller: Caller): Promise<MfaStatus> {
  const factors = factorsQueries(ctx.db, caller.id)
  const { totp, passkeys, codes } = await actorWith(ctx, caller, {
    totp: factors.totp,
    passkeys: factors.passkeys,
    codes: factors.codes,
  })
  return {
    totp: Boolean(totp[0]?.secret),
    passkeys: passkeys.map((key) => ({
      id: key.id,
      nom: key.nom,
      creation: key.created_at,
      derniereUtilisation: key.last_used_at,
    })),
    codesSecoursRestants: Number(codes[0]?.left ?? 0),
  }
}

/**
 * A pending TOTP enrolment: a new secret the caller's app reads (nothing changes at sign-in until a
 * first code confirms it; a confirmed one stays in force until then). Only with the password, counted
 * like wrong old passwords: a stolen session cannot set up an app of its own (which would lock the
 * user out of a password sign-in and hand the thief the recovery codes).
 */
export async function startTotp(ctx: Ctx, caller: Caller, proof: PasswordProof): Promise<TotpEnrolment> {
  const { db, actor, totp } = await proven(ctx, caller, { motDePasse: proof.motDePasse })
  const cleared = clearAttempts(db, 'password-change', String(actor.id))
  // Another app replaces this one only once it is turned off (which asks for a code or the password):
  // a stolen session cannot swap the second factor for its own.
  if (totp?.secret) {
    await cleared.execute()
    throw totpAlreadyOn()
  }
  const secret = newTotpSecret()
  const now = new Date().toISOString()
  await namedBatch(ctx.d1, {
    pending: db
      .insertInto('mfa_totp')
      .values({
        utilisateur_id: actor.id,
        secret: null,
        confirmed_at: null,
        pending_secret: secret,
        pending_created_at: now,
      })
      .onConflict((oc) =>
        oc
          .column('utilisateur_id')
          .doUpdateSet({ pending_secret: secret, pending_created_at: now })
          .where('mfa_totp.secret', 'is', null),
      ),
    cleared,
  })
  return { secret, otpauthUri: otpauthUri(new URL(ctx.request.origin).host, actor.login, secret) }
}

/**
 * Ten new recovery codes for a user, replacing theirs, when `guard` holds: the statements and the codes.
 * The new codes go in first, so `guard` may be `changes() = 1` of the statement before them; the former
 * ones, and whatever else goes with the change (`written`), follow once the new ones are in.
 */
export async function recoveryCodesWrite(db: DB, userId: number, guard: Expression<SqlBool>) {
  const codes = newRecoveryCodes()
  const hashes = await Promise.all(codes.map(recoveryCodeHash))
  const listed = JSON.stringify(hashes)
  const written = sql<SqlBool>`exists (select 1 from mfa_recovery_code where utilisateur_id = ${userId}
    and code_hash = ${hashes[0]})`
  return {
    codes,
    written,
    statements: {
      newCodes: db
        .insertInto('mfa_recovery_code')
        .columns(['utilisateur_id', 'code_hash'])
        .expression(
          db
            .selectFrom(sql<{ code_hash: string }>`(select value as code_hash from json_each(${listed}))`.as('h'))
            .select([sql<number>`${userId}`.as('utilisateur_id'), 'h.code_hash'])
            .where(guard),
        ),
      oldCodes: db
        .deleteFrom('mfa_recovery_code')
        .where('utilisateur_id', '=', userId)
        .where(sql<SqlBool>`code_hash not in (select value from json_each(${listed}))`)
        .where(written),
    },
  }
}

/** The notice of a factor added or removed, to the caller's address, in the batch of the change. */
export async function noticeTo(
  db: DB,
  user: MailUser,
  mail: typeof factorAddedMail,
  factor: Factor,
  guard: Expression<SqlBool>,
) {
  const rendered = mail(mailLanguage(user.langue), user, factor)
  return queueMail(
    db,
    { ...rendered, to: user.mail, userId: user.id, kind: mail === factorAddedMail ? 'FACTOR_ADDED' : 'FACTOR_REMOVED' },
    new Date(),
    db.selectNoFrom(sql<number>`1`.as('one')).where(guard),
  )
}

type MailUser = { id: number; login: string; nom: string; prenom: string; mail: string; langue: string }

export const mailUserQuery = (db: DB, userId: number) =>
  db
    .selectFrom('utilisateur')
    .select(['id', 'login', 'nom', 'prenom', 'mail', 'langue', 'password_hash'])
    .where('id', '=', userId)

/**
 * Confirms the pending enrolment with a first code: TOTP is on, and ten recovery codes (shown once)
 * replace any the user had. 400 MFA_CODE_INVALID on a wrong code. The change takes place only for the
 * secret the code was checked against (two confirmations at once: one wins).
 */
export async function confirmTotp(ctx: Ctx, caller: Caller, code: string) {
  const db = ctx.db
  const { actor, rows, users } = await actorWith(ctx, caller, {
    rows: db.selectFrom('mfa_totp').selectAll().where('utilisateur_id', '=', caller.id),
    users: mailUserQuery(db, caller.id),
  })
  const totp = rows[0]
  const user = users[0]
  if (!totp?.pending_secret || !user) throw notFound('No TOTP enrolment is pending')
  const step = acceptedStep(totp.pending_secret, code, 0)
  if (step === null) throw mfaCodeInvalid()
  const now = new Date().toISOString()
  const confirmed = sql<SqlBool>`exists (select 1 from mfa_totp where utilisateur_id = ${actor.id}
    and confirmed_at = ${now} and secret = ${totp.pending_secret})`
  const recovery = await recoveryCodesWrite(db, actor.id, confirmed)
  const results = await namedBatch(ctx.d1, {
    confirm: db
      .updateTable('mfa_totp')
      .set({
        secret: totp.pending_secret,
        confirmed_at: now,
        last_step: step,
        pending_secret: null,
        pending_created_at: null,
      })
      .where('utilisateur_id', '=', actor.id)
      .where('pending_secret', '=', totp.pending_secret)
      .where('secret', 'is', null),
    ...recovery.statements,
    log: insertWhen(
      db,
      'log',
      logEntry(actor.id, 'ADMINISTRATION', 'MFA_TOTP_AJOUT', ctx.request.userAgent),
      selectWhen(db, confirmed),
    ),
    mail: await noticeTo(db, user, factorAddedMail, { kind: 'totp' }, confirmed),
  })
  if ((results.confirm?.meta.changes ?? 0) === 0) throw notFound('No TOTP enrolment is pending')
  mailQueued(ctx, [results.mail])
  return { codesSecours: recovery.codes }
}

/** The recovery codes of a user whom a removal left without a second factor: they go with it. */
export const codesOfNoFactor = (db: DB, userId: number) =>
  db
    .deleteFrom('mfa_recovery_code')
    .where('utilisateur_id', '=', userId)
    .where(sql<SqlBool>`not ${hasSecondFactor(userId)}`)

export const selectWhen = (db: DB, guard: Expression<SqlBool>) => db.selectNoFrom(sql<number>`1`.as('one')).where(guard)

/**
 * The caller, their TOTP row and their address, with the attempt counted like a wrong old password
 * (the same counter and lockout), and the proof checked: a current TOTP code (its step returned, to be
 * spent by the caller's write) or the password.
 */
export async function proven<R extends Reads = Record<never, never>>(
  ctx: Ctx,
  caller: Caller,
  input: FactorProof,
  reads: R = {} as R,
) {
  const db = ctx.db
  const attempt = attemptCounter('password-change', String(caller.id))
  const fixed = {
    claim: attempt.statements.claim,
    lock: attempt.statements.lock,
    totp: factorsQueries(db, caller.id).totp,
    user: mailUserQuery(db, caller.id),
  }
  // The caller's reads ride in the same batch, under their own names.
  const both = await actorWith(ctx, caller, { ...reads, ...fixed } as Reads)
  const { actor, claim, lock, totp: rows, user: users } = both as unknown as ActorAnd<typeof fixed>
  const extra = both as unknown as ActorAnd<R>
  attempt.check({ claim: { results: claim }, lock: { results: lock } })
  const totp = rows[0]
  const user = users[0]
  if (!user) throw notFound('User not found')
  const answer = {
    db,
    actor,
    user,
    totp,
    extra,
  }
  if (input.code !== undefined) {
    const step = totp?.secret ? acceptedStep(totp.secret, input.code, totp.last_step) : null
    if (step === null || !totp?.secret) throw mfaCodeInvalid()
    return { ...answer, step }
  }
  const check = await verifyPassword(input.motDePasse ?? '', user.password_hash, pepperKeyring(ctx.env))
  if (!check.ok) throw new BusinessError('BAD_OLD_PASSWORD', 400, 'The password is incorrect')
  return { ...answer, step: null }
}

/**
 * The statement that spends the TOTP step a proof used (a code proves once), first in the batch of
 * what it allows; a statement that changes nothing for a password.
 */
export function spendProof(db: DB, userId: number, totp: { secret: string | null } | undefined, step: number | null) {
  return db
    .updateTable('mfa_totp')
    .set({ last_step: step ?? 0 })
    .where('utilisateur_id', '=', userId)
    .where('secret', '=', step === null ? '' : (totp?.secret ?? ''))
    .where('last_step', '<', step ?? 0)
}

/** The guard of the statement right after `spendProof`: with a code, only once this request spent its step. */
export const afterProof = (step: number | null) => (step === null ? sql<SqlBool>`1 = 1` : sql<SqlBool>`changes() = 1`)

/**
 * Turns TOTP off with a current code (accepted once, like at sign-in) or the password; both counted
 * like wrong old passwords (the same lockout). With no passkey left, the recovery codes go too.
 */
export async function removeTotp(ctx: Ctx, caller: Caller, input: FactorProof) {
  const { db, actor, user, totp, step } = await proven(ctx, caller, input)
  if (!totp?.secret) {
    // Proven (by the password), with nothing to remove: the count starts over as after any success.
    await clearAttempts(db, 'password-change', String(actor.id)).execute()
    throw notFound('TOTP is not on')
  }
  const removed = sql<SqlBool>`changes() = 1`
  const rendered = factorRemovedMail(mailLanguage(user.langue), user, { kind: 'totp' })
  const results = await namedBatch(ctx.d1, {
    // The code's step is spent by the removal itself (a code accepted elsewhere meanwhile does not
    // pass twice); the removal holds only for the secret checked.
    removed: db
      .deleteFrom('mfa_totp')
      .where('utilisateur_id', '=', actor.id)
      .where('secret', '=', totp.secret)
      .where('last_step', step === null ? '<=' : '<', step ?? totp.last_step),
    mail: queueMail(
      db,
      { ...rendered, to: user.mail, userId: user.id, kind: 'FACTOR_REMOVED' },
      new Date(),
      selectWhen(db, removed),
    ),
    log: insertWhen(
      db,
      'log',
      logEntry(actor.id, 'ADMINISTRATION', 'MFA_TOTP_RETRAIT', ctx.request.userAgent),
      selectWhen(db, removed),
    ),
    cleared: clearAttempts(db, 'password-change', String(actor.id)),
    codes: codesOfNoFactor(db, actor.id),
    // A sign-in waiting for its second step starts again.
    challenges: db.deleteFrom('mfa_challenge').where('utilisateur_id', '=', actor.id).where('purpose', '=', 'LOGIN'),
  })
  if ((results.removed?.meta.changes ?? 0) === 0) throw mfaCodeInvalid()
  mailQueued(ctx, [results.mail])
}

/**
 * Ten new recovery codes (the former ones die), for a user who has a second factor, with the proof a
 * removal asks for (a current code or the password): a stolen session cannot make codes of its own.
 */
export async function regenerateRecoveryCodes(ctx: Ctx, caller: Caller, input: FactorProof) {
  const { db, actor, user, totp, step } = await proven(ctx, caller, input)
  // A code proves once: its step spent first, by this very request (a sign-in that accepted the same
  // code meanwhile leaves nothing to renew), the codes made only then and the rest only with them.
  const recovery = await recoveryCodesWrite(
    db,
    actor.id,
    sql<SqlBool>`(${hasSecondFactor(actor.id)} and ${afterProof(step)})`,
  )
  const results = await namedBatch(ctx.d1, {
    spend: spendProof(db, actor.id, totp, step),
    ...recovery.statements,
    log: insertWhen(
      db,
      'log',
      logEntry(actor.id, 'ADMINISTRATION', 'MFA_CODES_SECOURS', ctx.request.userAgent),
      selectWhen(db, recovery.written),
    ),
    mail: await noticeTo(db, user, factorAddedMail, { kind: 'recoveryCodes' }, recovery.written),
    cleared: clearAttempts(db, 'password-change', String(actor.id)),
  })
  if ((results.newCodes?.meta.changes ?? 0) === 0) {
    if (step !== null) throw mfaCodeInvalid()
    throw notFound('No second factor to recover')
  }
  mailQueued(ctx, [results.mail])
  return { codesSecours: recovery.codes }
}

/** Whether a code typed at sign-in is a recovery code (else a TOTP code). */
export { isRecoveryCode }
