import { type Expression, type SqlBool, sql } from 'kysely'
import { DEFAULT_PAGE_SIZE } from '../contract/base'
import type { User } from '../contract/user'
import type { CreateUserInput, MailCheck, UserListQuery } from '../contract/user-admin'
import { batch, type DB, getDb, insertWhen } from '../db/client'
import type { NewLog } from '../db/schema'
import type { Env } from '../env'
import { randomToken, sha256Hex } from '../lib/crypto'
import { addSeconds, fromWireDate } from '../lib/dates'
import { linkOrigin, sameOrigin } from '../lib/domain'
import { BusinessError, forbidden, invalidField, notFound } from '../lib/errors'
import { invitationMail, mailLanguage } from '../lib/mail/templates'
import { modificationColumn, smallScope, userListedInScope, type Viewer } from '../lib/scope'
import { searchWords } from '../lib/search-text'
import { type Actor, actorWith, type Caller, viewerOf } from './actor'
import { logEntry } from './logs'
import { INVITATION_TTL_HOURS, insertLinkUnderCap, voidLinks } from './mail-tokens'
import { queuedIds, queueMail } from './outbox'
import { checkPlacement, placementReads } from './postes'
import { limitClient } from './rate-limit'
import { containsEveryWord, requireAdmin, WHOLE_LIST_READ, wholeList } from './structures'
import { mailTaken, postesColumn, postesFrom, readUser, toUser } from './users'

type Context = { origin: string; userAgent: string | null }

/** Invitations an administrator may send one user per hour (each is a mail). */
export const INVITATIONS_PER_HOUR = 5

/** An audit entry of an administrator's action on a user (DESIGN §8), naming the user in its comment. */
function userLog(actor: Actor, nomLog: string, user: { id: number; login: string }, userAgent: string | null): NewLog {
  return logEntry(actor.id, 'ADMINISTRATION', nomLog, userAgent, { commentaire: `#${user.id} ${user.login}` })
}

/** The account holding an address, whatever its case. */
const mailHolder = (db: DB, mail: string) =>
  db
    .selectFrom('utilisateur')
    .select(['id', 'mail', 'actif', 'supprime'])
    .where(sql<SqlBool>`mail = ${mail} collate nocase`)

/**
 * The origin a new account is bound to: the one the payload names (spec §3 `domain`), which must be
 * the caller's own origin (scheme, host and port) — an administrator cannot mint accounts for another
 * site — or else theirs.
 */
function boundOrigin(actor: Actor, domain: string | undefined): string {
  if (!domain) return actor.domain
  let origin: string
  try {
    origin = new URL(domain).origin
  } catch {
    throw invalidField('domain', 'Not a site origin', 'validation.url')
  }
  // The whole origin: another scheme or port is another site, where every mail link would lead.
  if (!sameOrigin(origin, actor.domain)) throw invalidField('domain', 'Another site than yours', 'validation.domain')
  return origin
}

/** An invitation to `user` from `actor`: its token's hash and expiry, and its mail to queue. */
async function invitation(
  actor: Actor,
  user: { login: string; nom: string; prenom: string; mail: string; domain: string },
  context: Context,
  now: Date,
) {
  const token = randomToken()
  const url = `${linkOrigin(user.domain, context.origin)}/renewPassword/${token}`
  return {
    tokenHash: await sha256Hex(token),
    expiresAt: addSeconds(INVITATION_TTL_HOURS * 3600, now).toISOString(),
    mail: {
      ...invitationMail(mailLanguage(actor.langue), user, `${actor.prenom} ${actor.nom}`, url, INVITATION_TTL_HOURS),
      to: user.mail,
      kind: 'INVITATION' as const,
    },
  }
}

/**
 * POST rest/bd/utilisateur (spec §3, §5): a user with their first post, in a structure of the caller's
 * scope, and an invitation to choose their password (a single-use link, valid 7 days). The user, the
 * post, the link, the mail and the audit entry are one batch: all or nothing. The login is the mail.
 */
