import {
  type Expression,
  type ExpressionBuilder,
  type InferResult,
  type SelectQueryBuilder,
  type SqlBool,
  sql,
} from 'kysely'
import { nowIso, toWireDate } from '../contract/dates'
import type { Poste, ProfileInput, User } from '../contract/user'
import { type DB, getDb, insertWhen, writeThenRead } from '../db/client'
import type { Database, UtilisateurRow } from '../db/schema'
import type { Env } from '../env'
import { randomToken, sha256Hex } from '../lib/crypto'
import { linkOrigin } from '../lib/domain'
import { BusinessError, forbidden, notFound } from '../lib/errors'
import {
  mailChangeByAdminConfirmMail,
  mailChangeByAdminMail,
  mailChangeConfirmMail,
  mailChangedMail,
  mailChangeRequestedMail,
  mailLanguage,
} from '../lib/mail/templates'
import { isUserAccount, scopeColumns, userManageable, type Viewer } from '../lib/scope'
import { type Actor, actorWith, type Caller, viewerOf } from './actor'
import { mailChangeLog } from './audit'
import { invitationWrites } from './invitations'
import {
  insertLinkUnderCap,
  MAIL_CHANGE_TTL_HOURS,
  underHourlyCap,
  voidMailChanges,
  voidPasswordLinks,
} from './mail-tokens'
import { queuedIds, queueMail } from './outbox'

type PosteWithPath = Poste & { path: string; current: boolean }

/** A post as the queries below read it (columns of `poste`, its structure and its function). */
type PosteRow = {
  id: number
  utilisateur_id: number
  date_debut: string
  date_fin: string
  structure_id: number
  structure_nom: string
  path: string
  fonction_id: number
  fonction_libelle: string
}

/** Posts in the order of the wire (oldest start first), each marked current or future. */
function toPostes(rows: PosteRow[], today: string): PosteWithPath[] {
  return [...rows]
    .sort((a, b) => (a.date_debut === b.date_debut ? a.id - b.id : a.date_debut < b.date_debut ? -1 : 1))
    .map((r) => ({
      id: r.id,
      structure: { id: r.structure_id, nom: r.structure_nom },
      fonction: { id: r.fonction_id, libelle: r.fonction_libelle },
      utilisateur: { id: r.utilisateur_id },
      dateDebut: toWireDate(r.date_debut),
      dateFin: toWireDate(r.date_fin),
      path: r.path,
      current: r.date_debut <= today,
    }))
}

/**
 * The current and future posts of the user of a query on `utilisateur`, as one JSON column (read
 * back with `postesFrom`): a user and their posts in one statement.
 */
export function postesColumn(today: string) {
  return (eb: ExpressionBuilder<Database, 'utilisateur'>) =>
    eb
      .selectFrom('poste as p')
      .innerJoin('structure as s', 's.id', 'p.structure_id')
      .innerJoin('fonction as f', 'f.id', 'p.fonction_id')
      .select(
        sql<string>`json_group_array(json_object(
          'id', p.id, 'utilisateur_id', p.utilisateur_id, 'date_debut', p.date_debut, 'date_fin', p.date_fin,
          'structure_id', s.id, 'structure_nom', s.nom, 'path', s.path,
          'fonction_id', f.id, 'fonction_libelle', f.libelle))`.as('postes'),
      )
      .whereRef('p.utilisateur_id', '=', 'utilisateur.id')
      .where('p.date_fin', '>=', today)
      .as('postes')
}

export const postesFrom = (column: string | null, today: string) =>
  toPostes(JSON.parse(column ?? '[]') as PosteRow[], today)

function strip({ path: _path, current: _current, ...poste }: PosteWithPath): Poste {
  return poste
}

/**
 * The address a user asked to move to and has not confirmed yet (their latest live request), as a
 * column of a query on `utilisateur`: no round trip of its own.
 */
export function pendingMail(eb: ExpressionBuilder<Database, 'utilisateur'>) {
  return eb
    .selectFrom('mail_token as pending')
    .select('pending.new_mail')
    .whereRef('pending.utilisateur_id', '=', 'utilisateur.id')
    .where('pending.purpose', '=', 'MAIL_CHANGE')
    .where('pending.used_at', 'is', null)
    .where('pending.expires_at', '>', nowIso())
    .orderBy('pending.id', 'desc')
    .limit(1)
    .as('mail_en_attente')
}

