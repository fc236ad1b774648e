import { type DB, getDb } from '../db/client'
import type { MailTokenPurpose } from '../db/schema'
import type { Env } from '../env'
import { sha256Hex } from '../lib/crypto'
import { BusinessError } from '../lib/errors'

/** How long a password-reset link works. Several may be live at once; using one ends the others. */
export const PASSWORD_RESET_TTL_HOURS = 3
/** How long the link confirming a new mail address works. Only the latest request's link is live. */
export const MAIL_CHANGE_TTL_HOURS = 24

/**
 * The tokens the renew call (`/renewPassword/{token}`) accepts: those whose use is to set a password.
 * Any other purpose is unknown to it, and each other call accepts its own purposes only.
 */
export const PASSWORD_SETTING_PURPOSES: readonly MailTokenPurpose[] = ['PASSWORD_RESET', 'INVITATION', 'REGISTRATION']

/** Voids a user's unused reset links (after a reset, a password change or a new mail address). */
export function voidResetLinks(db: DB, userId: number, now: string) {
  return db
    .updateTable('mail_token')
    .set({ used_at: now })
    .where('utilisateur_id', '=', userId)
    .where('purpose', '=', 'PASSWORD_RESET')
    .where('used_at', 'is', null)
}

/** Voids a user's pending mail-address changes (a newer request, or the address set otherwise). */
export function voidMailChanges(db: DB, userId: number, now: string) {
  return db
    .updateTable('mail_token')
    .set({ used_at: now })
    .where('utilisateur_id', '=', userId)
    .where('purpose', '=', 'MAIL_CHANGE')
    .where('used_at', 'is', null)
}

/**
 * A mail token of one of `purposes` and its user, or the errors of the spec: unknown (a token of
 * another purpose is unknown here too), already used, expired.
 */
export async function liveMailToken(env: Env, token: string, purposes: readonly MailTokenPurpose[], now = new Date()) {
  const row = await getDb(env.DB)
    .selectFrom('mail_token as t')
    .innerJoin('utilisateur as u', 'u.id', 't.utilisateur_id')
    .select([
      't.id',
      't.expires_at',
      't.used_at',
      't.new_mail',
      'u.id as user_id',
      'u.login',
      'u.nom',
      'u.prenom',
      'u.mail',
      'u.domain',
      'u.langue',
      'u.actif',
      'u.supprime',
    ])
    .where('t.token_hash', '=', await sha256Hex(token))
    .where('t.purpose', 'in', purposes)
    .executeTakeFirst()
  if (!row) throw new BusinessError('TOKEN_NOT_FOUND', 404, 'Unknown link')
  if (row.used_at) throw new BusinessError('TOKEN_USED', 410, 'This link has already been used')
  if (row.expires_at <= now.toISOString()) throw new BusinessError('TOKEN_EXPIRED', 410, 'This link has expired')
  return row
}
