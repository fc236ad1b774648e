import { type SqlBool, sql } from 'kysely'
import type { ADMINISTRATION_ACTIONS } from '../../../contract/log-labels'
import { mailSchema, nameSchema } from '../../../contract/user'
import { aborted, abortUnless, type Compilable, type DB, writeThenRead } from '../../../db/client'
import { uniqueViolation } from '../../../lib/query'
import { modificationColumn, userManageable, type Viewer } from '../../../lib/scope'
import type { Ctx } from '../../../lib/types'
import { type Actor, adminWith, type Caller, viewerOf } from '../../core/actor'
import { logEntry } from '../../core/audit'
import { underHourlyCap } from '../../core/mail-tokens'
import { mailQueued } from '../../core/outbox'
import { invitationWrites } from '../../organisation/invitations'
import {
  loginAfterMailChange,
  MAIL_CHANGE_REQUESTS_PER_HOUR,
  mailCorrection,
  requestMailChange,
} from '../../organisation/mail-change'
import { holderOf } from '../../organisation/profile'
import { deleteManaged, revokeSessions, uninvite } from '../../organisation/user-admin'
import { boundOrigin, createdUserId, invitedUserRow } from '../../organisation/user-creation'
import { invalidValue, ScimError } from './errors'
import { patchChanges, resourceChanges, type UserChanges } from './user-changes'
import { placed, placementReads, placementsHold, postesWrites } from './user-postes'
import { type ScimUserRow, scimBase, scimUsersQuery, toScimUser, userVersion } from './users'

/**
 * SCIM's writes of users (RFC 7644 §3.3, §3.5, §3.6): an HR system creates, updates, deactivates and deletes the users
 * of its account's sub-tree with their posts, under the rules of the screens (a post in scope, the address a login
 * follows, the invitation of a user with no password yet, the confirmation of a new address by a user who has one).
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

/** Another account holding `mail` as its address or login (`holderOf`, the profile's check), when a write names one. */
const holders = (db: DB, mail: string | undefined, id: number) => (mail === undefined ? null : holderOf(db, id, mail))

const uniqueness = (mail: string) => new ScimError(409, `Another user holds ${mail}`, 'uniqueness')

const WHY: Record<string, string> = {
  'validation.required': 'is required',
  'validation.nameLength': 'holds 3 to 50 characters',
  'validation.mailMax': 'holds at most 50 characters',
  'validation.mail': 'is not a mail address',
}

/** A value the request gives, checked as the screens check it; what it leaves is kept as stored. */
function checkedValue(attribute: string, schema: typeof mailSchema, given: string | undefined, stored: string) {
  if (given === undefined) return stored
  const result = schema.safeParse(given)
  if (!result.success)
    throw invalidValue(`${attribute} ${WHY[result.error.issues[0]?.message ?? ''] ?? 'is not valid'}`)
  return result.data
}

/** The names and address a user ends with: those the request gives checked, the others as they are. */
function checkedIdentity(
  given: { mail: string | undefined; nom: string | undefined; prenom: string | undefined },
  stored: { mail: string; nom: string; prenom: string } = { mail: '', nom: '', prenom: '' },
) {
  return {
    mail: checkedValue('userName', mailSchema, given.mail, stored.mail),
    nom: checkedValue('name.familyName', nameSchema, given.nom, stored.nom),
    prenom: checkedValue('name.givenName', nameSchema, given.prenom, stored.prenom),
  }
}

/** The address a write sets: `userName` and `emails` name one address, the login of the users the portal creates. */
function wantedMail(changes: UserChanges, login: string | null): string | undefined {
  // A login of its own, given back as it is, is not a new address.
  const userName =
    changes.userName !== undefined && login !== null && changes.userName.toLowerCase() === login.toLowerCase()
      ? undefined
      : changes.userName
  if (userName !== undefined && changes.mail !== undefined && userName.toLowerCase() !== changes.mail.toLowerCase()) {
    throw invalidValue('userName is the user’s mail address here: emails cannot name another')
  }
  return changes.mail ?? userName
}

/** The audit entry of an account's write on a user. */
const scimLog = (actor: Actor, nomLog: (typeof ADMINISTRATION_ACTIONS)[number], what: string, ctx: Ctx) =>
  logEntry(actor.id, 'ADMINISTRATION', nomLog, ctx.request.userAgent, { commentaire: what })

/** The answer of a write: the user as the batch left them, and their ETag. */
function answered(rows: ScimUserRow[]) {
  const row = rows[0]
  if (!row) throw new ScimError(404, 'The user left this account’s scope')
  return { user: toScimUser(row), version: userVersion(row.version), id: row.id }
}

