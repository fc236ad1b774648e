import { type Insertable, type SqlBool, sql } from 'kysely'
import { fromWireDate } from '../../contract/dates'
import type { User } from '../../contract/organisation/user'
import type { CreateUserInput, MailCheck } from '../../contract/organisation/user-admin'
import { type DB, namedBatch } from '../../db/client'
import type { UtilisateurTable } from '../../db/schema'
import { isLoopback, sameOrigin } from '../../lib/domain'
import { invalidField } from '../../lib/errors'
import { foreignKeyViolation, uniqueViolation } from '../../lib/query'
import type { Ctx } from '../../lib/types'
import { ofUser, tellAccess } from '../catalogue/access-told'
import { type Actor, adminWith, type Caller, viewerOf } from '../core/actor'
import { logEntry } from '../core/audit'
import { posteEvents, userEvent } from '../core/events'
import { mailQueued } from '../core/outbox'
import { clientCounter } from '../core/rate-limit'
import { mailTaken, userAs, userQuery } from '../core/users'
import { invitationWrites } from './invitations'
import { checkPlacement, placementReads } from './postes'

/**
 * A new user, created by an administrator with their first post, and the check of an address the
 * create forms make first.
 */

/** The account holding an address, whatever its case. */
const mailHolder = (db: DB, mail: string) =>
  db
    .selectFrom('utilisateur')
    .select(['id', 'mail', 'actif', 'supprime'])
    .where(sql<SqlBool>`mail = ${mail} collate nocase`)

/**
 * The origin a new account is bound to: the one the payload names (spec §3 `domain`), which must be
 * the caller's own origin (scheme, host and port) — an administrator cannot mint accounts for another
 * site — or else theirs. On this machine (a loopback account) the caller's own is the origin the
 * request reached: a local run serves the same accounts on whatever port it was given.
 */
export function boundOrigin(actor: Actor, domain: string | undefined, requestOrigin: string): string {
  const own = isLoopback(actor.domain) ? requestOrigin : actor.domain
  if (!domain) return own
  let origin: string
  try {
    origin = new URL(domain).origin
  } catch {
    throw invalidField('domain', 'Not a site origin', 'validation.url')
  }
  // The whole origin: another scheme or port is another site, where every mail link would lead.
  if (!sameOrigin(origin, own)) throw invalidField('domain', 'Another site than yours', 'validation.domain')
  return origin
}

/**
 * The id of the user created in the same batch with `mail`, for the rows written with them. (`collate nocase`, as the
 * unique index on mail: an exact `=` would scan every user.)
 */
export const createdUserId = (db: DB, mail: string) =>
  sql<number>`(${db
    .selectFrom('utilisateur as created')
    .select('created.id')
    .where(sql<SqlBool>`created.mail = ${mail} collate nocase`)})`

/**
 * The row of a user an administrator, an HR system (SCIM) or an import creates: invited (no password yet), their
 * login their address unless SCIM names one, in the creator's language; `expiresAt`, their invitation's end when one
 * is sent with them.
 */
export function invitedUserRow(
  user: {
    mail: string
    nom: string
    prenom: string
    actif: boolean
    admin: boolean
    externalId?: string | null
    /** A login of its own (SCIM's userName); else the address. */
    login?: string | undefined
  },
  creator: { domain: string; langue: 'fr' | 'en' },
  expiresAt: string | null,
  at: string,
): Insertable<UtilisateurTable> {
  return {
    login: user.login ?? user.mail,
    nom: user.nom,
    prenom: user.prenom,
    mail: user.mail,
    ...(user.externalId === undefined ? {} : { external_id: user.externalId }),
    password_hash: null,
    actif: user.actif ? 1 : 0,
    admin: user.admin ? 1 : 0,
    domain: creator.domain,
    langue: creator.langue,
    registration_state: 'INVITED',
    token_register_expires_at: expiresAt,
    created_at: at,
    updated_at: at,
  }
}

/**
 * POST rest/bd/utilisateur (spec §3, §5): a user (the login is the mail) with a first post in scope, in one batch. Only
 * an active user is invited now; an inactive one is invited on activation, since a link they could not use yet would
 * only run out.
 */
