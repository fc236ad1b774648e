import { sql } from 'kysely'
import { namedBatch } from '../../db/client'
import { randomToken, sha256Hex } from '../../lib/crypto'
import { linkOrigin } from '../../lib/domain'
import { BusinessError, notFound } from '../../lib/errors'
import { mailLanguage, passwordChangedMail, passwordResetMail } from '../../lib/mail/templates'
import { hashPassword, pepperKeyring, verifyPassword } from '../../lib/password'
import type { Ctx } from '../../lib/types'
import type { Actor } from '../core/actor'
import { attemptCounter, clearAttempts } from '../core/attempt-counter'
import { passPublicGate } from '../core/captcha'
import {
  insertLinkUnderCap,
  liveMailToken,
  PASSWORD_RESET_TTL_HOURS,
  PASSWORD_SETTING_PURPOSES,
  stillLive,
  voidPasswordLinks,
} from '../core/mail-tokens'

export { PASSWORD_RESET_TTL_HOURS }

import { mailQueued, queueMail } from '../core/outbox'
import { registrationCompleted } from '../organisation/registration'

/** Reset mails one account may receive per hour; more requests are answered the same, silently. */
export const RESET_MAILS_PER_HOUR = 3

/**
 * Spec §2 /forgotPassword, first half, before the answer: the per-client limit and the captcha. The
 * answer is then the same whatever the mail, and comes as fast: `queueResetMail` runs after it.
 */
export async function admitForgotRequest(ctx: Ctx, captcha: string | undefined) {
  await passPublicGate(ctx, {
    kind: 'forgot',
    limit: Number(ctx.env.FORGOT_RATE_PER_MINUTE ?? 5),
    captcha,
    remoteIp: ctx.request.ip,
  })
}

/**
 * Second half, after the answer. Only an active account that may sign in gets a mail: a single-use
 * link to /renewPassword/{token}, written to the outbox in the same batch as its token, in the user's
 * language. Earlier links stay valid until one of them is used, so that somebody else asking for
 * resets cannot void the owner's (every mail goes to the owner anyway). Returns the outbox ids.
 */
export async function queueResetMail(ctx: Ctx, address: string): Promise<number[]> {
  const db = ctx.db
  const now = new Date()
  const user = await db
    .selectFrom('utilisateur as u')
    .select(['u.id', 'u.login', 'u.nom', 'u.prenom', 'u.mail', 'u.domain', 'u.langue'])
    .where(sql<boolean>`u.mail = ${address} COLLATE NOCASE`)
    .where('u.actif', '=', 1)
    .where('u.supprime', '=', 0)
    // A carrier's registration waits for an administrator: a reset link must not bypass that.
    .where('u.registration_state', '!=', 'PENDING')
    .executeTakeFirst()
  if (!user) return []

  const token = randomToken()
  const tokenHash = await sha256Hex(token)
  const mail = passwordResetMail(
    mailLanguage(user.langue),
    user,
    `${linkOrigin(user.domain, ctx.request.origin)}/renewPassword/${token}`,
    PASSWORD_RESET_TTL_HOURS,
  )
  // The mail goes only with a link written, and a link only under the hourly cap.
  const link = insertLinkUnderCap(
    db,
    { tokenHash, userId: user.id, purpose: 'PASSWORD_RESET', hours: PASSWORD_RESET_TTL_HOURS },
    RESET_MAILS_PER_HOUR,
    now,
  )
  const { mail: queued } = await namedBatch(ctx.d1, {
    link: link.insert,
    mail: queueMail(db, { ...mail, to: user.mail, userId: user.id, kind: 'PASSWORD_RESET' }, now, link.written),
  })
  return mailQueued(ctx, [queued])
}

/** GET rest/public/bd/password/token/{token}: the user the link is for (spec §3: actif, supprime, mail). */
export async function tokenUser(ctx: Ctx, token: string) {
  const row = await liveMailToken(ctx, token, PASSWORD_SETTING_PURPOSES)
  return { mail: row.mail, actif: row.actif === 1, supprime: row.supprime === 1 }
}

/**
 * POST rest/public/bd/password/renew/: sets the password and uses up the token in one batch, which
 * applies only while the token is still unused (of two concurrent uses, one wins). Every session of
 * the user ends (DESIGN §3), every other link that sets their password dies, and a registration the
 * link completes is complete. The user is told by mail.
 */
