import { batch, getDb, insertWhen } from '../db/client'
import type { Env } from '../env'
import { BusinessError } from '../lib/errors'
import { mailChangedMail, mailLanguage } from '../lib/mail/templates'
import { mailChangeLog } from './audit'
import { liveMailToken, stillLive, voidMailChanges, voidPasswordLinks } from './mail-tokens'
import { queuedIds, queueMail } from './outbox'
import { loginAfterMailChange, mailTaken } from './users'

const MAIL_CHANGE = ['MAIL_CHANGE'] as const

/** GET rest/public/bd/utilisateur/mail/token/{token}: the address a link would confirm, and for which account. */
export async function mailChangeOf(env: Env, token: string) {
  const row = await liveMailToken(env, token, MAIL_CHANGE)
  return { mail: row.new_mail ?? '', login: row.login }
}

/**
 * POST rest/public/bd/utilisateur/mail/confirm/: the new address becomes the account's, in one batch
 * that applies only while the link is unused (of two concurrent uses, one wins); a login that was the
 * address follows it. The former address is told; links sent to it (resets, an invitation, other
 * pending changes) die; the change is in the audit history. Returns the address, the login and the
 * outbox ids.
 */
export async function confirmMailChange(env: Env, token: string, userAgent: string | null) {
  const row = await liveMailToken(env, token, MAIL_CHANGE)
  if (!row.actif || row.supprime) throw new BusinessError('USER_DISABLED', 403, 'User disabled')
  const newMail = row.new_mail ?? ''
  const login = loginAfterMailChange(row, newMail)
  const db = getDb(env.DB)
  const now = new Date().toISOString()
  const tokenIsLive = stillLive(db, row.id, now)
  const notice = mailChangedMail(mailLanguage(row.langue), row, newMail)
  try {
    const results = await batch(env.DB, [
      db
        .updateTable('utilisateur')
        .set({ mail: newMail, login, updated_at: now })
        .where('id', '=', row.user_id)
        .where(({ exists }) => exists(tokenIsLive)),
      // Before the token is marked used below: written only by the request that changed the address.
      queueMail(db, { ...notice, to: row.mail, userId: row.user_id, kind: 'MAIL_CHANGED' }, new Date(now), tokenIsLive),
      insertWhen(db, 'log', mailChangeLog(row.user_id, row.mail, newMail, userAgent), tokenIsLive),
      db.updateTable('mail_token').set({ used_at: now }).where('id', '=', row.id).where('used_at', 'is', null),
      voidMailChanges(db, row.user_id, now),
      voidPasswordLinks(db, row.user_id, now),
    ])
    if ((results[0]?.meta.changes ?? 0) === 0) {
      throw new BusinessError('TOKEN_USED', 410, 'This link has already been used')
    }
    return { mail: newMail, login, mailIds: queuedIds(results) }
  } catch (error) {
    // The address was taken by another account since the request (the unique index).
    if (String(error).includes('UNIQUE')) throw mailTaken(newMail)
    throw error
  }
}
