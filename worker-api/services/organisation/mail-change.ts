import type { Expression, SelectQueryBuilder, SqlBool } from 'kysely'
import type { ProfileInput } from '../../contract/organisation/user'
import { type DB, insertWhen, namedBatch } from '../../db/client'
import type { Database } from '../../db/schema'
import { randomToken, sha256Hex } from '../../lib/crypto'
import { linkOrigin } from '../../lib/domain'
import { BusinessError } from '../../lib/errors'
import {
  mailChangeByAdminConfirmMail,
  mailChangeByAdminMail,
  mailChangeConfirmMail,
  mailChangedMail,
  mailChangeRequestedMail,
  mailLanguage,
} from '../../lib/mail/templates'
import { uniqueViolation } from '../../lib/query'
import type { Ctx } from '../../lib/types'
import type { Actor } from '../core/actor'
import { mailChangeLog } from '../core/audit'
import { afterOneRow, userEvent } from '../core/events'
import {
  insertLinkUnderCap,
  liveMailToken,
  MAIL_CHANGE_TTL_HOURS,
  stillLive,
  voidMailChanges,
  voidPasswordLinks,
} from '../core/mail-tokens'
import { mailQueued, queueMail } from '../core/outbox'
import { mailTaken } from '../core/users'
import { invitationWrites } from './invitations'

/**
 * A user's move to another address: the request a link to the new address confirms (the user's or an
 * administrator's), an administrator's correction of an invited user's address, and the confirmation.
 */

const MAIL_CHANGE = ['MAIL_CHANGE'] as const

/** Requests a user may make per hour to move their account to another address (each sends a mail). */
export const MAIL_CHANGE_REQUESTS_PER_HOUR = 3

/**
 * The login of an account once its address becomes `newMail`: an account whose login is its address
 * (every account an administrator or a registration created) follows it, so that the address it can
 * be reached at and the one it signs in with stay one; a login of its own stays.
 */
export function loginAfterMailChange(user: { login: string; mail: string }, newMail: string) {
  return user.login.toLowerCase() === user.mail.toLowerCase() ? newMail : user.login
}

/**
 * A move to another address, confirmed from the new mailbox (security review: a session alone, the user's or an
 * administrator's, must not move the account); the current address is told, and by whom (`by`). The cap per hour and
 * `guard` hold atomically with the link's insert, on which everything else waits.
 */
export async function requestMailChange(
  db: DB,
  user: { id: number; login: string; nom: string; prenom: string; mail: string; domain: string; langue: string },
  input: ProfileInput,
  context: { origin: string; userAgent: string | null; by: Actor | null; guard: Expression<SqlBool> | null },
  now: Date,
) {
  const at = now.toISOString()
  const token = randomToken()
  const tokenHash = await sha256Hex(token)
  const url = `${linkOrigin(user.domain, context.origin)}/confirmMail/${token}`
  const { insert, written } = insertLinkUnderCap(
    db,
    { tokenHash, userId: user.id, purpose: 'MAIL_CHANGE', newMail: input.mail, hours: MAIL_CHANGE_TTL_HOURS },
    MAIL_CHANGE_REQUESTS_PER_HOUR,
    now,
    context.guard ?? undefined,
  )
  const words = requestWords(user, input, url, context.by)
  return [
    insert,
    // Earlier requests die once this one is written (not when a race for the cap loses it).
    voidMailChanges(db, user.id, at)
      .where('token_hash', '!=', tokenHash)
      .where(({ exists }) => exists(written)),
    queueMail(db, { ...words.confirm, to: input.mail, userId: user.id, kind: 'MAIL_CHANGE_CONFIRM' }, now, written),
    queueMail(db, { ...words.notice, to: user.mail, userId: user.id, kind: 'MAIL_CHANGE_REQUESTED' }, now, written),
    // An administrator's request is theirs in the history; the user's confirmation is logged when it comes.
    ...(context.by
      ? [insertWhen(db, 'log', pendingMailChangeLog(context.by, user, input.mail, context.userAgent), written)]
      : []),
  ]
}

/** The two mails of a change of address: the link to the new one, the notice to the current one. */
function requestWords(
  user: { login: string; nom: string; prenom: string; langue: string },
  input: ProfileInput,
  url: string,
  by: Actor | null,
) {
  const language = mailLanguage(user.langue)
  const recipient = { ...user, ...input }
  if (!by) {
    return {
      confirm: mailChangeConfirmMail(language, recipient, input.mail, url, MAIL_CHANGE_TTL_HOURS),
      notice: mailChangeRequestedMail(language, recipient, input.mail),
    }
  }
  const admin = `${by.prenom} ${by.nom}`
  return {
    confirm: mailChangeByAdminConfirmMail(language, recipient, admin, input.mail, url, MAIL_CHANGE_TTL_HOURS),
    notice: mailChangeByAdminMail(language, recipient, admin, input.mail),
  }
}

