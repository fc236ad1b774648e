import { type Expression, type SqlBool, sql } from 'kysely'
import type {
  AuthorizeInput,
  AuthorizeResult,
  CarrierStructure,
  PendingUser,
  Registered,
  RegistrationInput,
  RegistrationListQuery,
} from '../contract/registration'
import { batch, type DB, getDb, insertWhen } from '../db/client'
import type { Env } from '../env'
import { randomToken, sha256Hex } from '../lib/crypto'
import { addSeconds } from '../lib/dates'
import { linkOrigin } from '../lib/domain'
import { BusinessError, invalidField, notFound } from '../lib/errors'
import { mailLanguage, registrationMail } from '../lib/mail/templates'
import { scopeStructureIds, type Viewer } from '../lib/scope'
import { actorWith, type Caller, viewerOf } from './actor'
import { requireCaptcha } from './captcha'
import { logEntry } from './logs'
import { REGISTRATION_TTL_HOURS, underHourlyCap, voidLinks } from './mail-tokens'
import { queuedIds, queueMail } from './outbox'
import { limitClient } from './rate-limit'
import { containsEveryWord, insertStructure, nomTaken, onePage, requireAdmin } from './structures'
import { mailTaken, toUser } from './users'

/**
 * Carrier self-registration (spec §1, §4): a visitor asks for an account for their company; the
 * request waits, inactive, in the authorisation queue of the administrators whose scope holds that
 * company, until one of them accepts it (a link to choose a password, like an invitation) or refuses
 * it (the request is deleted, and the company it created with it if nothing else uses it).
 */

/** Links an administrator may send one registration per hour (each is a mail). */
export const REGISTRATION_LINKS_PER_HOUR = 5

type Context = { origin: string; userAgent: string | null; ip: string | null; language: 'fr' | 'en' }

/** The configured carrier type and the structure new carriers hang under (either may be missing). */
function carrierSettings(env: Env) {
  const id = (value: string | undefined) => {
    const n = Number(value)
    return Number.isSafeInteger(n) && n > 0 ? n : null
  }
  return { typeId: id(env.CARRIER_TYPE_ID), parentId: id(env.CARRIER_PARENT_ID) }
}

/** A registration that cannot be written (spec §8 LISTE_CREATION_FAILED); nothing was. */
const creationFailed = (message: string) => new BusinessError('LISTE_CREATION_FAILED', 503, message)

/** GET rest/public/bd/transporteur/structures: the carrier companies, by name. */
export async function carrierStructures(env: Env): Promise<CarrierStructure[]> {
  const { typeId } = carrierSettings(env)
  if (typeId === null) return []
  return getDb(env.DB)
    .selectFrom('structure')
    .select(['id', 'nom'])
    .where('type_id', '=', typeId)
    .orderBy(sql`nom collate nocase`)
    .orderBy('id')
    .execute()
}

/**
 * POST rest/public/bd/transporteur/inscription: a pending, inactive user for the visitor, with the
 * company they chose, or the one they typed — created then under the carriers' parent, or the
 * existing carrier of that name. Limited per client, behind the captcha. The user, a new company and
 * the audit entry are one batch: a second registration of the same address, even at the same moment,
 * fails on the unique index and leaves nothing behind (MAIL_ALREADY_USED).
 */
