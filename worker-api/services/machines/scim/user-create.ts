import { type SqlBool, sql } from 'kysely'
import { aborted, abortUnless, type Compilable, writeThenRead } from '../../../db/client'
import { foreignKeyViolation, uniqueViolation } from '../../../lib/query'
import type { Ctx } from '../../../lib/types'
import { ofUser, tellAccess } from '../../catalogue/access-told'
import { adminWith, type Caller, viewerOf } from '../../core/actor'
import { posteEvents, userEvent } from '../../core/events'
import { mailQueued } from '../../core/outbox'
import { invitationWrites } from '../../organisation/invitations'
import { boundOrigin, createdUserId, invitedUserRow } from '../../organisation/user-creation'
import { invalidValue, ScimError } from './errors'
import { resourceChanges } from './user-changes'
import { checkedIdentity, holders, raced, uniqueness } from './user-identity'
import { placed, placementReads, placementsHold } from './user-postes'
import { answered, scimLog } from './user-writes'
import { scimBase, scimUsersQuery } from './users'

/**
 * SCIM's creation of users (RFC 7644 §3.3): a user of the account's sub-tree with their posts, their login the userName
 * and their address `emails`', invited when active; one D1 batch with its audit entry, the unique indexes holding the
 * login and the address against another request.
 */

/** POST Users: a new user with their posts, invited by mail when active; 201. */
export async function createScimUser(ctx: Ctx, caller: Caller, body: unknown) {
  const changes = resourceChanges(body)
  const db = ctx.db
  const viewer = viewerOf(caller)
  // The login is the userName; the address is `emails`' (or the userName's, when it is one: `resourceChanges`).
  const login = changes.userName ?? ''
  const mail = changes.mail
  if (mail === undefined) throw invalidValue('A user has a mail address: emails, or a userName that is one')
  const postes = changes.postes?.list ?? []
  const reads = await adminWith(ctx, caller, {
    ...placementReads(db, viewer, postes),
    taken: holders(db, mail, 0),
    takenLogin: login.toLowerCase() === mail.toLowerCase() ? null : holders(db, login, 0),
  })
  const { actor } = reads
  const identity = checkedIdentity({ mail, nom: changes.nom ?? '', prenom: changes.prenom ?? '' })
  const wanted = placed(postes, reads, viewer.today)
  if (wanted.length === 0 && !actor.racine) {
    throw invalidValue(`A user of this account's sub-tree holds a post in it (${'postes'} of the portal's extension)`)
  }
  if ((reads.taken ?? []).length > 0) throw uniqueness(identity.mail)
  if ((reads.takenLogin ?? []).length > 0) throw uniqueness(login)

  const now = new Date()
  const at = now.toISOString()
  const domain = boundOrigin(actor, undefined, ctx.request.origin)
  const newId = createdUserId(db, identity.mail)
  const user = { id: newId, login, ...identity, domain }
  const invitation = changes.actif ? await invitationWrites(db, actor, user, ctx.request, now) : null
  const writes: Compilable[] = [
    abortUnless(db, db.selectNoFrom(sql<number>`1`.as('one')).where(placementsHold(db, viewer, wanted))),
    db
      .insertInto('utilisateur')
      .values(
        invitedUserRow(
          { ...identity, login, actif: Boolean(changes.actif), admin: false, externalId: changes.externalId ?? null },
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
    // Told to integrators as the screens' creation is: the user, then their posts.
    userEvent(db, 'utilisateur.cree', actor.id, newId, undefined, now),
    posteEvents(
      db,
      'poste.cree',
      actor.id,
      (post) => sql<SqlBool>`${post} in (select id from poste where utilisateur_id = ${newId})`,
      undefined,
      now,
    ),
    ...tellAccess(db, actor.id, ofUser(newId), now),
    ...(invitation ? [invitation.statements.link, invitation.statements.mail] : []),
    db
      .insertInto('log')
      .values(
        scimLog(
          actor,
          'UTILISATEUR_CREATION',
          `${login === identity.mail ? login : `${login} (${identity.mail})`} : ${wanted.map((poste) => `${poste.label}, ${poste.dateDebut} → ${poste.dateFin}`).join(' ; ') || 'sans poste'}`,
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
    // Another request took the login or the address meanwhile (the unique indexes).
    if (uniqueViolation(error)) throw raced(error, { login, mail: identity.mail })
    if (aborted(error)) throw new ScimError(409, 'A structure or function changed meanwhile; retry')
    if (foreignKeyViolation(error)) throw invalidValue('A structure or function was deleted meanwhile')
    throw error
  }
}