export async function createUser(ctx: Ctx, caller: Caller, input: CreateUserInput): Promise<User> {
  const db = ctx.db
  const viewer = viewerOf(caller)
  const { poste } = input
  const {
    actor,
    structures,
    fonctions,
    holder: [holder],
  } = await adminWith(ctx, caller, {
    ...placementReads(db, viewer, poste),
    holder: mailHolder(db, input.mail),
  })
  const domain = boundOrigin(actor, input.domain, ctx.request.origin)
  const debut = fromWireDate(poste.dateDebut) ?? ''
  const fin = fromWireDate(poste.dateFin) ?? ''
  const { structure, fonction } = checkPlacement(structures[0], fonctions[0], fin, viewer.today, 'poste.')
  if (holder) throw mailTaken(input.mail)

  const now = new Date()
  const at = now.toISOString()
  const newId = createdUserId(db, input.mail)
  const user = { id: newId, login: input.mail, nom: input.nom, prenom: input.prenom, mail: input.mail, domain }
  const invitation = input.actif ? await invitationWrites(db, actor, user, ctx.request, now) : null
  const results = await namedBatch(ctx.d1, {
    user: db
      .insertInto('utilisateur')
      .values(
        // The login of a user made from the screens or this API is their address (`login` is ignored).
        invitedUserRow(
          { ...input, login: undefined },
          { domain, langue: actor.langue },
          invitation?.expiresAt ?? null,
          at,
        ),
      )
      .returning('id'),
    poste: db.insertInto('poste').values({
      utilisateur_id: newId,
      structure_id: structure.id,
      fonction_id: fonction.id,
      date_debut: debut,
      date_fin: fin,
    }),
    userEvent: userEvent(db, 'utilisateur.cree', actor.id, newId),
    posteEvent: posteEvents(
      db,
      'poste.cree',
      actor.id,
      (post) => sql<SqlBool>`${post} in (select id from poste where utilisateur_id = ${newId})`,
    ),
    access: tellAccess(db, actor.id, ofUser(newId), now),
    // A new user has no earlier invitation to void, and their expiry is written with them.
    invitation: invitation?.statements.link ?? null,
    invitationMail: invitation?.statements.mail ?? null,
    log: db.insertInto('log').values(
      logEntry(actor.id, 'ADMINISTRATION', 'UTILISATEUR_CREATION', ctx.request.userAgent, {
        commentaire: `${input.mail}${input.admin ? ' (admin)' : ''} : ${fonction.libelle}, ${structure.nom}, ${poste.dateDebut} → ${poste.dateFin}`,
      }),
    ),
    // The new user as the caller sees them, read in the same batch.
    created: userQuery(db, newId, viewer),
  }).catch((error) => {
    // Another request took the address meanwhile (the unique index): the same answer as above.
    if (uniqueViolation(error)) throw mailTaken(input.mail)
    // The function was deleted meanwhile (its key refuses the post): nothing was written.
    if (foreignKeyViolation(error)) throw invalidField('poste.fonction.id', 'Unknown function', 'validation.unknown')
    throw error
  })
  const [created] = results.user?.results ?? []
  if (!created) throw new Error('The new user was not written')
  if (results.invitationMail) mailQueued(ctx, [results.invitationMail])
  return userAs(actor, created.id, results.created?.results[0], viewer.today)
}

/**
 * GET rest/public/bd/utilisateur/mail?mail=: the account an address belongs to, and whether it is
 * active (a deleted one is not), for the create forms (spec §4 mail check). Limited per client: it
 * tells whether an address has an account.
 */
export async function checkMail(ctx: Ctx, mail: string, ip: string | null): Promise<MailCheck> {
  const counter = clientCounter('mail-check', ip, Number(ctx.env.MAIL_CHECK_RATE_PER_MINUTE ?? 30))
  const read = await namedBatch(ctx.d1, { count: counter.statement(), holder: mailHolder(ctx.db, mail) })
  counter.check(read.count?.results[0])
  const holder = read.holder?.results[0]
  if (!holder) return { mail: null, actif: null }
  return { mail: holder.mail, actif: holder.actif === 1 && holder.supprime === 0 }
}
