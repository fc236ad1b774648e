import { type Expression, type SqlBool, sql } from 'kysely'
import { DEFAULT_PAGE_SIZE } from '../contract/base'
import { fromWireDate } from '../contract/dates'
import type { User } from '../contract/user'
import type { CreateUserInput, MailCheck, UserListQuery } from '../contract/user-admin'
import { batch, type DB, getDb, insertWhen, namedBatch, writeThenRead } from '../db/client'
import type { NewLog } from '../db/schema'
import type { Env } from '../env'
import { isLoopback, sameOrigin } from '../lib/domain'
import { BusinessError, forbidden, invalidField, notFound } from '../lib/errors'
import { containsEveryWord, WHOLE_LIST_READ, wholeList } from '../lib/query'
import {
  isUserAccount,
  modificationColumn,
  smallScope,
  userListedInScope,
  userManageable,
  type Viewer,
} from '../lib/scope'
import { searchWords } from '../lib/search-text'
import { type Actor, adminWith, type Caller, liveAdmin, viewerOf } from './actor'
import { logEntry } from './audit'
import { invitationWrites } from './invitations'
import { voidLinks } from './mail-tokens'
import { queuedIds } from './outbox'
import { checkPlacement, placementReads } from './postes'
import { clientCounter } from './rate-limit'
import { mailTaken, postesColumn, postesFrom, toUser, userAs, userQuery } from './users'

type Context = { origin: string; userAgent: string | null }

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
 * site — or else theirs. On this machine (a loopback account) the caller's own is the origin the
 * request reached: a local run serves the same accounts on whatever port it was given.
 */
function boundOrigin(actor: Actor, domain: string | undefined, requestOrigin: string): string {
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
 * POST rest/bd/utilisateur (spec §3, §5): a user with their first post, in a structure of the caller's
 * scope. The login is the mail. An active user gets an invitation to choose their password (a
 * single-use link, valid 7 days); an inactive one gets it when they are activated (`setUserState`),
 * not before: a link they could not use yet would only run out. The user, the post, the link, the
 * mail and the audit entry are one batch: all or nothing.
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
  const [actor, structures, fonctions, [holder]] = await adminWith(
    env,
    caller,
    ...placementReads(db, viewer, poste),
    mailHolder(db, input.mail),
  )
  const domain = boundOrigin(actor, input.domain, context.origin)
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
  const user = { id: newId, login: input.mail, nom: input.nom, prenom: input.prenom, mail: input.mail, domain }
  const invitation = input.actif ? await invitationWrites(db, actor, user, context, now) : null
  const results = await namedBatch(env.DB, {
    user: db
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
        token_register_expires_at: invitation?.expiresAt ?? null,
        created_at: at,
        updated_at: at,
      })
      .returning('id'),
    poste: db.insertInto('poste').values({
      utilisateur_id: newId,
      structure_id: structure.id,
      fonction_id: fonction.id,
      date_debut: debut,
      date_fin: fin,
    }),
    // A new user has no earlier invitation to void, and their expiry is written with them.
    invitation: invitation?.statements.link ?? null,
    invitationMail: invitation?.statements.mail ?? null,
    log: db.insertInto('log').values(
      logEntry(actor.id, 'ADMINISTRATION', 'UTILISATEUR_CREATION', context.userAgent, {
        commentaire: `${input.mail}${input.admin ? ' (admin)' : ''} : ${fonction.libelle}, ${structure.nom}, ${poste.dateDebut} → ${poste.dateFin}`,
      }),
    ),
    // The new user as the caller sees them, read in the same batch.
    created: userQuery(db, newId, viewer),
  }).catch((error) => {
    // Another request took the address meanwhile (the unique index): the same answer as above.
    if (String(error).includes('UNIQUE')) throw mailTaken(input.mail)
    // The function was deleted meanwhile (its key refuses the post): nothing was written.
    if (String(error).includes('FOREIGN KEY'))
      throw invalidField('poste.fonction.id', 'Unknown function', 'validation.unknown')
    throw error
  })
  const [created] = results.user?.results ?? []
  if (!created) throw new Error('The new user was not written')
  const mailIds = results.invitationMail ? queuedIds([results.invitationMail]) : []
  return { user: userAs(actor, created.id, results.created?.results[0], viewer.today), mailIds }
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
 * list's order. Both come with the caller's check and the total in one round trip: the total is kept
 * (`keptUserTotal`), counted in the same batch only when it is not known since the last write (a tenth
 * of a second for the root of 100 000 users, once per day, viewer and filters until anything changes).
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
  // The whole list (no page) is its own total: nothing to count.
  const total = query.page === undefined ? [] : keptUserTotal(db, viewer, query, liveAdmin(env, caller))
  const [, fromPosts, fromUsers, , kept] = await adminWith(env, caller, pageOf('posts'), pageOf('users'), ...total)
  const rows = [...fromPosts, ...fromUsers]
  const items = rows.map((row) => toUser(row, postesFrom(row.postes, viewer.today), row.modification === 1))
  if (query.page === undefined) return { items: wholeList(items), total: items.length }
  return { items, total: kept?.[0]?.total ?? 0 }
}