export async function register(env: Env, input: RegistrationInput, context: Context): Promise<Registered> {
  await limitClient(env, 'registration', context.ip, Number(env.REGISTRATION_RATE_PER_MINUTE ?? 5))
  await requireCaptcha(env, input.captcha, context.ip)
  const { typeId, parentId } = carrierSettings(env)
  if (typeId === null) throw creationFailed('Carrier registration is not configured')
  const db = getDb(env.DB)
  const { mail, nom, prenom } = input.user
  const typed = 'nom' in input.structure ? input.structure.nom : null
  // The company the form names: by its id, or by its name in any case (names are unique that way).
  const named = (alias: string) =>
    'id' in input.structure
      ? sql<SqlBool>`${sql.ref(`${alias}.id`)} = ${input.structure.id}`
      : sql<SqlBool>`${sql.ref(`${alias}.nom`)} = ${typed} collate nocase`
  const [holders, structures, parents] = (
    await batch(env.DB, [
      db.selectFrom('utilisateur').select('id').where(sql<SqlBool>`mail = ${mail} collate nocase`),
      db.selectFrom('structure as chosen').select(['chosen.id', 'chosen.nom', 'chosen.type_id']).where(named('chosen')),
      db
        .selectFrom('structure as parent')
        .innerJoin('type_structure as carrier', (join) => join.on('carrier.id', '=', typeId))
        .select(['parent.id', 'parent.path'])
        .where('parent.id', '=', parentId ?? 0)
        .whereRef('parent.type_id', '=', 'carrier.parent_type_id'),
    ])
  ).map((r) => r.results)
  if (holders?.length) throw mailTaken(mail)
  const existing = structures?.[0] as { id: number; nom: string; type_id: number } | undefined
  if (typed === null && existing?.type_id !== typeId) {
    throw invalidField('structure.id', 'Not a carrier company', 'validation.unknown')
  }
  if (existing && existing.type_id !== typeId) throw nomTaken(existing.nom)
  const parent = parents?.[0] as { id: number; path: string } | undefined
  if (!existing && !parent) throw creationFailed('No structure is configured for new carriers')

  const now = new Date()
  const at = now.toISOString()
  // The company, found by the same predicate once a new one is written.
  const company = db.selectFrom('structure as company').where('company.type_id', '=', typeId).where(named('company'))
  // (`collate nocase`, as the unique index on mail: an exact `=` would scan every user.)
  const newUser = db
    .selectFrom('utilisateur')
    .select('utilisateur.id')
    .where(sql<SqlBool>`utilisateur.mail = ${mail} collate nocase`)
  let results: D1Result[]
  try {
    results = await batch(env.DB, [
      ...(!existing && parent && typed
        ? [
            // Another registration may have created it meanwhile: then it is theirs and ours.
            insertStructure(db, { nom: typed, typeId, parentId: parent.id, createdAt: at }).onConflict((oc) =>
              oc.doNothing(),
            ),
          ]
        : []),
      db
        .insertInto('utilisateur')
        .columns([
          'login',
          'nom',
          'prenom',
          'mail',
          'password_hash',
          'actif',
          'domain',
          'langue',
          'registration_state',
          'registration_structure_id',
          'registration_structure_nom',
          'created_at',
          'updated_at',
        ])
        .expression(
          company.select([
            sql.val(mail).as('login'),
            sql.val(nom).as('nom'),
            sql.val(prenom).as('prenom'),
            sql.val(mail).as('mail'),
            sql.val(null).as('password_hash'),
            sql.val(0).as('actif'),
            sql.val(context.origin).as('domain'),
            sql.val(context.language).as('langue'),
            sql.val('PENDING').as('registration_state'),
            'company.id as registration_structure_id',
            // Kept when a registration created the company (this one, or an earlier one still on
            // record): refusing the last registration that uses it may then remove it.
            sql<string | null>`case when company.created_at = ${at} or exists (
              select 1 from utilisateur as creator
              where creator.registration_structure_id = company.id and creator.registration_structure_nom is not null)
              then company.nom end`.as('registration_structure_nom'),
            sql.val(at).as('created_at'),
            sql.val(at).as('updated_at'),
          ]) as never,
        ),
      insertWhen(
        db,
        'log',
        {
          ...logEntry(0, 'ADMINISTRATION', 'INSCRIPTION', context.userAgent, {
            commentaire: `${mail} : ${typed ?? existing?.nom}`,
          }),
          utilisateur_id: sql<number>`(${newUser})` as never,
        },
        newUser,
      ),
      company.select(['company.id', 'company.nom']),
    ])
  } catch (error) {
    // Another registration took the address meanwhile (the unique index; a company's name cannot
    // conflict: its insert does nothing then).
    if (String(error).includes('UNIQUE')) throw mailTaken(mail)
    throw error
  }
  const written = results.at(-3)?.meta.changes ?? 0
  const [registeredWith] = (results.at(-1)?.results ?? []) as { id: number; nom: string }[]
  if (!written || !registeredWith) throw creationFailed('The company is no longer available')
  return { mail, nom, prenom, structure: { id: registeredWith.id, nom: registeredWith.nom } }
}

/**
 * Whether the registration a query reads under `u` lies in the viewer's scope: its company's — or,
 * for one recorded with a typed name and no company, the carriers' parent's — structure is in it.
 */
function registrationInScope(db: DB, viewer: Viewer, parentId: number | null): Expression<SqlBool> {
  return sql<SqlBool>`coalesce(u.registration_structure_id, ${parentId ?? 0}) in ${scopeStructureIds(db, viewer)}`
}

/** The pending registrations of the viewer's scope with their company, as the queue reads them. */
function pendingInScope(db: DB, viewer: Viewer, parentId: number | null) {
  return db
    .selectFrom('utilisateur as u')
    .leftJoin('structure as company', 'company.id', 'u.registration_structure_id')
    .where('u.registration_state', '=', 'PENDING')
    .where('u.supprime', '=', 0)
    .where(registrationInScope(db, viewer, parentId))
}