/** The audit entry of an administrator's request to move a user's address, not yet confirmed. */
function pendingMailChangeLog(
  actor: Actor,
  user: { id: number; mail: string },
  newMail: string,
  userAgent: string | null,
) {
  const entry = mailChangeLog(actor.id, user.mail, newMail, userAgent, user.id)
  return { ...entry, commentaire: `${entry.commentaire} (en attente de confirmation)` }
}

/**
 * An administrator's correction of an invited user's address, in the update's batch (`before`, `after`): every link
 * that sets the password dies, since those in the former (often mistyped) mailbox must not open the account. The former
 * address is told; the new one is invited again when the user may use it (active, not deleted).
 */
export async function mailCorrection(
  db: DB,
  actor: Actor,
  user: {
    id: number
    login: string
    nom: string
    prenom: string
    mail: string
    domain: string
    langue: string
    actif: number
    supprime: number
    registration_state: string
  },
  formerMail: string,
  context: { origin: string; userAgent: string | null },
  now: Date,
  managed: SelectQueryBuilder<Database, keyof Database, unknown>,
) {
  const at = now.toISOString()
  const language = mailLanguage(user.langue)
  const login = loginAfterMailChange({ login: user.login, mail: formerMail }, user.mail)
  // Every statement holds only while the administrator may still manage the user, as the update does.
  const invitation =
    user.actif && !user.supprime
      ? await invitationWrites(db, actor, { ...user, login }, context, now, { onlyIf: managed })
      : null
  const voided = [
    voidPasswordLinks(db, user.id, at).where(({ exists }) => exists(managed)),
    voidMailChanges(db, user.id, at).where(({ exists }) => exists(managed)),
  ]
  const told = queueMail(
    db,
    { ...mailChangedMail(language, user, user.mail), to: formerMail, userId: user.id, kind: 'MAIL_CHANGED' },
    now,
    managed,
  )
  const welcome = invitation
    ? Object.values(invitation.statements)
    : // An invited user left without a link shows none (`tokenRegister`).
      [
        db
          .updateTable('utilisateur')
          .set({ token_register_expires_at: null })
          .where('id', '=', user.id)
          .where(({ exists }) => exists(managed)),
      ]
  return {
    before: voided,
    after: [
      told,
      ...welcome,
      insertWhen(db, 'log', mailChangeLog(actor.id, formerMail, user.mail, context.userAgent, user.id), managed),
    ],
  }
}

/** GET rest/public/bd/utilisateur/mail/token/{token}: the address a link would confirm, and for which account. */
export async function mailChangeOf(ctx: Ctx, token: string) {
  const row = await liveMailToken(ctx, token, MAIL_CHANGE)
  return { mail: row.new_mail ?? '', login: row.login }
}

/**
 * POST rest/public/bd/utilisateur/mail/confirm/: the new address becomes the account's, in one batch
 * that applies only while the link is unused (of two concurrent uses, one wins); a login that was the
 * address follows it. The former address is told; links sent to it (resets, an invitation, other
 * pending changes) die; the change is in the audit history. Returns the address and the login.
 */
export async function confirmMailChange(ctx: Ctx, token: string) {
  const row = await liveMailToken(ctx, token, MAIL_CHANGE)
  if (!row.actif || row.supprime) throw new BusinessError('USER_DISABLED', 403, 'User disabled')
  const newMail = row.new_mail ?? ''
  const login = loginAfterMailChange(row, newMail)
  const db = ctx.db
  const now = new Date().toISOString()
  const tokenIsLive = stillLive(db, row.id, now)
  const notice = mailChangedMail(mailLanguage(row.langue), row, newMail)
  try {
    const results = await namedBatch(ctx.d1, {
      changed: db
        .updateTable('utilisateur')
        // The link was opened at the new address: it is proved.
        .set({ mail: newMail, login, mail_prouve: newMail, updated_at: now })
        .where('id', '=', row.user_id)
        .where(({ exists }) => exists(tokenIsLive)),
      // The new address told to integrators, by the user who proved it.
      event: userEvent(db, 'utilisateur.modifie', row.user_id, row.user_id, afterOneRow, new Date(now)),
      // Before the token is marked used below: written only by the request that changed the address.
      mail: queueMail(
        db,
        { ...notice, to: row.mail, userId: row.user_id, kind: 'MAIL_CHANGED' },
        new Date(now),
        tokenIsLive,
      ),
      log: insertWhen(db, 'log', mailChangeLog(row.user_id, row.mail, newMail, ctx.request.userAgent), tokenIsLive),
      used: db.updateTable('mail_token').set({ used_at: now }).where('id', '=', row.id).where('used_at', 'is', null),
      voidedChanges: voidMailChanges(db, row.user_id, now),
      voidedLinks: voidPasswordLinks(db, row.user_id, now),
    })
    if ((results.changed?.meta.changes ?? 0) === 0) {
      throw new BusinessError('TOKEN_USED', 410, 'This link has already been used')
    }
    mailQueued(ctx, [results.mail])
    return { mail: newMail, login }
  } catch (error) {
    // The address was taken by another account since the request (the unique index).
    if (uniqueViolation(error)) throw mailTaken(newMail)
    throw error
  }
}