/** A list's count of users, from the scope's posts or from the users, as its page is read. */
function usersCount(db: DB, viewer: Viewer, query: UserListQuery, small: Expression<SqlBool>) {
  const count = (from: 'users' | 'posts') =>
    listedUsers(db, viewer, query, from).select((eb) => eb.fn.countAll<number>().as('n'))
  return sql<number>`case when ${small} then ${count('posts')} else ${count('users')} end`
}

/**
 * A list's total as two statements of a caller's batch: the first counts and keeps it when it is not
 * kept yet — and only for a caller whose session is live as the batch runs (`allowed`: the batch's own
 * check of the caller comes back with it, so a refused caller must write nothing) — the second reads
 * it. A figure that stands for the list (the administration home's) is thus its `X-Total-Count`,
 * counted once as the list's own total is.
 */
export function keptUserTotal(db: DB, viewer: Viewer, query: UserListQuery, allowed: Expression<SqlBool>) {
  const key = totalKey(viewer, query)
  const kept = db.selectFrom('utilisateur_liste_total').select('total').where('cle', '=', key)
  const missing = db
    .selectNoFrom(sql.lit(1).as('missing'))
    .where(({ and, not, exists }) => and([not(exists(kept)), allowed]))
  return [
    insertWhen(
      db,
      'utilisateur_liste_total',
      { cle: key, jour: viewer.today, total: usersCount(db, viewer, query, smallScope(db, viewer)) },
      missing,
    ).onConflict((oc) => oc.column('cle').doNothing()),
    kept,
  ] as const
}