/** POST Users: a new user with their posts, invited by mail when active; 201. */
export async function createScimUser(ctx: Ctx, caller: Caller, body: unknown) {
  const changes = resourceChanges(body)
  const db = ctx.db
  const viewer = viewerOf(caller)
  const mail = wantedMail(changes, null) ?? ''
  const postes = changes.postes?.list ?? []
  const reads = await adminWith(ctx, caller, { ...placementReads(db, viewer, postes), taken: holders(db, mail, 0) })
  const { actor } = reads
  const identity = checkedIdentity({ mail, nom: changes.nom ?? '', prenom: changes.prenom ?? '' })
  const wanted = placed(postes, reads, viewer.today)
  if (wanted.length === 0 && !actor.racine) {
    throw invalidValue(`A user of this account's sub-tree holds a post in it (${'postes'} of the portal's extension)`)
  }
  if ((reads.taken ?? []).length > 0) throw uniqueness(identity.mail)

  const now = new Date()
  const at = now.toISOString()
  const domain = boundOrigin(actor, undefined, ctx.request.origin)
  const newId = createdUserId(db, identity.mail)
  const user = { id: newId, login: identity.mail, ...identity, domain }
  const invitation = changes.actif ? await invitationWrites(db, actor, user, ctx.request, now) : null
  const writes: Compilable[] = [
    abortUnless(db, db.selectNoFrom(sql<number>`1`.as('one')).where(placementsHold(db, viewer, wanted))),
    db
      .insertInto('utilisateur')
      .values(
        invitedUserRow(
          { ...identity, actif: Boolean(changes.actif), admin: false, externalId: changes.externalId ?? null },
          { domain, langue: actor.langue },
          invitation?.expiresAt ?? null,
          at,
        ),
      ),
    ...wanted.map((poste) =>
      db.insertInto('poste').values({
        utilisateur_id: newId,
        structure_id: poste.structure,
        fonction_id: poste.fonction,
        date_debut: poste.dateDebut,
        date_fin: poste.dateFin,
      }),
    ),
    ...(invitation ? [invitation.statements.link, invitation.statements.mail] : []),
    db
      .insertInto('log')
      .values(
        scimLog(
          actor,
          'UTILISATEUR_CREATION',
          `${identity.mail} : ${wanted.map((poste) => `${poste.label}, ${poste.dateDebut} → ${poste.dateFin}`).join(' ; ') || 'sans poste'}`,
          ctx,
        ),
      ),
  ]
  try {
    const { written, rows } = await writeThenRead(
      ctx.d1,
      writes,
      scimUsersQuery(db, viewer, scimBase(ctx.request.origin)).where('u.id', '=', newId),
    )
    mailQueued(ctx, written)
    return answered(rows)
  } catch (error) {
    // Another request took the address meanwhile (the unique indexes).
    if (uniqueViolation(error)) throw uniqueness(identity.mail)
    if (aborted(error)) throw new ScimError(409, 'A structure or function changed meanwhile; retry')
    if (String(error).includes('FOREIGN KEY')) throw invalidValue('A structure or function was deleted meanwhile')
    throw error
  }
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
  // What only an address or posts need is read only when the write names them.
  const named = changes.mail ?? changes.userName
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
    taken: holders(db, named, userId),
    // A confirmation already asked of that address: asking again would only send the same mails.
    pending:
      named === undefined
        ? null
        : db
            .selectFrom('mail_token')
            .select('id')
            .where('utilisateur_id', '=', userId)
            .where('purpose', '=', 'MAIL_CHANGE')
            .where('used_at', 'is', null)
            .where('expires_at', '>', now.toISOString())
            .where(sql<SqlBool>`new_mail = ${named} collate nocase`),
    mayChangeMail:
      named === undefined
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

  const mail = wantedMail(changes, row.login)
  const identity = checkedIdentity({ mail, nom: changes.nom, prenom: changes.prenom }, row)
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
    const written = postesWrites(db, userId, reads.current ?? [], postes, changes.postes.mode)
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
      { ...row, ...identity, actif: actif ? 1 : 0 },
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
    after.push(...(await requestMailChange(db, row, identity, { ...ctx.request, by: actor, guard: null }, now)))
  } else if (!mailMoves && identity.mail !== row.mail) {
    // The same address in another case: nobody to tell.
    newMail = identity.mail
  }
  if (stateChanges) {
    if (!actif) {
      after.push(revokeSessions(db, userId, at), ...(invited ? uninvite(db, userId, at) : []))
    } else if (invited && !(mailMoves && invited)) {
      const invitation = await invitationWrites(db, actor, { ...row, ...identity }, ctx.request, now, { capped: true })
      after.push(...Object.values(invitation.statements))
    }
  }

  const names = identity.nom !== row.nom || identity.prenom !== row.prenom
  if (names) said.push(`nom : ${identity.prenom} ${identity.nom}`)
  if (newMail && !mailMoves) said.push(`mail : ${newMail}`)
  if (externalId !== row.external_id) said.push(`externalId : ${externalId ?? '—'}`)
  if (stateChanges) said.push(actif ? 'activé' : 'désactivé')
  const userWrite = names || newMail !== null || externalId !== row.external_id || stateChanges
  if (userWrite) {
    writes.push(
      db
        .updateTable('utilisateur')
        .set({
          nom: identity.nom,
          prenom: identity.prenom,
          ...(newMail ? { mail: newMail, login: loginAfterMailChange(row, newMail) } : {}),
          external_id: externalId,
          actif: actif ? 1 : 0,
          updated_at: at,
        })
        .where('id', '=', userId),
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
    if (uniqueViolation(error)) throw uniqueness(identity.mail)
    if (String(error).includes('FOREIGN KEY')) throw invalidValue('A structure or function was deleted meanwhile')
    throw error
  }
}

/** DELETE Users/{id}: the portal's deletion (restorable by an administrator); 204. */
export async function deleteScimUser(ctx: Ctx, caller: Caller, id: string, wanted: Precondition) {
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
  const guard = wanted
    ? [
        abortUnless(
          db,
          db
            .selectFrom('utilisateur')
            .select('id')
            .where('id', '=', userId)
            .where('version', '=', row.version)
            .where(userManageable(db, viewerOf(actor))),
        ),
      ]
    : []
  try {
    await deleteManaged(ctx, actor, row, guard)
  } catch (error) {
    if (aborted(error)) throw new ScimError(412, 'The user changed meanwhile; retry')
    throw error
  }
}
