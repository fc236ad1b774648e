import { sql } from 'kysely'
import type { User } from '../../contract/organisation/user'
import { batch, type Compilable, type DB, insertWhen, namedBatch, writeThenRead } from '../../db/client'
import type { NewLog } from '../../db/schema'
import { BusinessError, forbidden, notFound } from '../../lib/errors'
import { factorResetMail, mailLanguage } from '../../lib/mail/templates'
import { hasSecondFactor, isUserAccount, modificationColumn, userManageable } from '../../lib/scope'
import type { Ctx } from '../../lib/types'
import { type Actor, adminWith, type Caller, viewerOf } from '../core/actor'
import { logEntry } from '../core/audit'
import { afterOneRow, userEvent } from '../core/events'
import { voidLinks } from '../core/mail-tokens'
import { mailQueued, queueMail } from '../core/outbox'
import { userAs, userQuery } from '../core/users'
import { invitationWrites } from './invitations'

/**
 * What an administrator does to an existing account of their scope: its state, its admin flag, its
 * deletion and restoration, a new invitation; each with its audit entry in its batch.
 */

/** An audit entry of an administrator's action on a user (DESIGN §8), naming the user in its comment. */
function userLog(actor: Actor, nomLog: string, user: { id: number; login: string }, userAgent: string | null): NewLog {
  return logEntry(actor.id, 'ADMINISTRATION', nomLog, userAgent, { commentaire: `#${user.id} ${user.login}` })
}

/** The target of an action on a user, with whether the caller may manage them (`modification`). */
async function managedTarget(ctx: Ctx, caller: Caller, id: number) {
  const db = ctx.db
  const {
    actor,
    target: [target],
  } = await adminWith(ctx, caller, {
    target: db
      .selectFrom('utilisateur')
      .select([
        'utilisateur.id',
        'utilisateur.login',
        'utilisateur.nom',
        'utilisateur.prenom',
        'utilisateur.mail',
        'utilisateur.domain',
        'utilisateur.actif',
        'utilisateur.supprime',
        'utilisateur.admin',
        'utilisateur.registration_state',
        'utilisateur.langue',
      ])
      .select(modificationColumn(db, viewerOf(caller)))
      .where('utilisateur.id', '=', id)
      // A pending registration is the authorisation queue's: unknown here (DESIGN §4).
      .where(isUserAccount()),
  })
  // Nobody deletes, deactivates or demotes themself (the last administrator could lock everyone out).
  if (id === actor.id) throw forbidden('You may not do this to your own account')
  if (!target) throw notFound('Unknown user')
  if (!target.modification) throw forbidden('You may not manage this user')
  return { db, actor, target }
}

/**
 * Ends every session of a user (disabled or deleted: DESIGN §3), as the doing of the administrator or program `by` (a
 * viewer's id: `session.terminee` names them).
 */
export const revokeSessions = (db: DB, userId: number, at: string, by: number) =>
  db
    .updateTable('refresh_token')
    .set({ revoked_at: at, revoked_reason: 'ADMINISTRATEUR', revoked_by: by })
    .where('utilisateur_id', '=', userId)
    .where('revoked_at', 'is', null)

/** The user `id` while `actor` may still manage them: the condition of every write on them. */
export const stillManaged = (db: DB, actor: Actor, id: number) =>
  db
    .selectFrom('utilisateur')
    .select('utilisateur.id')
    .where('utilisateur.id', '=', id)
    .where(userManageable(db, viewerOf(actor)))

/** What a flag's change tells integrators: a deactivation, a deletion, a restoration, else a change. */
const flagEvent = (flag: 'actif' | 'supprime' | 'admin', value: boolean) => {
  if (flag === 'actif' && !value) return 'utilisateur.desactive'
  if (flag === 'supprime') return value ? 'utilisateur.supprime' : 'utilisateur.restaure'
  return 'utilisateur.modifie'
}

/**
 * Changes one flag of a user, with its audit entry, in one batch and only if it really changes. `also` runs first, so
 * that it may depend on the former value; every statement holds only while the actor may manage the user.
 */