export async function renewPassword(ctx: Ctx, input: { token: string; password: string }): Promise<void> {
  const row = await liveMailToken(ctx, input.token, PASSWORD_SETTING_PURPOSES)
  if (!row.actif || row.supprime) throw new BusinessError('USER_DISABLED', 403, 'User disabled')
  const db = ctx.db
  const now = new Date().toISOString()
  const password_hash = await hashPassword(input.password, pepperKeyring(ctx.env).current)
  const tokenIsLive = stillLive(db, row.id, now)
  const notice = passwordChangedMail(mailLanguage(row.langue), row)
  const results = await namedBatch(ctx.d1, {
    set: db
      .updateTable('utilisateur')
      .set({
        password_hash,
        registration_state: 'COMPLETE',
        token_register_expires_at: null,
        updated_at: now,
        // The link was opened: the address it was mailed to is proved, while it is still the account's.
        mail_prouve: sql<string | null>`case when (select t.adresse from mail_token t where t.id = ${row.id})
          = utilisateur.mail collate nocase then utilisateur.mail else utilisateur.mail_prouve end`,
      })
      .where('id', '=', row.user_id)
      .where(({ exists }) => exists(tokenIsLive)),
    // A carrier's registration completed: a user now, told to integrators with their posts and access (under the
    // write above).
    completed: row.registration_state === 'PENDING' ? registrationCompleted(db, row.user_id, new Date(now)) : null,
    // Before the token is marked used below: written only by the request that sets the password.
    mail: queueMail(
      db,
      { ...notice, to: row.mail, userId: row.user_id, kind: 'PASSWORD_CHANGED' },
      new Date(now),
      tokenIsLive,
    ),
    used: db.updateTable('mail_token').set({ used_at: now }).where('id', '=', row.id).where('used_at', 'is', null),
    // Every other link that sets the user's password (reset, invitation, registration) dies with this one.
    voidedLinks: voidPasswordLinks(db, row.user_id, now),
    revoked: db
      .updateTable('refresh_token')
      .set({ revoked_at: now, revoked_reason: 'AUTRE_APPAREIL' })
      .where('utilisateur_id', '=', row.user_id)
      .where('revoked_at', 'is', null),
    cleared: clearAttempts(db, 'login', row.login.toLowerCase()),
  })
  if ((results.set?.meta.changes ?? 0) === 0) {
    throw new BusinessError('TOKEN_USED', 410, 'This link has already been used')
  }
  mailQueued(ctx, [results.mail])
}

/**
 * PUT rest/bd/utilisateur/updatePassword. Wrong old passwords count like failed sign-ins, so a
 * stolen session cannot guess it at leisure. The caller's other sessions end; this one stays. The
 * user is told by mail.
 */
export async function updatePassword(ctx: Ctx, actor: Actor, input: { oldPassword: string; newPassword: string }) {
  const db = ctx.db
  // The attempt counted and the user read in one round trip, before the hash.
  const attempt = attemptCounter('password-change', String(actor.id))
  const read = await namedBatch(ctx.d1, {
    ...attempt.statements,
    user: db
      .selectFrom('utilisateur')
      .select(['id', 'login', 'nom', 'prenom', 'mail', 'langue', 'password_hash'])
      .where('id', '=', actor.id),
  })
  attempt.check(read)
  const user = read.user?.results[0]
  if (!user) throw notFound('User not found')
  const check = await verifyPassword(input.oldPassword, user.password_hash, pepperKeyring(ctx.env))
  if (!check.ok) throw new BusinessError('BAD_OLD_PASSWORD', 400, 'The old password is incorrect')
  const now = new Date().toISOString()
  const notice = passwordChangedMail(mailLanguage(user.langue), user)
  const results = await namedBatch(ctx.d1, {
    set: db
      .updateTable('utilisateur')
      .set({ password_hash: await hashPassword(input.newPassword, pepperKeyring(ctx.env).current), updated_at: now })
      .where('id', '=', actor.id),
    cleared: clearAttempts(db, 'password-change', String(actor.id)),
    // A link sent before (reset, invitation, registration) must not set the password again.
    voidedLinks: voidPasswordLinks(db, actor.id, now),
    mail: queueMail(db, { ...notice, to: user.mail, userId: actor.id, kind: 'PASSWORD_CHANGED' }, new Date(now)),
    // Ended by the password changed in another session: their browsers are told so.
    revoked: db
      .updateTable('refresh_token')
      .set({ revoked_at: now, revoked_reason: 'AUTRE_APPAREIL' })
      .where('utilisateur_id', '=', actor.id)
      .where('revoked_at', 'is', null)
      .where('family_id', '!=', actor.sid)
      .where((eb) => eb.or([eb('parent_family_id', 'is', null), eb('parent_family_id', '!=', actor.sid)])),
  })
  mailQueued(ctx, [results.mail])
  return { id: actor.id }
}