export async function createUser(
  env: Env,
  caller: Caller,
  input: CreateUserInput,
  context: Context,
): Promise<{ user: User; mailIds: number[] }> {
  const db = getDb(env.DB)
  const viewer = viewerOf(caller)
  const { poste } = input
  const [actor, structures, fonctions, [holder]] = await actorWith(
    env,
    caller,
    ...placementReads(db, viewer, poste),
    mailHolder(db, input.mail),
  )
  requireAdmin(actor)
  const domain = boundOrigin(actor, input.domain)
  const debut = fromWireDate(poste.dateDebut) ?? ''
  const fin = fromWireDate(poste.dateFin) ?? ''
  const { structure, fonction } = checkPlacement(structures[0], fonctions[0], fin, viewer.today, 'poste.')
  if (holder) throw mailTaken(input.mail)

  const now = new Date()
  const at = now.toISOString()
  // The new user's id, for the rows written with them in the batch.
  // (`collate nocase`, as the unique index on mail: an exact `=` would scan every user.)
  const newId = sql<number>`(${db
    .selectFrom('utilisateur as created')
    .select('created.id')
    .where(sql<SqlBool>`created.mail = ${input.mail} collate nocase`)})`
  const user = { login: input.mail, nom: input.nom, prenom: input.prenom, mail: input.mail, domain }
  const link = await invitation(actor, user, context, now)
  let results: D1Result[]
  try {
    results = await batch(env.DB, [
      db
        .insertInto('utilisateur')
        .values({
          login: input.mail,
          nom: input.nom,
          prenom: input.prenom,
          mail: input.mail,
          password_hash: null,
          actif: input.actif ? 1 : 0,
          admin: input.admin ? 1 : 0,
          domain,
          langue: actor.langue,
          registration_state: 'INVITED',
          token_register_expires_at: link.expiresAt,
          created_at: at,
          updated_at: at,
        })
        .returning('id'),
      db.insertInto('poste').values({
        utilisateur_id: newId,
        structure_id: structure.id,
        fonction_id: fonction.id,
        date_debut: debut,
        date_fin: fin,
      }),
      db.insertInto('mail_token').values({
        token_hash: link.tokenHash,
        utilisateur_id: newId,
        purpose: 'INVITATION',
        expires_at: link.expiresAt,
        created_at: at,
      }),
      queueMail(db, { ...link.mail, userId: newId }, now),
      db.insertInto('log').values(
        logEntry(actor.id, 'ADMINISTRATION', 'UTILISATEUR_CREATION', context.userAgent, {
          commentaire: `${input.mail}${input.admin ? ' (admin)' : ''} : ${fonction.libelle}, ${structure.nom}, ${poste.dateDebut} → ${poste.dateFin}`,
        }),
      ),
    ])
  } catch (error) {
    // Another request took the address meanwhile (the unique index): the same answer as above.
    if (String(error).includes('UNIQUE')) throw mailTaken(input.mail)
    throw error
  }
  const [created] = (results[0]?.results ?? []) as { id: number }[]
  if (!created) throw new Error('The new user was not written')
  return { user: await readUser(db, actor, created.id), mailIds: queuedIds(results.slice(3, 4)) }
}

/**
 * The users of a list query: in scope, registered or invited (a pending registration is not a user
 * yet), read from the users or from the scope's posts (`userListedInScope`). The filters come before
 * the scope, which probes other tables.
 */