/** What a user's answer (spec §3) is made of: the columns it shows and their pending address. */
type UserRow = Pick<
  UtilisateurRow,
  'id' | 'login' | 'nom' | 'prenom' | 'mail' | 'actif' | 'supprime' | 'admin' | 'token_register_expires_at'
> & { mail_en_attente?: string | null }

export function toUser(row: UserRow, postes: PosteWithPath[], modification: boolean): User {
  return {
    id: row.id,
    login: row.login,
    nom: row.nom,
    prenom: row.prenom,
    mail: row.mail,
    actif: row.actif === 1,
    supprime: row.supprime === 1,
    admin: row.admin === 1,
    modification,
    postesEnCours: postes.filter((p) => p.current).map(strip),
    postesFutur: postes.filter((p) => !p.current).map(strip),
    tokenRegister: row.token_register_expires_at ? Date.parse(row.token_register_expires_at) : null,
    mailEnAttente: row.mail_en_attente ?? null,
  }
}

/** A user, their pending address, their posts and what the viewer may do with them, in one statement. */
export function userQuery(db: DB, id: number | Expression<number>, viewer: Viewer) {
  return (
    db
      .selectFrom('utilisateur')
      .selectAll()
      .select(pendingMail)
      .select(postesColumn(viewer.today))
      .select(scopeColumns(db, viewer))
      .where('id', '=', id)
      // A pending registration is the authorisation queue's: unknown here (DESIGN §4).
      .where(isUserAccount())
  )
}

/** The user of a `userQuery` row as `actor` may see them: themself, or a user an admin sees in scope; else 403/404. */
export function userAs(
  actor: Actor,
  id: number,
  row: InferResult<ReturnType<typeof userQuery>>[number] | undefined,
  today: string,
) {
  // A non-admin may read only themself; answering 404 for unknown ids would reveal which exist.
  if (!actor.admin && id !== actor.id) throw forbidden('You may only read your own profile')
  if (!row) throw notFound('Unknown user')
  const postes = postesFrom(row.postes, today)
  if (id === actor.id) return toUser(row, postes, false)
  if (!row.visible) throw forbidden('This user is outside your scope')
  return toUser(row, postes, row.modification === 1)
}

/** GET rest/bd/utilisateur/{id}: the caller's check and the user in one round trip. */
export async function getUser(env: Env, caller: Caller, id: number): Promise<User> {
  const viewer = viewerOf(caller)
  const [actor, rows] = await actorWith(env, caller, userQuery(getDb(env.DB), id, viewer))
  return userAs(actor, id, rows[0], viewer.today)
}

/** The user as an already checked `actor` may see them (after a write, or to check a permission). */
export async function readUser(db: DB, actor: Actor, id: number): Promise<User> {
  const viewer = viewerOf(actor)
  return userAs(actor, id, await userQuery(db, id, viewer).executeTakeFirst(), viewer.today)
}

/** Requests a user may make per hour to move their account to another address (each sends a mail). */
export const MAIL_CHANGE_REQUESTS_PER_HOUR = 3

/** MAIL_ALREADY_USED: the address belongs to another account (also when it was taken in a race). */
export const mailTaken = (mail: string) =>
  new BusinessError('MAIL_ALREADY_USED', 409, 'This e-mail address is already used', [mail])

/**
 * The login of an account once its address becomes `newMail`: an account whose login is its address
 * (every account an administrator or a registration created) follows it, so that the address it can
 * be reached at and the one it signs in with stay one; a login of its own stays.
 */
export function loginAfterMailChange(user: { login: string; mail: string }, newMail: string) {
  return user.login.toLowerCase() === user.mail.toLowerCase() ? newMail : user.login
}

/**
 * Another account holding `mail` as its address, or as its login when the user's login would become
 * it: either unique index would refuse the change.
 */
function holderOf(db: DB, id: number, mail: string) {
  return db
    .selectFrom('utilisateur')
    .select(['id', sql<number>`mail = ${mail} collate nocase`.as('holds_mail')])
    .where((eb) => eb.or([sql<boolean>`mail = ${mail} collate nocase`, sql<boolean>`login = ${mail} collate nocase`]))
    .where('id', '!=', id)
}

