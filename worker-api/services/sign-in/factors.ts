import { type Expression, type SqlBool, sql } from 'kysely'
import type { FactorProof } from '../../contract/sign-in/mfa'
import type { DB } from '../../db/client'
import { BusinessError, notFound } from '../../lib/errors'
import { type Factor, factorAddedMail, mailLanguage } from '../../lib/mail/templates'
import { pepperKeyring, verifyPassword } from '../../lib/password'
import { hasSecondFactor } from '../../lib/scope'
import { acceptedStep, newRecoveryCodes, recoveryCodeHash } from '../../lib/totp'
import type { Caller, Ctx } from '../../lib/types'
import { type ActorAnd, actorWith, type Reads } from '../core/actor'
import { attemptCounter } from '../core/attempt-counter'
import { queueMail } from '../core/outbox'

/*
 * What the second factors' calls share (the TOTP app's in mfa.ts, the passkeys' in passkeys.ts, a service account's
 * credentials): the proof a change asks for and the spending of its code, the factors' reads, the recovery codes'
 * writes and the notice of a change.
 */

export const mfaCodeInvalid = () => new BusinessError('MFA_CODE_INVALID', 400, 'Wrong or already used code')

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
