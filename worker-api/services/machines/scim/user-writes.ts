import { type SqlBool, sql } from 'kysely'
import type { ADMINISTRATION_ACTIONS } from '../../../contract/log-labels'
import { aborted, abortUnless, type Compilable, type DB, writeThenRead } from '../../../db/client'
import { foreignKeyViolation, uniqueViolation } from '../../../lib/query'
import { modificationColumn, userManageable, type Viewer } from '../../../lib/scope'
import type { Ctx } from '../../../lib/types'
import { type Actor, adminWith, type Caller, viewerOf } from '../../core/actor'
import { logEntry } from '../../core/audit'
import { userEvent } from '../../core/events'
import { underHourlyCap } from '../../core/mail-tokens'
import { mailQueued } from '../../core/outbox'
import { invitationWrites } from '../../organisation/invitations'
import {
  loginAfterMailChange,
  MAIL_CHANGE_REQUESTS_PER_HOUR,
  mailCorrection,
  requestMailChange,
} from '../../organisation/mail-change'
import { deleteManaged, revokeSessions, uninvite } from '../../organisation/user-admin'
import { invalidValue, ScimError } from './errors'
import { patchChanges, resourceChanges, type UserChanges } from './user-changes'
import { checkedIdentity, holders, newLogin, raced, uniqueness } from './user-identity'
import { placed, placementReads, placementsHold, postesWrites } from './user-postes'
import { type ScimUserRow, scimBase, scimUsersQuery, toScimUser, userVersion } from './users'

/**
 * SCIM's writes of existing users (RFC 7644 §3.5, §3.6; the creation is `user-create.ts`): an HR system updates,
 * deactivates and deletes the users of its account's sub-tree with their posts, under the rules of the screens (a post
 * in scope, the address a login follows, the invitation of a user with no password yet, the confirmation of a new
 * address by a user who has one).
 * Each write is one D1 batch with its audit entry, first checking that the user is still at the version read and
 * still the account's to manage (`abortUnless`): `If-Match` is answered inside the write it guards.
 */

/** An `If-Match` header: the versions it names (none for `*`, any version). */
export type Precondition = { versions: number[] } | null

export function precondition(header: string | undefined): Precondition {
  if (header === undefined || header.trim() === '') return null
  // Any version: the user exists, which every write checks anyway.
  if (header.trim() === '*') return null
  const versions = [...header.matchAll(/(?:W\/)?"(\d{1,15})"/g)].map((match) => Number(match[1]))
  return { versions }
}

const stale = (version: number) =>
  new ScimError(412, `The user changed since that version: it is now ${userVersion(version)}`)

function checkPrecondition(wanted: Precondition, version: number) {
  if (wanted && !wanted.versions.includes(version)) throw stale(version)
}

/** Attempts of a write without If-Match that another one overtook, before it gives up with 409. */
const ATTEMPTS = 3

/** The extra columns a write reads of its user, beside their SCIM representation. */
function targetQuery(db: DB, viewer: Viewer, id: number, origin: string) {
  return scimUsersQuery(db, viewer, scimBase(origin))
    .select(['u.registration_state', 'u.admin', 'u.domain', 'u.langue', 'u.supprime'])
    .select(modificationColumn(db, viewer, 'u'))
    .where('u.id', '=', id)
}

/** The audit entry of an account's write on a user. */
export const scimLog = (actor: Actor, nomLog: (typeof ADMINISTRATION_ACTIONS)[number], what: string, ctx: Ctx) =>
  logEntry(actor.id, 'ADMINISTRATION', nomLog, ctx.request.userAgent, { commentaire: what })

/** The answer of a write: the user as the batch left them, and their ETag. */
export function answered(rows: ScimUserRow[]) {
  const row = rows[0]
  if (!row) throw new ScimError(404, 'The user left this account’s scope')
  return { user: toScimUser(row), version: userVersion(row.version), id: row.id }
}

/** PUT Users/{id}: the user replaced by the resource (the posts only when the portal's extension is given). */
export function replaceScimUser(ctx: Ctx, caller: Caller, id: string, body: unknown, wanted: Precondition) {
  return updateScimUser(ctx, caller, id, resourceChanges(body), wanted)
}

/** PATCH Users/{id}: the operations applied in order. */
export function patchScimUser(ctx: Ctx, caller: Caller, id: string, body: unknown, wanted: Precondition) {
  return updateScimUser(ctx, caller, id, patchChanges(body), wanted)
}

const userIdOf = (id: string) => (/^\d{1,15}$/.test(id) ? Number(id) : 0)
const notInScope = (id: string) => new ScimError(404, `No user ${id} in this account's scope`)

async function updateScimUser(ctx: Ctx, caller: Caller, id: string, changes: UserChanges, wanted: Precondition) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await updateOnce(ctx, caller, userIdOf(id), id, changes, wanted)
    } catch (error) {
      if (!(error instanceof Overtaken)) throw error
      // With If-Match the client decides; without, the write is done again on what the other one left.
      if (wanted || attempt === ATTEMPTS) throw new ScimError(wanted ? 412 : 409, 'The user changed meanwhile; retry')
    }
  }
}