function listedUsers(db: DB, viewer: Viewer, query: UserListQuery, from: 'users' | 'posts') {
  const today = viewer.today
  const current = db
    .selectFrom('poste as held')
    .select('held.id')
    .where(sql<SqlBool>`held.utilisateur_id = utilisateur.id`)
    .where('held.date_debut', '<=', today)
    .where('held.date_fin', '>=', today)
  const matches = containsEveryWord(['utilisateur.recherche'], query.q)
  return db
    .selectFrom('utilisateur')
    .where('utilisateur.registration_state', '!=', 'PENDING')
    .$if(query.actif !== undefined, (q) => q.where('utilisateur.actif', '=', query.actif === 'true' ? 1 : 0))
    .$if(query.supprime !== undefined, (q) => q.where('utilisateur.supprime', '=', query.supprime === 'true' ? 1 : 0))
    .$if(matches !== null, (q) => q.where(matches as Expression<SqlBool>))
    .$if(query.poste === 'true', (q) => q.where((eb) => eb.exists(current)))
    .$if(query.poste === 'false', (q) => q.where((eb) => eb.not(eb.exists(current))))
    .where(userListedInScope(db, viewer, { from, withPostless: query.poste !== 'true' }))
}

const SORT_COLUMNS = {
  nom: ['nom', 'prenom'],
  prenom: ['prenom', 'nom'],
  mail: ['mail'],
} as const

/**
 * The key of a list's total in `utilisateur_liste_total`: everything the count depends on besides
 * the data (whose writes empty the table) — the viewer, their site, the day and the filters.
 */
const totalKey = (viewer: Viewer, query: UserListQuery) =>
  JSON.stringify([
    viewer.today,
    viewer.id,
    viewer.domain,
    query.poste ?? null,
    query.actif ?? null,
    query.supprime ?? null,
    searchWords(query.q ?? ''),
  ])

/**
 * GET rest/bd/utilisateur/liste: the users of the caller's scope (DESIGN §4) with their current and
 * future posts and `modification`; filtered, searched (first and last names, whatever their case and
 * accents), sorted and paged in SQL.
 *
 * The page is read by whichever of two statements suits the scope (`smallScope`, evaluated by SQLite
 * once, gives the other a limit of 0): a small scope from its posts, a large one from the users in the
 * list's order. Both come with the caller's check in one round trip, and the total with them when it
 * is known since the last write; otherwise a second statement counts and keeps it (a tenth of a second
 * for the root of 100 000 users, once per day, viewer and filters until anything changes).
 */
export async function listUsers(
  env: Env,
  caller: Caller,
  query: UserListQuery,
): Promise<{ items: User[]; total: number }> {
  const db = getDb(env.DB)
  const viewer = viewerOf(caller)
  const tri = query.tri ?? 'nom'
  const direction = tri.startsWith('-') ? 'desc' : 'asc'
  const columns = SORT_COLUMNS[tri.replace('-', '') as keyof typeof SORT_COLUMNS]
  const small = smallScope(db, viewer)
  const size = query.page === undefined ? WHOLE_LIST_READ : (query.taille ?? DEFAULT_PAGE_SIZE)
  const pageOf = (from: 'users' | 'posts') => {
    let sorted = listedUsers(db, viewer, query, from)
      .selectAll('utilisateur')
      .select(postesColumn(viewer.today))
      .select(modificationColumn(db, viewer))
    for (const column of columns)
      sorted = sorted.orderBy(sql`${sql.ref(`utilisateur.${column}`)} collate nocase`, direction)
    const chosen = from === 'posts' ? small : sql<SqlBool>`not ${small}`
    return sorted
      .orderBy('utilisateur.id', direction)
      .limit(sql<number>`case when ${chosen} then ${size} else 0 end`)
      .offset(((query.page ?? 1) - 1) * Math.max(size, 0))
  }
  const key = totalKey(viewer, query)
  const [actor, fromPosts, fromUsers, [kept]] = await actorWith(
    env,
    caller,
    pageOf('posts'),
    pageOf('users'),
    db.selectFrom('utilisateur_liste_total').select('total').where('cle', '=', key),
  )
  requireAdmin(actor)
  const rows = [...fromPosts, ...fromUsers]
  const items = rows.map((row) => toUser(row, postesFrom(row.postes, viewer.today), row.modification === 1))
  if (query.page === undefined) return { items: wholeList(items), total: items.length }
  return { items, total: kept?.total ?? (await countUsers(db, viewer, query, key, small)) }
}

