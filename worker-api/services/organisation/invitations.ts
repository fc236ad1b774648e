import type { Expression, SelectQueryBuilder } from 'kysely'
import { addSeconds } from '../../contract/dates'
import { type DB, insertWhen } from '../../db/client'
import type { Database } from '../../db/schema'
import { randomToken, sha256Hex } from '../../lib/crypto'
import { linkOrigin } from '../../lib/domain'
import { invitationMail, mailLanguage } from '../../lib/mail/templates'
import { INVITATION_TTL_HOURS, underHourlyCap, voidLinks } from '../core/mail-tokens'
import { queueMail } from '../core/outbox'

/** Invitations an administrator may send one user per hour (each is a mail). */
export const INVITATIONS_PER_HOUR = 5

type Inviter = { nom: string; prenom: string; langue: string }
/** The user invited; a user written in the same batch is named by an expression that finds them. */
type Invitee = {
  id: number | Expression<number>
  login: string
  nom: string
  prenom: string
  mail: string
  domain: string
}

/**
 * A new invitation of `user` from `inviter`, as statements for the write's batch: a single-use link valid
 * `INVITATION_TTL_HOURS` and its mail; earlier invitations die once it is written. `capped` holds it to
 * `INVITATIONS_PER_HOUR`, `onlyIf` adds the caller's condition; `written` finds the link once it is in.
 */
export async function invitationWrites(
  db: DB,
  inviter: Inviter,
  user: Invitee,
  context: { origin: string },
  now: Date,
  { capped = false, onlyIf }: { capped?: boolean; onlyIf?: SelectQueryBuilder<Database, keyof Database, unknown> } = {},
) {
  const token = randomToken()
  const tokenHash = await sha256Hex(token)
  const at = now.toISOString()
  const expiresAt = addSeconds(INVITATION_TTL_HOURS * 3600, now).toISOString()
  const url = `${linkOrigin(user.domain, context.origin)}/renewPassword/${token}`
  const mail = invitationMail(
    mailLanguage(inviter.langue),
    user,
    `${inviter.prenom} ${inviter.nom}`,
    url,
    INVITATION_TTL_HOURS,
  )
  let condition = db.selectNoFrom((eb) => eb.val(1).as('room'))
  if (capped) {
    const room = underHourlyCap(db, user.id, 'INVITATION', INVITATIONS_PER_HOUR, now)
    condition = condition.where(({ exists }) => exists(room))
  }
  if (onlyIf) condition = condition.where(({ exists }) => exists(onlyIf))
  const written = db.selectFrom('mail_token').select('id').where('token_hash', '=', tokenHash)
  // In the order the batch must run them: the link, then what goes only with it.
  const statements = {
    link: insertWhen(
      db,
      'mail_token',
      {
        token_hash: tokenHash,
        utilisateur_id: user.id,
        purpose: 'INVITATION',
        adresse: user.mail,
        expires_at: expiresAt,
        created_at: at,
      },
      condition,
    ),
    earlier: voidLinks(db, user.id, 'INVITATION', at)
      .where('token_hash', '!=', tokenHash)
      .where(({ exists }) => exists(written)),
    expiry: db
      .updateTable('utilisateur')
      .set({ token_register_expires_at: expiresAt })
      .where('id', '=', user.id)
      .where(({ exists }) => exists(written)),
    mail: queueMail(db, { ...mail, to: user.mail, userId: user.id, kind: 'INVITATION' }, now, written),
  }
  return { statements, written, expiresAt }
}