const pendingColumns = [
  'u.id',
  'u.login',
  'u.nom',
  'u.prenom',
  'u.mail',
  'u.actif',
  'u.supprime',
  'u.admin',
  'u.token_register_expires_at',
  'u.registration_structure_id',
  'u.registration_structure_nom',
  'u.domain',
  'u.langue',
  'company.nom as company_nom',
] as const

type PendingRow = {
  id: number
  login: string
  nom: string
  prenom: string
  mail: string
  actif: number
  supprime: number
  admin: number
  token_register_expires_at: string | null
  registration_structure_id: number | null
  registration_structure_nom: string | null
  company_nom: string | null
}

/** A row of the queue as the API answers it: a user (spec §3, `tokenRegister`) and their company. */
function toPendingUser(row: PendingRow): PendingUser {
  const user = toUser({ ...row, mail_en_attente: null } as never, [], true)
  const structure =
    row.registration_structure_id !== null && row.company_nom !== null
      ? { id: row.registration_structure_id, nom: row.company_nom }
      : row.registration_structure_nom !== null
        ? { id: null, nom: row.registration_structure_nom }
        : null
  return { ...user, structure }
}

/**
 * GET rest/bd/authorize/get/user/all: the pending registrations of the caller's scope, those with a
 * link first, soonest expiry first (spec §4), or sorted by mail, nom or prenom; one page with `page`.
 */
export async function listRegistrations(
  env: Env,
  caller: Caller,
  query: RegistrationListQuery,
): Promise<{ items: PendingUser[]; total: number }> {
  const db = getDb(env.DB)
  const viewer = viewerOf(caller)
  const { parentId } = carrierSettings(env)
  const matches = containsEveryWord(['u.recherche', 'u.mail'], query.q)
  const filtered = pendingInScope(db, viewer, parentId).$if(matches !== null, (q) =>
    q.where(matches as Expression<SqlBool>),
  )
  const tri = query.tri ?? 'expiry'
  const direction = tri.startsWith('-') ? 'desc' : 'asc'
  let sorted = filtered.select([...pendingColumns])
  if (tri.endsWith('expiry')) {
    // Those with a link first either way (spec §4), then by their link's expiry.
    sorted = sorted.orderBy(sql`u.token_register_expires_at is null`).orderBy('u.token_register_expires_at', direction)
  } else {
    const column = tri.replace('-', '') as 'mail' | 'nom' | 'prenom'
    sorted = sorted.orderBy(sql`${sql.ref(`u.${column}`)} collate nocase`, direction)
  }
  const [actor, rows, counted] = await actorWith(
    env,
    caller,
    onePage(sorted.orderBy('u.id', direction), query),
    filtered.select((eb) => eb.fn.countAll<number>().as('n')),
  )
  requireAdmin(actor)
  return { items: (rows as PendingRow[]).map(toPendingUser), total: counted[0]?.n ?? 0 }
}

/**
 * The registration an administrator acts on, in their scope, still pending; `read` reads it again
 * (at the end of the batch that changes it).
 */
async function pendingTarget(env: Env, caller: Caller, id: number) {
  const db = getDb(env.DB)
  const read = pendingInScope(db, viewerOf(caller), carrierSettings(env).parentId)
    .select([...pendingColumns])
    .where('u.id', '=', id)
  const [actor, [target]] = await actorWith(env, caller, read)
  requireAdmin(actor)
  if (!target) throw notFound('Unknown registration')
  return { db, actor, target: target as PendingRow & { domain: string; langue: string }, read }
}

/**
 * POST rest/bd/authorize/user (spec §4, §7). Authorising sends the carrier a link to choose their
 * password (valid 7 days; a resend voids the last and renews the expiry), at most
 * `REGISTRATION_LINKS_PER_HOUR` an hour; the account becomes active, and complete once the password
 * is chosen. Refusing deletes the registration, and the company it created if nothing else uses it.
 * Every write is conditioned, inside its batch, on the registration still pending, so two
 * administrators acting at once leave one outcome: a refused or deleted registration is gone for the
 * other (404), a completed one gets no link (409 LISTE_UPDATE_FAILED), and of two links only the last
 * one lives, its expiry the one shown.
 */