/** Counts a list's users (from the scope's posts or from the users, as its page) and keeps the total. */
async function countUsers(db: DB, viewer: Viewer, query: UserListQuery, key: string, small: Expression<SqlBool>) {
  const count = (from: 'users' | 'posts') =>
    listedUsers(db, viewer, query, from).select((eb) => eb.fn.countAll<number>().as('n'))
  const total = sql<number>`case when ${small} then ${count('posts')} else ${count('users')} end`
  const kept = await db
    .insertInto('utilisateur_liste_total')
    .values({ cle: key, jour: viewer.today, total })
    .onConflict((oc) => oc.column('cle').doUpdateSet({ total: (eb) => eb.ref('excluded.total') }))
    .returning('total')
    .executeTakeFirstOrThrow()
  return kept.total
}

/** The target of an action on a user, with whether the caller may manage them (`modification`). */
async function managedTarget(env: Env, caller: Caller, id: number) {
  const db = getDb(env.DB)
  const [actor, [target]] = await actorWith(
    env,
    caller,
    db
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
      ])
      .select(modificationColumn(db, viewerOf(caller)))
      .where('utilisateur.id', '=', id),
  )
  requireAdmin(actor)
  // Nobody deletes, deactivates or demotes themself (the last administrator could lock everyone out).
  if (id === actor.id) throw forbidden('You may not do this to your own account')
  if (!target) throw notFound('Unknown user')
  if (!target.modification) throw forbidden('You may not manage this user')
  return { db, actor, target }
}

/** Ends every session of a user (disabled or deleted: DESIGN §3). */
const revokeSessions = (db: DB, userId: number, at: string) =>
  db
    .updateTable('refresh_token')
    .set({ revoked_at: at })
    .where('utilisateur_id', '=', userId)
    .where('revoked_at', 'is', null)

/**
 * One flag of a user changed by an administrator, with its audit entry — written only when the flag
 * really changes, in the same batch — and whatever else the change needs (`also`).
 */
async function setFlag(
  env: Env,
  db: DB,
  actor: Actor,
  target: { id: number; login: string },
  flag: 'actif' | 'supprime' | 'admin',
  value: boolean,
  nomLog: string,
  userAgent: string | null,
  also: (at: string) => { compile: () => unknown }[] = () => [],
) {
  const at = new Date().toISOString()
  const stored = value ? 1 : 0
  const changes = db.selectFrom('utilisateur').select('id').where('id', '=', target.id).where(flag, '!=', stored)
  await batch(env.DB, [
    insertWhen(db, 'log', userLog(actor, nomLog, target, userAgent), changes),
    db
      .updateTable('utilisateur')
      .set({ [flag]: stored, updated_at: at })
      .where('id', '=', target.id)
      .where(flag, '!=', stored),
    ...(also(at) as never[]),
  ])
}

/** PUT rest/bd/utilisateur/state (spec §4: not for administrators). Disabling ends the user's sessions. */
export async function setUserState(
  env: Env,
  caller: Caller,
  input: { id: number; actif: boolean },
  userAgent: string | null,
): Promise<User> {
  const { db, actor, target } = await managedTarget(env, caller, input.id)
  if (target.admin) throw forbidden("An administrator's state does not change; remove the admin flag first")
  const nomLog = input.actif ? 'UTILISATEUR_ACTIVATION' : 'UTILISATEUR_DESACTIVATION'
  await setFlag(env, db, actor, target, 'actif', input.actif, nomLog, userAgent, (at) =>
    input.actif ? [] : [revokeSessions(db, target.id, at)],
  )
  return readUser(db, actor, target.id)
}