async function setFlag(
  ctx: Ctx,
  actor: Actor,
  target: { id: number; login: string },
  flag: 'actif' | 'supprime' | 'admin',
  value: boolean,
  nomLog: string,
  also: (at: string, managed: ReturnType<typeof stillManaged>) => Parameters<typeof batch>[1] = () => [],
) {
  const db = ctx.db
  const at = new Date().toISOString()
  const stored = value ? 1 : 0
  const managed = stillManaged(db, actor, target.id)
  const viewer = viewerOf(actor)
  // The user as the change left them, read in the same batch.
  const { written, rows } = await writeThenRead(
    ctx.d1,
    [
      insertWhen(db, 'log', userLog(actor, nomLog, target, ctx.request.userAgent), managed.where(flag, '!=', stored)),
      ...also(at, managed),
      db
        .updateTable('utilisateur')
        .set({ [flag]: stored, updated_at: at })
        .where('id', '=', target.id)
        .where(flag, '!=', stored)
        .where(userManageable(db, viewer)),
      userEvent(db, flagEvent(flag, value), actor.id, target.id, afterOneRow),
    ],
    userQuery(db, target.id, viewer),
  )
  mailQueued(ctx, written)
  return () => userAs(actor, target.id, rows[0], viewer.today)
}

/**
 * PUT rest/bd/utilisateur/state (spec §4: not for administrators). Disabling ends the user's sessions.
 * A user who has not chosen a password yet holds an invitation only while active: activating them
 * sends it (at most `INVITATIONS_PER_HOUR` an hour), deactivating them voids it. Returns the user.
 */
export async function setUserState(ctx: Ctx, caller: Caller, input: { id: number; actif: boolean }): Promise<User> {
  const { db, actor, target } = await managedTarget(ctx, caller, input.id)
  if (target.admin) throw forbidden("An administrator's state does not change; remove the admin flag first")
  const nomLog = input.actif ? 'UTILISATEUR_ACTIVATION' : 'UTILISATEUR_DESACTIVATION'
  const invited = target.registration_state === 'INVITED' && !target.supprime
  // Sent only when the user really becomes active, still waiting for their password.
  const becomesActive = stillManaged(db, actor, target.id)
    .where('actif', '=', 0)
    .where('registration_state', '=', 'INVITED')
  const invitation =
    input.actif && invited
      ? await invitationWrites(db, actor, target, ctx.request, new Date(), { capped: true, onlyIf: becomesActive })
      : null
  const user = await setFlag(ctx, actor, target, 'actif', input.actif, nomLog, (at, managed) => {
    if (input.actif) return invitation ? Object.values(invitation.statements) : []
    return [
      revokeSessions(db, target.id, at, actor.id).where(({ exists }) => exists(managed)),
      ...(invited ? uninvite(db, target.id, at) : []),
    ]
  })
  return user()
}

/** An inactive user's invitation dies (it could not be used), and `tokenRegister` shows none. */
export function uninvite(db: DB, userId: number, at: string) {
  return [
    voidLinks(db, userId, 'INVITATION', at),
    db
      .updateTable('utilisateur')
      .set({ token_register_expires_at: null })
      .where('id', '=', userId)
      .where('registration_state', '=', 'INVITED'),
  ]
}

/** PUT rest/bd/utilisateur/admin: the "admin des niveaux inférieurs" flag (spec §6). */
export async function setUserAdmin(ctx: Ctx, caller: Caller, input: { id: number; admin: boolean }): Promise<User> {
  const { actor, target } = await managedTarget(ctx, caller, input.id)
  const nomLog = input.admin ? 'UTILISATEUR_ADMIN' : 'UTILISATEUR_ADMIN_RETRAIT'
  return (await setFlag(ctx, actor, target, 'admin', input.admin, nomLog))()
}

/**
 * DELETE rest/bd/utilisateur/suppression/{id}: a soft delete (spec §4, restorable). The user keeps
 * their posts and history but cannot sign in: their sessions end and their unused links die.
 */
export async function deleteUser(ctx: Ctx, caller: Caller, id: number): Promise<void> {
  const { actor, target } = await managedTarget(ctx, caller, id)
  await deleteManaged(ctx, actor, target)
}

