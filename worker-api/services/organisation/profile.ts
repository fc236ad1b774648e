import { type SqlBool, sql } from 'kysely'
import type { ProfileInput, User } from '../../contract/organisation/user'
import { type DB, writeThenRead } from '../../db/client'
import { BusinessError, forbidden, notFound } from '../../lib/errors'
import { uniqueViolation } from '../../lib/query'
import { userManageable } from '../../lib/scope'
import type { Ctx } from '../../lib/types'
import { actorWith, type Caller, viewerOf } from '../core/actor'
import { afterOneRow, userEvent } from '../core/events'
import { underHourlyCap } from '../core/mail-tokens'
import { mailQueued } from '../core/outbox'
import { mailTaken, userAs, userRead } from '../core/users'
import { loginAfterMailChange, MAIL_CHANGE_REQUESTS_PER_HOUR, mailCorrection, requestMailChange } from './mail-change'

/**
 * Another account holding `mail` as its address, or as its login when the user's login would become
 * it: either unique index would refuse the change.
 */
export function holderOf(db: DB, id: number, mail: string) {
  return db
    .selectFrom('utilisateur')
    .select(['id', sql<number>`mail = ${mail} collate nocase`.as('holds_mail')])
    .where((eb) => eb.or([sql<boolean>`mail = ${mail} collate nocase`, sql<boolean>`login = ${mail} collate nocase`]))
    .where('id', '!=', id)
}

/**
 * PUT rest/bd/utilisateur/{id} (spec §5): nom, prenom and mail (a login that is the address follows it), by the user or
 * an admin with `modification` (DESIGN §4). A new mail takes effect once confirmed from it (`requestMailChange`),
 * whoever asked, except an admin's correction of an invited user's (`mailCorrection`): no password to reset yet.
 */
export async function updateProfile(ctx: Ctx, caller: Caller, id: number, input: ProfileInput): Promise<User> {
  const db = ctx.db
  const now = new Date()
  const viewer = viewerOf(caller)
  // The permission check and the reads the update needs, with the check of the caller: one round
  // trip. A refusal still comes first.
  const {
    actor,
    target: [target],
    row: [row],
    taken,
  } = await actorWith(ctx, caller, {
    target: userRead(db, id, viewer),
    row: db
      .selectFrom('utilisateur')
      .select(['id', 'login', 'nom', 'prenom', 'mail', 'domain', 'langue', 'actif', 'supprime', 'registration_state'])
      // Whether the user may ask for another address change this hour: the cap the insert keeps.
      .select((eb) =>
        eb.exists(underHourlyCap(db, id, 'MAIL_CHANGE', MAIL_CHANGE_REQUESTS_PER_HOUR, now)).as('may_change_mail'),
      )
      .where('id', '=', id),
    taken: holderOf(db, id, input.mail),
  })
  const byAdmin = id !== actor.id
  if (byAdmin && !userAs(actor, id, target, viewer.today).modification) throw forbidden('You may not edit this user')
  if (!row) throw notFound('Unknown user')
  const mailChanged = row.mail.toLowerCase() !== input.mail.toLowerCase()
  const corrected = mailChanged && byAdmin && row.registration_state === 'INVITED'
  // A login that is the address moves with it (now, or once confirmed): it must be free as well.
  const loginFollows = mailChanged && loginAfterMailChange(row, input.mail) !== row.login
  if (taken.some((holder) => holder.holds_mail || loginFollows)) throw mailTaken(input.mail)
  const at = now.toISOString()
  // An administrator's write holds only while they may still manage the user (the check above).
  const managed = db
    .selectFrom('utilisateur')
    .select('utilisateur.id')
    .where('utilisateur.id', '=', id)
    .where(userManageable(db, viewerOf(actor)))
  const guard = byAdmin ? sql<SqlBool>`exists ${managed}` : null
  const names = (mail: string | null) => {
    const update = db
      .updateTable('utilisateur')
      .set({
        nom: input.nom,
        prenom: input.prenom,
        ...(mail ? { mail, login: loginAfterMailChange(row, mail) } : {}),
        updated_at: at,
      })
      .where('id', '=', id)
      // Only a real change is written (a form sent back unchanged is none), judged as the batch runs: what another
      // administrator changed meanwhile is not put back untold.
      .where(
        sql<SqlBool>`(nom is not ${input.nom} or prenom is not ${input.prenom}${mail ? sql` or mail is not ${mail}` : sql``})`,
      )
    // Integrators hear of it, under the very write's condition.
    return [guard ? update.where(guard) : update, userEvent(db, 'utilisateur.modifie', actor.id, id, afterOneRow, now)]
  }
  // The user as the update left them, read in its batch.
  const writeAndRead = async (writes: Parameters<typeof writeThenRead>[1]) => {
    const { written, rows } = await writeThenRead(ctx.d1, writes, userRead(db, id, viewer))
    mailQueued(ctx, written)
    return userAs(actor, id, rows[0], viewer.today)
  }

  if (!mailChanged || corrected) {
    // The same address (perhaps in another case): nothing to prove, nobody to tell. An invited
    // user's corrected one: its writes go with the update.
    const correction = corrected
      ? await mailCorrection(db, actor, { ...row, ...input }, row.mail, ctx.request, now, managed)
      : { before: [], after: [] }
    try {
      return await writeAndRead([...correction.before, ...names(input.mail), ...correction.after])
    } catch (error) {
      // Another account took the address meanwhile (the unique index): the same answer as above.
      if (uniqueViolation(error)) throw mailTaken(input.mail)
      throw error
    }
  }
  if (!row.may_change_mail) {
    throw new BusinessError('TOO_MANY_ATTEMPTS', 429, 'Too many address changes; retry later', [3600])
  }
  const request = await requestMailChange(db, row, input, { ...ctx.request, by: byAdmin ? actor : null, guard }, now)
  return writeAndRead([...names(null), ...request])
}