/** PUT rest/bd/utilisateur/admin: the "admin des niveaux inférieurs" flag (spec §6). */
export async function setUserAdmin(
  env: Env,
  caller: Caller,
  input: { id: number; admin: boolean },
  userAgent: string | null,
): Promise<User> {
  const { db, actor, target } = await managedTarget(env, caller, input.id)
  const nomLog = input.admin ? 'UTILISATEUR_ADMIN' : 'UTILISATEUR_ADMIN_RETRAIT'
  await setFlag(env, db, actor, target, 'admin', input.admin, nomLog, userAgent)
  return readUser(db, actor, target.id)
}

/**
 * DELETE rest/bd/utilisateur/suppression/{id}: a soft delete (spec §4, restorable). The user keeps
 * their posts and history but cannot sign in: their sessions end and their unused links die.
 */
export async function deleteUser(env: Env, caller: Caller, id: number, userAgent: string | null): Promise<void> {
  const { db, actor, target } = await managedTarget(env, caller, id)
  await setFlag(env, db, actor, target, 'supprime', true, 'UTILISATEUR_SUPPRESSION', userAgent, (at) => [
    revokeSessions(db, id, at),
    db.updateTable('mail_token').set({ used_at: at }).where('utilisateur_id', '=', id).where('used_at', 'is', null),
  ])
}

/** DELETE rest/bd/utilisateur/retablir/{id}: the deleted user comes back as they were, posts and all. */
export async function restoreUser(env: Env, caller: Caller, id: number, userAgent: string | null): Promise<void> {
  const { db, actor, target } = await managedTarget(env, caller, id)
  await setFlag(env, db, actor, target, 'supprime', false, 'UTILISATEUR_RETABLISSEMENT', userAgent)
}

/**
 * POST rest/bd/utilisateur/{id}/invitation: a new invitation for a user who has not chosen a password
 * yet; the earlier link dies once the new one is written, at most `INVITATIONS_PER_HOUR` an hour.
 */
export async function resendInvitation(env: Env, caller: Caller, id: number, context: Context): Promise<number[]> {
  const { db, actor, target } = await managedTarget(env, caller, id)
  if (target.supprime) throw forbidden('Restore this user first')
  if (target.registration_state !== 'INVITED')
    throw new BusinessError('INVITATION_NOT_PENDING', 409, 'This user has already chosen a password')
  const now = new Date()
  const link = await invitation(actor, target, context, now)
  const { insert, written } = insertLinkUnderCap(
    db,
    { tokenHash: link.tokenHash, userId: id, purpose: 'INVITATION', hours: INVITATION_TTL_HOURS },
    INVITATIONS_PER_HOUR,
    now,
  )
  const results = await batch(env.DB, [
    insert,
    voidLinks(db, id, 'INVITATION', now.toISOString())
      .where('token_hash', '!=', link.tokenHash)
      .where(({ exists }) => exists(written)),
    db
      .updateTable('utilisateur')
      .set({ token_register_expires_at: link.expiresAt })
      .where('id', '=', id)
      .where(({ exists }) => exists(written)),
    queueMail(db, { ...link.mail, userId: id }, now, written),
    insertWhen(db, 'log', userLog(actor, 'INVITATION_RENVOI', target, context.userAgent), written),
  ])
  if ((results[0]?.meta.changes ?? 0) === 0) {
    throw new BusinessError('TOO_MANY_ATTEMPTS', 429, 'Too many invitations for this user; retry later', [3600])
  }
  return queuedIds(results)
}

/**
 * GET rest/public/bd/utilisateur/mail?mail=: the account an address belongs to, and whether it is
 * active (a deleted one is not), for the create forms (spec §4 mail check). Limited per client: it
 * tells whether an address has an account.
 */
export async function checkMail(env: Env, mail: string, ip: string | null): Promise<MailCheck> {
  await limitClient(env, 'mail-check', ip, Number(env.MAIL_CHECK_RATE_PER_MINUTE ?? 30))
  const holder = await mailHolder(getDb(env.DB), mail).executeTakeFirst()
  if (!holder) return { mail: null, actif: null }
  return { mail: holder.mail, actif: holder.actif === 1 && holder.supprime === 0 }
}