/**
 * PUT rest/bd/utilisateur/{id}: nom, prenom and mail (spec §5; a login that is the address follows
 * it). A user edits themself; an admin edits a user whose `modification` flag they get (DESIGN §4), a
 * check the write repeats. A new mail must be free. It takes effect only once confirmed from the new
 * address (`requestMailChange`), whoever asked: an administrator's session alone must not move an
 * account to another mailbox either (its "forgot password" would then follow). The one exception is
 * an administrator's correction of an invited user's address (`mailCorrection`): the account has no
 * password yet, and its only way in, the invitation, goes to the corrected address. Returns the
 * outbox ids.
 */
export async function updateProfile(
  env: Env,
  caller: Caller,
  id: number,
  input: ProfileInput,
  context: { origin: string; userAgent: string | null },
): Promise<{ user: User; mailIds: number[] }> {
  const db = getDb(env.DB)
  const now = new Date()
  const viewer = viewerOf(caller)
  // The permission check and the reads the update needs, with the check of the caller: one round
  // trip. A refusal still comes first.
  const [actor, [target], [row], taken] = await actorWith(
    env,
    caller,
    userQuery(db, id, viewer),
    db
      .selectFrom('utilisateur')
      .select(['id', 'login', 'nom', 'prenom', 'mail', 'domain', 'langue', 'actif', 'supprime', 'registration_state'])
      // Whether the user may ask for another address change this hour: the cap the insert keeps.
      .select((eb) =>
        eb.exists(underHourlyCap(db, id, 'MAIL_CHANGE', MAIL_CHANGE_REQUESTS_PER_HOUR, now)).as('may_change_mail'),
      )
      .where('id', '=', id),
    holderOf(db, id, input.mail),
  )
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
    return guard ? update.where(guard) : update
  }
  // The user as the update left them, read in its batch.
  const writeAndRead = async (writes: Parameters<typeof writeThenRead>[1]) => {
    const { written, rows } = await writeThenRead(env.DB, writes, userQuery(db, id, viewer))
    return { user: userAs(actor, id, rows[0], viewer.today), mailIds: queuedIds(written) }
  }

  if (!mailChanged || corrected) {
    // The same address (perhaps in another case): nothing to prove, nobody to tell. An invited
    // user's corrected one: its writes go with the update.
    const correction = corrected
      ? await mailCorrection(db, actor, { ...row, ...input }, row.mail, context, now, managed)
      : { before: [], after: [] }
    try {
      return await writeAndRead([...correction.before, names(input.mail), ...correction.after])
    } catch (error) {
      // Another account took the address meanwhile (the unique index): the same answer as above.
      if (String(error).includes('UNIQUE')) throw mailTaken(input.mail)
      throw error
    }
  }
  if (!row.may_change_mail) {
    throw new BusinessError('TOO_MANY_ATTEMPTS', 429, 'Too many address changes; retry later', [3600])
  }
  const request = await requestMailChange(db, row, input, { ...context, by: byAdmin ? actor : null, guard }, now)
  return writeAndRead([names(null), ...request])
}

/**
 * The writes that go with an administrator's change of a user's address, in the batch of the update
 * (`before` it, `after` it), for an invited user (no password yet). Every link that sets the password
 * dies: those lying in the former mailbox must not open the account (a mistyped address at creation
 * is the common case). The former address is told, and the new one gets the invitation again when the
 * user may use it (active and not deleted; activation sends it otherwise).
 */