/** The batch of a write stopped by its first statement: the user changed or left the scope meanwhile. */
class Overtaken extends Error {}

async function updateOnce(
  ctx: Ctx,
  caller: Caller,
  userId: number,
  id: string,
  changes: UserChanges,
  wantedVersion: Precondition,
) {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const now = new Date()
  // What only an address, a login or posts need is read only when the write names them.
  const asked = changes.mail
  const reads = await adminWith(ctx, caller, {
    target: targetQuery(db, viewer, userId, ctx.request.origin),
    current: !changes.postes
      ? null
      : db
          .selectFrom('poste')
          .select(['id', 'structure_id', 'fonction_id', 'date_debut', 'date_fin'])
          .where('utilisateur_id', '=', userId)
          .where('date_fin', '>=', viewer.today),
    ...placementReads(db, viewer, changes.postes?.list),
    taken: holders(db, asked, userId),
    takenLogin: holders(db, changes.userName, userId),
    // A confirmation already asked of that address: asking again would only send the same mails.
    pending:
      asked === undefined
        ? null
        : db
            .selectFrom('mail_token')
            .select('id')
            .where('utilisateur_id', '=', userId)
            .where('purpose', '=', 'MAIL_CHANGE')
            .where('used_at', 'is', null)
            .where('expires_at', '>', now.toISOString())
            .where(sql<SqlBool>`new_mail = ${asked} collate nocase`),
    mayChangeMail:
      asked === undefined
        ? null
        : db.selectNoFrom((eb) =>
            eb.exists(underHourlyCap(db, userId, 'MAIL_CHANGE', MAIL_CHANGE_REQUESTS_PER_HOUR, now)).as('room'),
          ),
  })
  const { actor } = reads
  const row = reads.target[0]
  if (!row) throw notInScope(id)
  checkPrecondition(wantedVersion, row.version)
  if (!row.modification) throw new ScimError(403, 'This user holds a post outside this account’s scope')

  // A PUT without emails names no address of a user whose login is not theirs: its userName is that login.
  const mail = changes.mailIsUserName && row.login.toLowerCase() !== row.mail.toLowerCase() ? undefined : asked
  const identity = checkedIdentity({ mail, nom: changes.nom, prenom: changes.prenom }, row)
  const login = newLogin(changes.userName, mail, row)
  if (login !== undefined && login.toLowerCase() !== row.login.toLowerCase() && (reads.takenLogin ?? []).length > 0) {
    throw uniqueness(login)
  }
  // The user as the mails of this write name them: with the login they will sign in with.
  const recipient = { ...row, login: login ?? row.login }
  const externalId = changes.externalId === undefined ? row.external_id : changes.externalId
  const actif = changes.actif ?? row.actif === 1
  const mailMoves = identity.mail.toLowerCase() !== row.mail.toLowerCase()
  if (mailMoves && (reads.taken ?? []).length > 0) throw uniqueness(identity.mail)

  const at = now.toISOString()
  const said: string[] = []
  const writes: Compilable[] = []
  const after: Compilable[] = []
  const invited = row.registration_state === 'INVITED'

  // The posts: current and future ones become the wanted ones.
  const postes = changes.postes ? placed(changes.postes.list, reads, viewer.today) : null
  if (postes && changes.postes) {
    const written = postesWrites(db, actor.id, userId, reads.current ?? [], postes, changes.postes.mode)
    if (written.left === 0 && !actor.racine) {
      throw invalidValue("A user of this account's sub-tree keeps a post in it: the posts cannot all go")
    }
    writes.push(...written.writes)
    said.push(...written.said)
  }

  // The state: deactivation ends the sessions and the invitation; activation invites a user with no password yet.
  const stateChanges = actif !== (row.actif === 1)
  if (stateChanges && row.admin) {
    throw new ScimError(400, "An administrator's state does not change; remove the admin flag first", 'mutability')
  }
  // The address: corrected at once for a user with no password yet, else confirmed from the new mailbox.
  const managed = db
    .selectFrom('utilisateur')
    .select('utilisateur.id')
    .where('utilisateur.id', '=', userId)
    .where(userManageable(db, viewerOf(actor)))
  let newMail: string | null = null
  if (mailMoves && invited) {
    const correction = await mailCorrection(
      db,
      actor,
      { ...recipient, ...identity, actif: actif ? 1 : 0 },
      row.mail,
      ctx.request,
      now,
      managed,
    )
    writes.unshift(...correction.before)
    after.push(...correction.after)
    newMail = identity.mail
  } else if (mailMoves && (reads.pending ?? []).length === 0) {
    if (!reads.mayChangeMail?.[0]?.room) {
      throw new ScimError(429, 'Too many address changes for this user; retry later', undefined, {
        'Retry-After': '3600',
      })
    }
    after.push(...(await requestMailChange(db, recipient, identity, { ...ctx.request, by: actor, guard: null }, now)))
  } else if (!mailMoves && identity.mail !== row.mail) {
    // The same address in another case: nobody to tell.
    newMail = identity.mail
  }
  if (stateChanges) {
    if (!actif) {
      after.push(revokeSessions(db, userId, at, actor.id), ...(invited ? uninvite(db, userId, at) : []))
    } else if (invited && !(mailMoves && invited)) {
      const invitation = await invitationWrites(db, actor, { ...recipient, ...identity }, ctx.request, now, {
        capped: true,
      })
      after.push(...Object.values(invitation.statements))
    }
  }

  const names = identity.nom !== row.nom || identity.prenom !== row.prenom
  if (names) said.push(`nom : ${identity.prenom} ${identity.nom}`)
  if (newMail && !mailMoves) said.push(`mail : ${newMail}`)
  // A login named moves at once; one that is the address follows it (now, or once the new address is confirmed).
  const loginAfter = login ?? (newMail ? loginAfterMailChange(row, newMail) : row.login)
  if (login !== undefined) said.push(`login : ${login}`)
  if (externalId !== row.external_id) said.push(`externalId : ${externalId ?? '—'}`)
  if (stateChanges) said.push(actif ? 'activé' : 'désactivé')
  const userWrite =
    names || newMail !== null || loginAfter !== row.login || externalId !== row.external_id || stateChanges
  if (userWrite) {
    writes.push(
      db
        .updateTable('utilisateur')
        .set({
          nom: identity.nom,
          prenom: identity.prenom,
          ...(newMail ? { mail: newMail } : {}),
          login: loginAfter,
          external_id: externalId,
          actif: actif ? 1 : 0,
          updated_at: at,
        })
        .where('id', '=', userId),
      userEvent(db, stateChanges && !actif ? 'utilisateur.desactive' : 'utilisateur.modifie', actor.id, userId),
    )
  }
  if (writes.length === 0 && after.length === 0) {
    // Nothing changes: no write, no entry; the user as they are.
    return { user: toScimUser(row), version: userVersion(row.version), id: row.id }
  }
  // A change of state has its own entry, as on the screens; the rest one entry together.
  const stateSaid = actif ? 'activé' : 'désactivé'
  const others = said.filter((part) => !stateChanges || part !== stateSaid)
  const about = `#${userId} ${row.login}`
  const entry = [
    ...(stateChanges
      ? [scimLog(actor, actif ? 'UTILISATEUR_ACTIVATION' : 'UTILISATEUR_DESACTIVATION', about, ctx)]
      : []),
    ...(others.length > 0 ? [scimLog(actor, 'UTILISATEUR_MODIFICATION', `${about} : ${others.join(' ; ')}`, ctx)] : []),
  ].map((values) => db.insertInto('log').values(values))
  const guard = abortUnless(
    db,
    managed.where('utilisateur.version', '=', row.version).where(placementsHold(db, viewer, postes ?? [])),
  )
  try {
    const { written, rows } = await writeThenRead(
      ctx.d1,
      [guard, ...writes, ...after, ...entry],
      scimUsersQuery(db, viewer, scimBase(ctx.request.origin)).where('u.id', '=', userId),
    )
    mailQueued(ctx, written)
    return answered(rows)
  } catch (error) {
    if (aborted(error)) throw new Overtaken()
    if (uniqueViolation(error)) throw raced(error, { login: loginAfter, mail: identity.mail })
    if (foreignKeyViolation(error)) throw invalidValue('A structure or function was deleted meanwhile')
    throw error
  }
}