export async function authorizeRegistration(
  env: Env,
  caller: Caller,
  input: AuthorizeInput,
  context: Pick<Context, 'origin' | 'userAgent'>,
): Promise<{ result: AuthorizeResult; mailIds: number[] }> {
  const { db, actor, target, read } = await pendingTarget(env, caller, input.user.id)
  const id = target.id
  const stillPending = db
    .selectFrom('utilisateur')
    .select('id')
    .where('id', '=', id)
    .where('registration_state', '=', 'PENDING')
    .where('supprime', '=', 0)
  const log = (nomLog: string) =>
    logEntry(actor.id, 'ADMINISTRATION', nomLog, context.userAgent, { commentaire: `#${id} ${target.mail}` })
  const company = target.company_nom ?? target.registration_structure_nom ?? ''
  const now = new Date()
  const at = now.toISOString()

  if (!input.authorize) {
    const results = await batch(env.DB, [
      insertWhen(db, 'log', log('INSCRIPTION_REFUS'), stillPending),
      db
        .deleteFrom('utilisateur')
        .where('id', '=', id)
        .where('registration_state', '=', 'PENDING')
        .where('supprime', '=', 0),
      // The company this registration created goes with it while nothing else hangs on it.
      ...(target.registration_structure_id !== null && target.registration_structure_nom !== null
        ? [abandonedCompany(db, target.registration_structure_id, target.registration_structure_nom)]
        : []),
    ])
    if ((results[1]?.meta.changes ?? 0) === 0) throw notFound('Unknown registration')
    return { result: { supprime: true, user: toPendingUser(target) }, mailIds: [] }
  }

  const token = randomToken()
  const tokenHash = await sha256Hex(token)
  const expiresAt = addSeconds(REGISTRATION_TTL_HOURS * 3600, now).toISOString()
  const url = `${linkOrigin(target.domain, context.origin)}/renewPassword/${token}`
  const mail = registrationMail(mailLanguage(target.langue), target, company, url, REGISTRATION_TTL_HOURS)
  const written = db.selectFrom('mail_token').select('id').where('token_hash', '=', tokenHash)
  // The cap's count is an aggregate, which yields a row even when nothing matches: the pending
  // condition must enclose it, not sit inside it.
  const linkable = stillPending.where(({ exists }) =>
    exists(underHourlyCap(db, id, 'REGISTRATION', REGISTRATION_LINKS_PER_HOUR, now)),
  )
  const [linked, , , queued, , after, state] = await batch(env.DB, [
    insertWhen(
      db,
      'mail_token',
      { token_hash: tokenHash, utilisateur_id: id, purpose: 'REGISTRATION', expires_at: expiresAt, created_at: at },
      linkable,
    ),
    voidLinks(db, id, 'REGISTRATION', at)
      .where('token_hash', '!=', tokenHash)
      .where(({ exists }) => exists(written)),
    db
      .updateTable('utilisateur')
      .set({ actif: 1, token_register_expires_at: expiresAt, updated_at: at })
      .where('id', '=', id)
      .where(({ exists }) => exists(written)),
    queueMail(db, { ...mail, to: target.mail, userId: id, kind: 'REGISTRATION' }, now, written),
    insertWhen(
      db,
      'log',
      log(target.token_register_expires_at ? 'INSCRIPTION_RENVOI' : 'INSCRIPTION_VALIDATION'),
      written,
    ),
    read,
    db.selectFrom('utilisateur').select(['registration_state', 'supprime']).where('id', '=', id),
  ])
  const [updated] = (after?.results ?? []) as PendingRow[]
  if (!updated) throw noLongerPending((state?.results ?? [])[0] as RegistrationState | undefined)
  if ((linked?.meta.changes ?? 0) === 0) {
    throw new BusinessError('TOO_MANY_ATTEMPTS', 429, 'Too many links for this registration; retry later', [3600])
  }
  return { result: { supprime: false, user: toPendingUser(updated) }, mailIds: queuedIds(queued ? [queued] : []) }
}

type RegistrationState = { registration_state: string; supprime: number }

/**
 * Why a registration read at the start of a decision was no longer pending at its write: refused or
 * deleted meanwhile (gone: 404), or completed, its password chosen (409: nothing left to decide).
 */
function noLongerPending(state: RegistrationState | undefined) {
  if (!state || state.supprime === 1 || state.registration_state === 'PENDING') {
    return notFound('Unknown registration')
  }
  return new BusinessError('LISTE_UPDATE_FAILED', 409, 'This registration is no longer pending')
}

/** Deletes a company a refused registration created, unless anything (a user, a post, a function, a structure) uses it. */
function abandonedCompany(db: DB, structureId: number, nom: string) {
  return db
    .deleteFrom('structure')
    .where('id', '=', structureId)
    .where('nom', '=', nom)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('utilisateur')
            .select('id')
            .where('registration_structure_id', '=', structureId)
            .union(selectFrom('poste').select('id').where('structure_id', '=', structureId))
            .union(selectFrom('fonction').select('id').where('structure_id', '=', structureId))
            .union(selectFrom('structure as child').select('child.id').where('child.parent_id', '=', structureId)),
        ),
      ),
    )
}