async function mailCorrection(
  db: DB,
  actor: Actor,
  user: {
    id: number
    login: string
    nom: string
    prenom: string
    mail: string
    domain: string
    langue: string
    actif: number
    supprime: number
    registration_state: string
  },
  formerMail: string,
  context: { origin: string; userAgent: string | null },
  now: Date,
  managed: SelectQueryBuilder<Database, keyof Database, unknown>,
) {
  const at = now.toISOString()
  const language = mailLanguage(user.langue)
  const login = loginAfterMailChange({ login: user.login, mail: formerMail }, user.mail)
  // Every statement holds only while the administrator may still manage the user, as the update does.
  const invitation =
    user.actif && !user.supprime
      ? await invitationWrites(db, actor, { ...user, login }, context, now, { onlyIf: managed })
      : null
  const voided = [
    voidPasswordLinks(db, user.id, at).where(({ exists }) => exists(managed)),
    voidMailChanges(db, user.id, at).where(({ exists }) => exists(managed)),
  ]
  const told = queueMail(
    db,
    { ...mailChangedMail(language, user, user.mail), to: formerMail, userId: user.id, kind: 'MAIL_CHANGED' },
    now,
    managed,
  )
  const welcome = invitation
    ? Object.values(invitation.statements)
    : // An invited user left without a link shows none (`tokenRegister`).
      [
        db
          .updateTable('utilisateur')
          .set({ token_register_expires_at: null })
          .where('id', '=', user.id)
          .where(({ exists }) => exists(managed)),
      ]
  return {
    before: voided,
    after: [
      told,
      ...welcome,
      insertWhen(db, 'log', mailChangeLog(actor.id, formerMail, user.mail, context.userAgent, user.id), managed),
    ],
  }
}

/**
 * A move to another address (security review: a session alone — the user's or an administrator's —
 * must not move the account to another mailbox): a single-use link, valid 24 hours, goes to the new
 * address, and the current one is told of the request, by whom when an administrator (`by`) asked.
 * Earlier requests die with this one. The statements for the caller's batch; the cap on requests per
 * hour and `guard` are kept atomically with the link's insert, on which everything else waits.
 */
async function requestMailChange(
  db: DB,
  user: { id: number; login: string; nom: string; prenom: string; mail: string; domain: string; langue: string },
  input: ProfileInput,
  context: { origin: string; userAgent: string | null; by: Actor | null; guard: Expression<SqlBool> | null },
  now: Date,
) {
  const at = now.toISOString()
  const token = randomToken()
  const tokenHash = await sha256Hex(token)
  const url = `${linkOrigin(user.domain, context.origin)}/confirmMail/${token}`
  const { insert, written } = insertLinkUnderCap(
    db,
    { tokenHash, userId: user.id, purpose: 'MAIL_CHANGE', newMail: input.mail, hours: MAIL_CHANGE_TTL_HOURS },
    MAIL_CHANGE_REQUESTS_PER_HOUR,
    now,
    context.guard ?? undefined,
  )
  const words = requestWords(user, input, url, context.by)
  return [
    insert,
    // Earlier requests die once this one is written (not when a race for the cap loses it).
    voidMailChanges(db, user.id, at)
      .where('token_hash', '!=', tokenHash)
      .where(({ exists }) => exists(written)),
    queueMail(db, { ...words.confirm, to: input.mail, userId: user.id, kind: 'MAIL_CHANGE_CONFIRM' }, now, written),
    queueMail(db, { ...words.notice, to: user.mail, userId: user.id, kind: 'MAIL_CHANGE_REQUESTED' }, now, written),
    // An administrator's request is theirs in the history; the user's confirmation is logged when it comes.
    ...(context.by
      ? [insertWhen(db, 'log', pendingMailChangeLog(context.by, user, input.mail, context.userAgent), written)]
      : []),
  ]
}

/** The two mails of a change of address: the link to the new one, the notice to the current one. */
function requestWords(
  user: { login: string; nom: string; prenom: string; langue: string },
  input: ProfileInput,
  url: string,
  by: Actor | null,
) {
  const language = mailLanguage(user.langue)
  const recipient = { ...user, ...input }
  if (!by) {
    return {
      confirm: mailChangeConfirmMail(language, recipient, input.mail, url, MAIL_CHANGE_TTL_HOURS),
      notice: mailChangeRequestedMail(language, recipient, input.mail),
    }
  }
  const admin = `${by.prenom} ${by.nom}`
  return {
    confirm: mailChangeByAdminConfirmMail(language, recipient, admin, input.mail, url, MAIL_CHANGE_TTL_HOURS),
    notice: mailChangeByAdminMail(language, recipient, admin, input.mail),
  }
}

/** The audit entry of an administrator's request to move a user's address, not yet confirmed. */
function pendingMailChangeLog(
  actor: Actor,
  user: { id: number; mail: string },
  newMail: string,
  userAgent: string | null,
) {
  const entry = mailChangeLog(actor.id, user.mail, newMail, userAgent, user.id)
  return { ...entry, commentaire: `${entry.commentaire} (en attente de confirmation)` }
}