/** DELETE Users/{id}: the portal's deletion (restorable by an administrator); 204. */
export async function deleteScimUser(ctx: Ctx, caller: Caller, id: string, wanted: Precondition, attempt = 1) {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const userId = userIdOf(id)
  const { actor, target } = await adminWith(ctx, caller, {
    target: targetQuery(db, viewer, userId, ctx.request.origin),
  })
  const row = target[0]
  if (!row) throw notInScope(id)
  checkPrecondition(wanted, row.version)
  if (!row.modification) throw new ScimError(403, 'This user holds a post outside this account’s scope')
  // The user still the account's to manage (and at the version asked) when the batch runs, else it writes nothing.
  const managed = db
    .selectFrom('utilisateur')
    .select('id')
    .where('id', '=', userId)
    .where(userManageable(db, viewerOf(actor)))
  const guard = abortUnless(db, wanted ? managed.where('version', '=', row.version) : managed)
  try {
    await deleteManaged(ctx, actor, row, [guard])
  } catch (error) {
    if (!aborted(error)) throw error
    // Without If-Match, the user is read again so that the answer says what stopped the deletion (a post outside, …).
    if (wanted || attempt === ATTEMPTS) throw new ScimError(wanted ? 412 : 409, 'The user changed meanwhile; retry')
    return deleteScimUser(ctx, caller, id, wanted, attempt + 1)
  }
}