/** The target of an action on a user, with whether the caller may manage them (`modification`). */
async function managedTarget(env: Env, caller: Caller, id: number) {
  const db = getDb(env.DB)
  const [actor, [target]] = await adminWith(
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
      .where('utilisateur.id', '=', id)
      // A pending registration is the authorisation queue's: unknown here (DESIGN §4).
      .where(isUserAccount()),
  )
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

/** The user `id` while `actor` may still manage them: the condition of every write on them. */
const stillManaged = (db: DB, actor: Actor, id: number) =>
  db
    .selectFrom('utilisateur')
    .select('utilisateur.id')
    .where('utilisateur.id', '=', id)
    .where(userManageable(db, viewerOf(actor)))

/**
 * One flag of a user changed by an administrator, with its audit entry — written only when the flag
 * really changes, in the same batch — and whatever else the change needs (`also`), run before the
 * flag changes so that it may be conditioned on the former value. Each statement holds only while the
 * actor may manage the user (a post moved since the check leaves it undone). Returns the outbox ids.
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
  also: (at: string, managed: ReturnType<typeof stillManaged>) => Parameters<typeof batch>[1] = () => [],
) {
  const at = new Date().toISOString()
  const stored = value ? 1 : 0
  const managed = stillManaged(db, actor, target.id)
  const viewer = viewerOf(actor)
  // The user as the change left them, read in the same batch.
  const { written, rows } = await writeThenRead(
    env.DB,
    [
      insertWhen(db, 'log', userLog(actor, nomLog, target, userAgent), managed.where(flag, '!=', stored)),
      ...also(at, managed),
      db
        .updateTable('utilisateur')
        .set({ [flag]: stored, updated_at: at })
        .where('id', '=', target.id)
        .where(flag, '!=', stored)
        .where(userManageable(db, viewer)),
    ],
    userQuery(db, target.id, viewer),
  )
  return { mailIds: queuedIds(written), user: () => userAs(actor, target.id, rows[0], viewer.today) }
}

/**
 * PUT rest/bd/utilisateur/state (spec §4: not for administrators). Disabling ends the user's sessions.
 * A user who has not chosen a password yet holds an invitation only while active: activating them
 * sends it (at most `INVITATIONS_PER_HOUR` an hour), deactivating them voids it. Returns the user
 * and the outbox ids.
 */
export async function setUserState(
  env: Env,
  caller: Caller,
  input: { id: number; actif: boolean },
  context: Context,
): Promise<{ user: User; mailIds: number[] }> {
  const { db, actor, target } = await managedTarget(env, caller, input.id)
  if (target.admin) throw forbidden("An administrator's state does not change; remove the admin flag first")
  const nomLog = input.actif ? 'UTILISATEUR_ACTIVATION' : 'UTILISATEUR_DESACTIVATION'
  const invited = target.registration_state === 'INVITED' && !target.supprime
  // Sent only when the user really becomes active, still waiting for their password.
  const becomesActive = stillManaged(db, actor, target.id)
    .where('actif', '=', 0)
    .where('registration_state', '=', 'INVITED')
  const invitation =
    input.actif && invited
      ? await invitationWrites(db, actor, target, context, new Date(), { capped: true, onlyIf: becomesActive })
      : null
  const { user, mailIds } = await setFlag(
    env,
    db,
    actor,
    target,
    'actif',
    input.actif,
    nomLog,
    context.userAgent,
    (at, managed) => {
      if (input.actif) return invitation ? Object.values(invitation.statements) : []
      return [
        revokeSessions(db, target.id, at).where(({ exists }) => exists(managed)),
        ...(invited ? uninvite(db, target.id, at) : []),
      ]
    },
  )
  return { user: user(), mailIds }
}

/** An inactive user's invitation dies (it could not be used), and `tokenRegister` shows none. */
function uninvite(db: DB, userId: number, at: string) {
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
export async function setUserAdmin(
  env: Env,
  caller: Caller,
  input: { id: number; admin: boolean },
  userAgent: string | null,
): Promise<User> {
  const { db, actor, target } = await managedTarget(env, caller, input.id)
  const nomLog = input.admin ? 'UTILISATEUR_ADMIN' : 'UTILISATEUR_ADMIN_RETRAIT'
  return (await setFlag(env, db, actor, target, 'admin', input.admin, nomLog, userAgent)).user()
}

/**
 * DELETE rest/bd/utilisateur/suppression/{id}: a soft delete (spec §4, restorable). The user keeps
 * their posts and history but cannot sign in: their sessions end and their unused links die.
 */
export async function deleteUser(env: Env, caller: Caller, id: number, userAgent: string | null): Promise<void> {
  const { db, actor, target } = await managedTarget(env, caller, id)
  await setFlag(env, db, actor, target, 'supprime', true, 'UTILISATEUR_SUPPRESSION', userAgent, (at, managed) => [
    revokeSessions(db, id, at).where(({ exists }) => exists(managed)),
    db
      .updateTable('mail_token')
      .set({ used_at: at })
      .where('utilisateur_id', '=', id)
      .where('used_at', 'is', null)
      .where(({ exists }) => exists(managed)),
  ])
}

/** DELETE rest/bd/utilisateur/retablir/{id}: the deleted user comes back as they were, posts and all. */
export async function restoreUser(env: Env, caller: Caller, id: number, userAgent: string | null): Promise<void> {
  const { db, actor, target } = await managedTarget(env, caller, id)
  await setFlag(env, db, actor, target, 'supprime', false, 'UTILISATEUR_RETABLISSEMENT', userAgent)
}

/**
 * POST rest/bd/utilisateur/{id}/invitation: a new invitation for a user who has not chosen a password
 * yet; the earlier link dies once the new one is written, at most `INVITATIONS_PER_HOUR` an hour. An
 * inactive user gets theirs when activated (409 `INVITATION_WAITS_ACTIVATION`).
 */
export async function resendInvitation(env: Env, caller: Caller, id: number, context: Context): Promise<number[]> {
  const { db, actor, target } = await managedTarget(env, caller, id)
  if (target.supprime) throw forbidden('Restore this user first')
  if (target.registration_state !== 'INVITED')
    throw new BusinessError('INVITATION_NOT_PENDING', 409, 'This user has already chosen a password')
  if (!target.actif)
    throw new BusinessError('INVITATION_WAITS_ACTIVATION', 409, 'This user is inactive: activating them invites them')
  const invitation = await invitationWrites(db, actor, target, context, new Date(), { capped: true })
  const mailIds = queuedIds(
    await batch(env.DB, [
      ...Object.values(invitation.statements),
      insertWhen(db, 'log', userLog(actor, 'INVITATION_RENVOI', target, context.userAgent), invitation.written),
    ]),
  )
  if (mailIds.length === 0) {
    throw new BusinessError('TOO_MANY_ATTEMPTS', 429, 'Too many invitations for this user; retry later', [3600])
  }
  return mailIds
}

/**
 * GET rest/public/bd/utilisateur/mail?mail=: the account an address belongs to, and whether it is
 * active (a deleted one is not), for the create forms (spec §4 mail check). Limited per client: it
 * tells whether an address has an account.
 */
export async function checkMail(env: Env, mail: string, ip: string | null): Promise<MailCheck> {
  const counter = clientCounter('mail-check', ip, Number(env.MAIL_CHECK_RATE_PER_MINUTE ?? 30))
  const read = await namedBatch(env.DB, { count: counter.statement(), holder: mailHolder(getDb(env.DB), mail) })
  counter.check(read.count?.results[0])
  const holder = read.holder?.results[0]
  if (!holder) return { mail: null, actif: null }
  return { mail: holder.mail, actif: holder.actif === 1 && holder.supprime === 0 }
}