/** `deleteUser` of a target already known to be the actor's to manage; `first` (an `abortUnless`) joins its batch. */
export async function deleteManaged(
  ctx: Ctx,
  actor: Actor,
  target: { id: number; login: string },
  first: Compilable[] = [],
): Promise<void> {
  const db = ctx.db
  const id = target.id
  await setFlag(ctx, actor, target, 'supprime', true, 'UTILISATEUR_SUPPRESSION', (at, managed) => [
    ...first,
    revokeSessions(db, id, at, actor.id).where(({ exists }) => exists(managed)),
    db
      .updateTable('mail_token')
      .set({ used_at: at })
      .where('utilisateur_id', '=', id)
      .where('used_at', 'is', null)
      .where(({ exists }) => exists(managed)),
  ])
}

/** DELETE rest/bd/utilisateur/retablir/{id}: the deleted user comes back as they were, posts and all. */
export async function restoreUser(ctx: Ctx, caller: Caller, id: number): Promise<void> {
  const { actor, target } = await managedTarget(ctx, caller, id)
  await setFlag(ctx, actor, target, 'supprime', false, 'UTILISATEUR_RETABLISSEMENT')
}

/**
 * POST rest/bd/utilisateur/{id}/invitation: a new invitation for a user who has not chosen a password
 * yet; the earlier link dies once the new one is written, at most `INVITATIONS_PER_HOUR` an hour. An
 * inactive user gets theirs when activated (409 `INVITATION_WAITS_ACTIVATION`).
 */
export async function resendInvitation(ctx: Ctx, caller: Caller, id: number): Promise<void> {
  const { db, actor, target } = await managedTarget(ctx, caller, id)
  if (target.supprime) throw forbidden('Restore this user first')
  if (target.registration_state !== 'INVITED')
    throw new BusinessError('INVITATION_NOT_PENDING', 409, 'This user has already chosen a password')
  if (!target.actif)
    throw new BusinessError('INVITATION_WAITS_ACTIVATION', 409, 'This user is inactive: activating them invites them')
  const invitation = await invitationWrites(db, actor, target, ctx.request, new Date(), { capped: true })
  const mailIds = mailQueued(
    ctx,
    await batch(ctx.d1, [
      ...Object.values(invitation.statements),
      insertWhen(db, 'log', userLog(actor, 'INVITATION_RENVOI', target, ctx.request.userAgent), invitation.written),
    ]),
  )
  if (mailIds.length === 0) {
    throw new BusinessError('TOO_MANY_ATTEMPTS', 429, 'Too many invitations for this user; retry later', [3600])
  }
  return
}

/**
 * DELETE rest/bd/utilisateur/{id}/mfa: the user's second factor reset (authenticator app, passkeys,
 * recovery codes), for a user who lost theirs; audited, and the user told by mail. Nothing happens,
 * no entry nor mail, when they had none.
 */
export async function resetSecondFactor(ctx: Ctx, caller: Caller, id: number): Promise<void> {
  const { db, actor, target } = await managedTarget(ctx, caller, id)
  const had = stillManaged(db, actor, target.id).where(
    sql<boolean>`(${hasSecondFactor(target.id)}
      or exists (select 1 from mfa_recovery_code where utilisateur_id = ${target.id} and used_at is null))`,
  )
  const notice = factorResetMail(mailLanguage(target.langue), target, `${actor.prenom} ${actor.nom}`)
  const results = await namedBatch(ctx.d1, {
    log: insertWhen(db, 'log', userLog(actor, 'MFA_REINITIALISATION', target, ctx.request.userAgent), had),
    mail: queueMail(db, { ...notice, to: target.mail, userId: target.id, kind: 'FACTOR_RESET' }, new Date(), had),
    // The app, the passkeys, the codes, and a sign-in waiting for its second step (which starts again).
    ...Object.fromEntries(
      (['mfa_totp', 'passkey', 'mfa_recovery_code', 'mfa_challenge'] as const).map((table) => [
        table,
        db
          .deleteFrom(table)
          .where('utilisateur_id', '=', target.id)
          .where(({ exists }) => exists(stillManaged(db, actor, target.id))),
      ]),
    ),
  })
  mailQueued(ctx, [results.mail])
}
