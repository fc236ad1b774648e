import { type Expression, type SqlBool, sql } from 'kysely'
import { addSeconds } from '../../contract/dates'
import { type DB, insertWhen } from '../../db/client'
import type { MailTokenPurpose } from '../../db/schema'
import { sha256Hex } from '../../lib/crypto'
import { BusinessError } from '../../lib/errors'
import type { Ctx } from '../../lib/types'

/** How long a password-reset link works. Several may be live at once; using one ends the others. */
export const PASSWORD_RESET_TTL_HOURS = 3
/** How long the link confirming a new mail address works. Only the latest request's link is live. */
export const MAIL_CHANGE_TTL_HOURS = 24

/** How long the invitation of a user created by an administrator works; a new one voids the last. */
export const INVITATION_TTL_HOURS = 7 * 24

/** How long the link of an accepted carrier registration works; a new one (resend) voids the last. */
export const REGISTRATION_TTL_HOURS = 7 * 24

/**
 * The tokens the renew call (`/renewPassword/{token}`) accepts: those whose use is to set a password.
 * Any other purpose is unknown to it, and each other call accepts its own purposes only.
 */
export const PASSWORD_SETTING_PURPOSES: readonly MailTokenPurpose[] = ['PASSWORD_RESET', 'INVITATION', 'REGISTRATION']

/** Voids a user's unused links of some purposes (a newer link of the kind, a password or an address changed…). */
export function voidLinks(
  db: DB,
  userId: number | Expression<number>,
  purposes: MailTokenPurpose | readonly MailTokenPurpose[],
  now: string,
) {
  return db
    .updateTable('mail_token')
    .set({ used_at: now })
    .where('utilisateur_id', '=', userId)
    .where('purpose', 'in', typeof purposes === 'string' ? [purposes] : purposes)
    .where('used_at', 'is', null)
}

/**
 * Voids every unused link of a user that sets a password — reset, invitation, registration — once a
 * password is set or the address changes: a link sent before must not set it again, least of all
 * one lying in a mailbox the account left.
 */
export const voidPasswordLinks = (db: DB, userId: number, now: string) =>
  voidLinks(db, userId, PASSWORD_SETTING_PURPOSES, now)

/** Voids a user's pending mail-address changes (a newer request, or the address set otherwise). */
export const voidMailChanges = (db: DB, userId: number, now: string) => voidLinks(db, userId, 'MAIL_CHANGE', now)

/** Finds a row while fewer than `cap` links of `purpose` were written for the user in the hour before `now`. */
export function underHourlyCap(
  db: DB,
  userId: number | Expression<number>,
  purpose: MailTokenPurpose,
  cap: number,
  now: Date,
) {
  return db
    .selectFrom('mail_token')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('utilisateur_id', '=', userId)
    .where('purpose', '=', purpose)
    .where('created_at', '>', addSeconds(-3600, now).toISOString())
    .having((eb) => eb.fn.countAll(), '<', cap)
}

/**
 * A new link (its token's hash and what it is for), written only while the user has fewer than `cap`
 * links of that purpose from the last hour: the cap is counted and the link written in one statement,
 * so requests arriving together cannot all see room for one more. `written` finds the link once it is
 * in: the condition of the mail that carries it, and of whatever else must go only with it.
 */
export function insertLinkUnderCap(
  db: DB,
  link: { tokenHash: string; userId: number; purpose: MailTokenPurpose; newMail?: string; hours: number },
  cap: number,
  now: Date,
  /** A further condition of the write (in HAVING: a WHERE would still leave the count's one row). */
  guard?: Expression<SqlBool>,
) {
  const underCap = underHourlyCap(db, link.userId, link.purpose, cap, now)
  const insert = insertWhen(
    db,
    'mail_token',
    {
      token_hash: link.tokenHash,
      utilisateur_id: link.userId,
      purpose: link.purpose,
      new_mail: link.newMail ?? null,
      // Where the link goes: the new address of a change, else the account's (read as the link is written).
      adresse: link.newMail ?? sql<string>`(select u.mail from utilisateur u where u.id = ${link.userId})`,
      expires_at: addSeconds(link.hours * 3600, now).toISOString(),
      used_at: null,
      created_at: now.toISOString(),
    },
    guard ? underCap.having(guard) : underCap,
  )
  const written = db.selectFrom('mail_token').select('id').where('token_hash', '=', link.tokenHash)
  return { insert, written }
}

/** Finds the token while it is unused and unexpired: the condition of the writes that use it up. */
export function stillLive(db: DB, tokenId: number, now: string) {
  return db
    .selectFrom('mail_token')
    .select('id')
    .where('id', '=', tokenId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
}

/**
 * A mail token of one of `purposes` and its user, or the errors of the spec: unknown (a token of
 * another purpose is unknown here too), already used, expired.
 */
export async function liveMailToken(ctx: Ctx, token: string, purposes: readonly MailTokenPurpose[], now = new Date()) {
  const row = await ctx.db
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
      'u.registration_state',
    ])
    .where('t.token_hash', '=', await sha256Hex(token))
    .where('t.purpose', 'in', purposes)
    .executeTakeFirst()
  if (!row) throw new BusinessError('TOKEN_NOT_FOUND', 404, 'Unknown link')
  if (row.used_at) throw new BusinessError('TOKEN_USED', 410, 'This link has already been used')
  if (row.expires_at <= now.toISOString()) throw new BusinessError('TOKEN_EXPIRED', 410, 'This link has expired')
  return row
}
