import { type SqlBool, sql } from 'kysely'
import type { FactorProof, MfaStatus, PasswordProof, TotpEnrolment } from '../../contract/sign-in/mfa'
import { insertWhen, namedBatch } from '../../db/client'
import { BusinessError, notFound } from '../../lib/errors'
import { factorAddedMail, factorRemovedMail, mailLanguage } from '../../lib/mail/templates'
import { hasSecondFactor } from '../../lib/scope'
import { acceptedStep, newTotpSecret, otpauthUri } from '../../lib/totp'
import type { Caller, Ctx } from '../../lib/types'
import { actorWith } from '../core/actor'
import { clearAttempts } from '../core/attempt-counter'
import { logEntry } from '../core/audit'
import { mailQueued, queueMail } from '../core/outbox'
import { linksOf, toLien } from '../federation/link-reads'
import {
  afterProof,
  codesOfNoFactor,
  factorsQueries,
  mailUserQuery,
  mfaCodeInvalid,
  noticeTo,
  proven,
  recoveryCodesWrite,
  selectWhen,
  spendProof,
} from './factors'

const totpAlreadyOn = () =>
  new BusinessError('MFA_TOTP_ALREADY_ON', 409, 'An authenticator app is on: turn it off first to set up another')

export async function mfaStatus(ctx: Ctx, caller: Caller): Promise<MfaStatus> {
  const factors = factorsQueries(ctx.db, caller.id)
  const { totp, passkeys, codes, links } = await actorWith(ctx, caller, {
    totp: factors.totp,
    passkeys: factors.passkeys,
    codes: factors.codes,
    links: linksOf(ctx.db, caller.id),
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
    fournisseurs: links.map(toLien),
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
