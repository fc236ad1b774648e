import { type Expression, type RawBuilder, type SelectQueryBuilder, type SqlBool, sql } from 'kysely'
import { addSeconds, fromWireDate, todayIso } from '../contract/dates'
import type {
  AuthorizeInput,
  AuthorizeResult,
  CarrierStructure,
  OfferedFonction,
  PendingUser,
  Registered,
  RegistrationInput,
  RegistrationListQuery,
} from '../contract/registration'
import { type DB, type Guard, getDb, insertWhen, namedBatch } from '../db/client'
import type { Database, NewLog } from '../db/schema'
import type { Env } from '../env'
import { randomToken, sha256Hex } from '../lib/crypto'
import { linkOrigin } from '../lib/domain'
import { BusinessError, invalidField, notFound } from '../lib/errors'
import { mailLanguage, registrationMail } from '../lib/mail/templates'
import { containsEveryWord, onePage } from '../lib/query'
import { pathInScope, registrationInScope, type Viewer } from '../lib/scope'
import { adminWith, type Caller, viewerOf } from './actor'
import { logEntry } from './audit'
import { publicGate } from './captcha'
import { REGISTRATION_TTL_HOURS, underHourlyCap, voidLinks } from './mail-tokens'
import { queuedIds, queueMail } from './outbox'
import { requireNotOver } from './postes'
import { insertStructure, nomTaken } from './structures'
import { copyTemplate } from './templates'
import { mailTaken, toUser } from './users'

/**
 * Carrier self-registration (spec §1, §4): a visitor asks for an account for their company — a
 * carrier of the public list, or a name they type; the request waits, inactive, in the authorisation
 * queue of the administrators whose scope holds that company (or, for a typed name, the carriers'
 * parent), until one of them accepts it (a link to choose a password, like an invitation; a typed
 * company is created then) or refuses it (the request is deleted, and nothing else was written).
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

/** The carrier company a registration names: by its id, or by its name in any case (names are unique that way). */
function namedCarrier(db: DB, typeId: number, structure: RegistrationInput['structure']) {
  const carriers = db.selectFrom('structure').select(['id', 'nom']).where('type_id', '=', typeId)
  return 'id' in structure
    ? carriers.where('id', '=', structure.id)
    : carriers.where(sql<SqlBool>`nom = ${structure.nom} collate nocase`)
}

/** The structure a typed company will be created under, if it is configured and of the right type. */
function carriersParent(db: DB, typeId: number, parentId: number | null) {
  return db
    .selectFrom('structure as parent')
    .innerJoin('type_structure as carrier', (join) => join.on('carrier.id', '=', typeId))
    .select('parent.id')
    .where('parent.id', '=', parentId ?? 0)
    .whereRef('parent.type_id', '=', 'carrier.parent_type_id')
}

/**
 * POST rest/public/bd/transporteur/inscription: a pending, inactive user for the visitor, with the
 * carrier company they chose (or typed the name of, in any case), or the name of a company they typed
 * that no carrier holds. Such a name is only kept on the registration: the company is created when an
 * administrator authorises it, so an anonymous visitor writes no structure, lists nothing publicly,
 * holds no name, and learns nothing of the names the organisation uses (a name held by any other
 * structure is answered as any new one). The registration waits in the structure it names (or the
 * carriers' parent). Limited per client, behind the captcha. The user and the audit entry are one
 * batch: a second registration of the same address, even at the same moment, fails on the unique
 * index and leaves nothing behind (MAIL_ALREADY_USED).
 */
export async function register(env: Env, input: RegistrationInput, context: Context): Promise<Registered> {
  const gate = await publicGate(env, {
    kind: 'registration',
    limit: Number(env.REGISTRATION_RATE_PER_MINUTE ?? 5),
    captcha: input.captcha,
    remoteIp: context.ip,
  })
  const { typeId, parentId } = carrierSettings(env)
  if (typeId === null) {
    gate.check(await namedBatch(env.DB, gate.statements))
    throw creationFailed('Carrier registration is not configured')
  }
  const db = getDb(env.DB)
  const { mail, nom, prenom } = input.user
  const typed = 'nom' in input.structure ? input.structure.nom : null
  // (`collate nocase`, as the unique index on mail: an exact `=` would scan every user.)
  const holder = db
    .selectFrom('utilisateur')
    .select('utilisateur.id')
    .where(sql<SqlBool>`mail = ${mail} collate nocase`)
  // The client's rate and the payload spent, with what the decision reads: one round trip.
  const read = await namedBatch(env.DB, {
    ...gate.statements,
    holders: holder,
    carriers: namedCarrier(db, typeId, input.structure),
    parents: carriersParent(db, typeId, parentId),
  })
  gate.check(read)
  if (read.holders?.results.length) throw mailTaken(mail)
  const [carrier] = (read.carriers?.results ?? []) as { id: number; nom: string }[]
  if (typed === null && !carrier) throw invalidField('structure.id', 'Not a carrier company', 'validation.unknown')
  const [parent] = (read.parents?.results ?? []) as { id: number }[]
  if (!carrier && !parent) throw creationFailed('No structure is configured for new carriers')

  // The structure the registration waits in: its carrier, or the carriers' parent — still there when
  // the user is written (the insert reads it).
  const waitsIn = db
    .selectFrom('structure as waits_in')
    .where('waits_in.id', '=', carrier?.id ?? parent?.id ?? 0)
    .$if(carrier !== undefined, (q) => q.where('waits_in.type_id', '=', typeId))
  const at = new Date().toISOString()
  let written: Record<'user' | 'log', D1Result | undefined>
  try {
    written = await namedBatch(env.DB, {
      user: db
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
          'rattachement_id',
          'created_at',
          'updated_at',
        ])
        .expression(
          waitsIn.select([
            sql.val(mail).as('login'),
            sql.val(nom).as('nom'),
            sql.val(prenom).as('prenom'),
            sql.val(mail).as('mail'),
            sql.val(null).as('password_hash'),
            sql.val(0).as('actif'),
            sql.val(context.origin).as('domain'),
            sql.val(context.language).as('langue'),
            sql.val('PENDING').as('registration_state'),
            sql.val(carrier ? carrier.id : null).as('registration_structure_id'),
            sql.val(carrier ? null : typed).as('registration_structure_nom'),
            'waits_in.id as rattachement_id',
            sql.val(at).as('created_at'),
            sql.val(at).as('updated_at'),
          ]),
        ),
      log: insertWhen(
        db,
        'log',
        {
          ...logEntry(0, 'ADMINISTRATION', 'INSCRIPTION', context.userAgent, {
            commentaire: `${mail} : ${carrier?.nom ?? typed}`,
          }),
          utilisateur_id: sql<number>`(${holder})`,
        },
        holder,
      ),
    })
  } catch (error) {
    // Another registration took the address meanwhile (the unique index).
    if (String(error).includes('UNIQUE')) throw mailTaken(mail)
    throw error
  }
  if (!written.user?.meta.changes) throw creationFailed('The company is no longer available')
  // Only what the visitor typed, or a carrier of the public list, is answered.
  const structure = carrier ? { id: carrier.id, nom: carrier.nom } : { id: null, nom: typed ?? '' }
  return { mail, nom, prenom, structure }
}

/** The pending registrations of the viewer's queue (lib/scope.ts) with their company, as the queue reads them. */
export function pendingInScope(db: DB, viewer: Viewer) {
  return db
    .selectFrom('utilisateur as u')
    .leftJoin('structure as company', 'company.id', 'u.registration_structure_id')
    .where('u.registration_state', '=', 'PENDING')
    .where('u.supprime', '=', 0)
    .where(registrationInScope(db, viewer, 'u'))
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
  'u.rattachement_id',
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
  rattachement_id: number | null
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
  const matches = containsEveryWord(['u.recherche', 'u.mail'], query.q)
  const filtered = pendingInScope(db, viewer).$if(matches !== null, (q) => q.where(matches as Expression<SqlBool>))
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
  const [, rows, counted] = await adminWith(
    env,
    caller,
    onePage(sorted.orderBy('u.id', direction), query),
    filtered.select((eb) => eb.fn.countAll<number>().as('n')),
  )
  return { items: (rows as PendingRow[]).map(toPendingUser), total: counted[0]?.n ?? 0 }
}

/**
 * What the queue's "Valider" offers (GET rest/bd/authorize/user/{id}/fonctions): the functions of a
 * pending registration's company, in the caller's scope, as the authorisation would take them.
 */
export async function registrationFonctions(env: Env, caller: Caller, id: number): Promise<OfferedFonction[]> {
  const db = getDb(env.DB)
  const viewer = viewerOf(caller)
  const [, [target], offered] = await adminWith(
    env,
    caller,
    pendingInScope(db, viewer).select('u.id').where('u.id', '=', id),
    offeredFonctions(db, viewer, id, carrierSettings(env).typeId),
  )
  if (!target) throw notFound('Unknown registration')
  return offered.map(({ id, libelle }) => ({ id, libelle }))
}

/**
 * The registration an administrator acts on, in their queue, still pending, with the structure holding
 * the name it typed if any; `read` reads it again (at the end of the batch that changes it).
 */
async function pendingTarget(env: Env, caller: Caller, id: number) {
  const db = getDb(env.DB)
  const read = pendingInScope(db, viewerOf(caller))
    .select([...pendingColumns])
    .where('u.id', '=', id)
  const named = db
    .selectFrom('utilisateur as typed')
    .innerJoin('structure as holder', (join) =>
      join.on(sql<SqlBool>`holder.nom = typed.registration_structure_nom collate nocase`),
    )
    .select(['holder.id', 'holder.nom', 'holder.type_id'])
    .where('typed.id', '=', id)
  const [actor, [target], [holder], offered] = await adminWith(
    env,
    caller,
    read,
    named,
    offeredFonctions(db, viewerOf(caller), id, carrierSettings(env).typeId),
  )
  if (!target) throw notFound('Unknown registration')
  return { db, actor, target: target as PendingRow & { domain: string; langue: string }, holder, read, offered }
}

/** The company a registration belongs to as a statement runs (null while it waits for the one it typed). */
const companyOf = (id: number) =>
  sql<number | null>`(select registration_structure_id from utilisateur where id = ${id})`

/**
 * The functions an authorisation may give the carrier a post of: those of their company — for a
 * company it typed, of the carrier company of that name if one exists by then, else the names of the
 * carrier type's template, which the company is created with.
 */
function offeredFonctions(db: DB, viewer: Viewer, id: number, typeId: number | null) {
  const typedHolder = sql<number | null>`(select holder.id from structure holder
    where holder.type_id = ${typeId ?? 0}
    and holder.nom = (select registration_structure_nom from utilisateur where id = ${id}) collate nocase)`
  const company = sql<number | null>`coalesce(${companyOf(id)}, ${typedHolder})`
  return (
    db
      .selectFrom('fonction as offered')
      .innerJoin('structure as offered_company', 'offered_company.id', 'offered.structure_id')
      .select([sql<number | null>`offered.id`.as('id'), 'offered.libelle', sql<number>`offered.id`.as('position')])
      .where(sql<SqlBool>`offered.structure_id = ${company}`)
      // A company outside the caller's scope (one of that name elsewhere in the tree) offers nothing.
      .where(pathInScope(db, viewer, sql.ref<string>('offered_company.path')))
      .unionAll(
        db
          .selectFrom('modele_fonction as m')
          .select([sql<number | null>`null`.as('id'), 'm.libelle', 'm.position'])
          .where('m.type_id', '=', typeId ?? 0)
          .where(sql<SqlBool>`${company} is null`),
      )
      // A company's functions in the order they were made (a template's copy keeps its order).
      .orderBy('position')
  )
}

type PosteWanted = NonNullable<AuthorizeInput['poste']>

/** A name as SQLite's NOCASE compares it: only A–Z fold (É and é are two letters to it). */
const asciiFold = (text: string) => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase())

/** The field of the post's function, as the request named it. */
const fonctionField = (wanted: PosteWanted['fonction']) =>
  'id' in wanted ? 'poste.fonction.id' : 'poste.fonction.libelle'

/** The function a post given at authorisation names, among those offered, or 400 on the field. */
function offeredFonction(offered: { id: number | null; libelle: string }[], wanted: PosteWanted['fonction']) {
  const match =
    'id' in wanted
      ? offered.find((f) => f.id === wanted.id)
      : offered.find((f) => asciiFold(f.libelle) === asciiFold(wanted.libelle))
  if (!match) {
    throw invalidField(fonctionField(wanted), "Not a function of the carrier's company", 'validation.fonctionStructure')
  }
  return match
}

/**
 * The writes of the post given at authorisation, for its batch: the post in the carrier's company
 * (as it stands once the batch gave the registration its company) and its audit entry, both once the
 * link is written (the activation), unless the carrier already holds that post over those dates.
 * `ready` finds a row while the function exists in the company: the link waits for it, so that an
 * activation never goes without the post asked for.
 */
function posteAtAuthorisation(
  db: DB,
  viewer: Viewer,
  actorId: number,
  target: { id: number; mail: string },
  poste: PosteWanted,
  libelle: string,
  written: Guard,
  userAgent: string | null,
) {
  const company = companyOf(target.id)
  const wanted = poste.fonction
  const named =
    'id' in wanted
      ? sql<SqlBool>`ready.id = ${wanted.id}`
      : sql<SqlBool>`ready.libelle = ${wanted.libelle} collate nocase`
  const ready = db
    .selectFrom('fonction as ready')
    .innerJoin('structure as ready_company', 'ready_company.id', 'ready.structure_id')
    .select('ready.id')
    .where(sql<SqlBool>`ready.structure_id = ${company}`)
    .where(named)
    .where(pathInScope(db, viewer, sql.ref<string>('ready_company.path')))
  const fonction = sql<number>`(${ready.limit(1)})`
  const debut = fromWireDate(poste.dateDebut) ?? ''
  const fin = fromWireDate(poste.dateFin) ?? ''
  const free = (written as SelectQueryBuilder<Database, 'mail_token', { id: number }>).where(({ not, exists }) =>
    not(
      exists(
        db
          .selectFrom('poste as held')
          .select('held.id')
          .where('held.utilisateur_id', '=', target.id)
          .where(sql<SqlBool>`held.fonction_id = ${fonction}`)
          .where('held.date_debut', '<=', fin)
          .where('held.date_fin', '>=', debut),
      ),
    ),
  ) as unknown as Guard
  return {
    ready: ready as unknown as Guard,
    posteLog: insertWhen(
      db,
      'log',
      logEntry(actorId, 'ADMINISTRATION', 'POSTE_CREATION', userAgent, {
        commentaire: `#${target.id} ${target.mail} : ${libelle}, ${poste.dateDebut} → ${poste.dateFin}`,
      }),
      free,
    ),
    poste: insertWhen(
      db,
      'poste',
      {
        utilisateur_id: target.id,
        structure_id: company as RawBuilder<number>,
        fonction_id: fonction,
        date_debut: debut,
        date_fin: fin,
      },
      free,
    ),
  }
}

/**
 * POST rest/bd/authorize/user (spec §4, §7). Authorising sends the carrier a link to choose their
 * password (valid 7 days; a resend voids the last and renews the expiry), at most
 * `REGISTRATION_LINKS_PER_HOUR` an hour; the account becomes active, and complete once the password
 * is chosen. A registration that typed its company gets it then, in the same batch: created under the
 * structure it waited in, with its audit entry — or, when a carrier company of that name exists by
 * then (another registration of it authorised first), that one. When another kind of structure holds
 * the name, nothing is written: 409 STRUCTURE_NOM_ALREADY_USED with the name the carrier typed, for the
 * administrator to rename that structure or refuse the registration. Refusing deletes the
 * registration (a typed company was never written). Every write is conditioned, inside its batch, on
 * the registration still pending, so two administrators acting at once leave one outcome: a refused
 * or deleted registration is gone for the other (404), a completed one gets no link (409
 * LISTE_UPDATE_FAILED), of two links only the last one lives, its expiry the one shown, and of two
 * creations of a company one takes place.
 */
export async function authorizeRegistration(
  env: Env,
  caller: Caller,
  input: AuthorizeInput,
  context: Pick<Context, 'origin' | 'userAgent'>,
): Promise<{ result: AuthorizeResult; mailIds: number[] }> {
  const { db, actor, target, holder, read, offered } = await pendingTarget(env, caller, input.user.id)
  const id = target.id
  const stillPending = db
    .selectFrom('utilisateur')
    .select('id')
    .where('id', '=', id)
    .where('registration_state', '=', 'PENDING')
    .where('supprime', '=', 0)
    // Still in the caller's queue as the batch runs (its structure may have moved meanwhile).
    .where(registrationInScope(db, viewerOf(caller), 'utilisateur'))
  const log = (nomLog: string) =>
    logEntry(actor.id, 'ADMINISTRATION', nomLog, context.userAgent, { commentaire: `#${id} ${target.mail}` })

  if (!input.authorize) {
    const refused = await namedBatch(env.DB, {
      log: insertWhen(db, 'log', log('INSCRIPTION_REFUS'), stillPending),
      // The post an authorisation gave goes with the registration: said as its own deletion is.
      postesLog: postesGoneLog(
        db,
        target,
        logEntry(actor.id, 'ADMINISTRATION', 'POSTE_SUPPRESSION', context.userAgent),
        stillPending,
      ),
      deleted: db
        .deleteFrom('utilisateur')
        .where('id', '=', id)
        .where('registration_state', '=', 'PENDING')
        .where('supprime', '=', 0),
    })
    if ((refused.deleted?.meta.changes ?? 0) === 0) throw notFound('Unknown registration')
    return { result: { supprime: true, user: toPendingUser(target) }, mailIds: [] }
  }

  const { typeId } = carrierSettings(env)
  const typed = target.registration_structure_id === null ? target.registration_structure_nom : null
  if (typed !== null && holder && holder.type_id !== typeId) throw nomTaken(typed)
  const fonction = input.poste ? offeredFonction(offered, input.poste.fonction) : null
  if (input.poste) requireNotOver(fromWireDate(input.poste.dateFin) ?? '', todayIso(), 'poste.dateFin')
  const now = new Date()
  const at = now.toISOString()
  const token = randomToken()
  const tokenHash = await sha256Hex(token)
  const expiresAt = addSeconds(REGISTRATION_TTL_HOURS * 3600, now).toISOString()
  const url = `${linkOrigin(target.domain, context.origin)}/renewPassword/${token}`
  const company = target.company_nom ?? holder?.nom ?? typed ?? ''
  const mail = registrationMail(mailLanguage(target.langue), target, company, url, REGISTRATION_TTL_HOURS)
  const written = db.selectFrom('mail_token').select('id').where('token_hash', '=', tokenHash)
  // The cap's count is an aggregate, which yields a row even when nothing matches: the pending
  // condition must enclose it, not sit inside it.
  const underCap = stillPending.where(({ exists }) =>
    exists(underHourlyCap(db, id, 'REGISTRATION', REGISTRATION_LINKS_PER_HOUR, now)),
  )
  const companyWrites =
    typed === null || typeId === null
      ? null
      : typedCompany(db, actor.id, target, typed, typeId, underCap, at, context.userAgent)
  const posteWrites =
    input.poste && fonction
      ? posteAtAuthorisation(
          db,
          viewerOf(caller),
          actor.id,
          target,
          input.poste,
          fonction.libelle,
          written as unknown as Guard,
          context.userAgent,
        )
      : null
  const results = await namedBatch(env.DB, {
    creationLog: companyWrites?.creationLog ?? null,
    company: companyWrites?.company ?? null,
    templateFonctions: companyWrites?.templateFonctions ?? null,
    templateGrants: companyWrites?.templateGrants ?? null,
    attached: companyWrites?.attached ?? null,
    // No link until the registration has its company.
    linked: insertWhen(
      db,
      'mail_token',
      { token_hash: tokenHash, utilisateur_id: id, purpose: 'REGISTRATION', expires_at: expiresAt, created_at: at },
      underCap
        .where('registration_structure_id', 'is not', null)
        .$if(posteWrites !== null, (q) => q.where(({ exists }) => exists(posteWrites?.ready as never))),
    ),
    voided: voidLinks(db, id, 'REGISTRATION', at)
      .where('token_hash', '!=', tokenHash)
      .where(({ exists }) => exists(written)),
    activated: db
      .updateTable('utilisateur')
      .set({ actif: 1, token_register_expires_at: expiresAt, updated_at: at })
      .where('id', '=', id)
      .where(({ exists }) => exists(written)),
    posteLog: posteWrites?.posteLog ?? null,
    poste: posteWrites?.poste ?? null,
    queued: queueMail(db, { ...mail, to: target.mail, userId: id, kind: 'REGISTRATION' }, now, written),
    validationLog: insertWhen(
      db,
      'log',
      log(target.token_register_expires_at ? 'INSCRIPTION_RENVOI' : 'INSCRIPTION_VALIDATION'),
      written,
    ),
    after: read,
    state: db
      .selectFrom('utilisateur')
      .select(['registration_state', 'supprime', 'registration_structure_id'])
      .where('id', '=', id),
    holder: companyWrites?.holder ?? null,
    ready: posteWrites?.ready ?? null,
  })
  const [updated] = (results.after?.results ?? []) as PendingRow[]
  const [state] = (results.state?.results ?? []) as RegistrationState[]
  if (!updated) throw noLongerPending(state)
  if (typed !== null && updated.registration_structure_id === null) {
    throw noCompany(typed, typeId, (results.holder?.results ?? [])[0] as { type_id: number } | undefined)
  }
  if ((results.linked?.meta.changes ?? 0) === 0 && posteWrites && (results.ready?.results.length ?? 0) === 0) {
    // The function was deleted (or renamed) between the check and the write.
    throw invalidField(
      fonctionField(input.poste?.fonction ?? { id: 0 }),
      "Not a function of the carrier's company",
      'validation.fonctionStructure',
    )
  }
  if ((results.linked?.meta.changes ?? 0) === 0) {
    throw new BusinessError('TOO_MANY_ATTEMPTS', 429, 'Too many links for this registration; retry later', [3600])
  }
  const queued = results.queued
  return { result: { supprime: false, user: toPendingUser(updated) }, mailIds: queuedIds(queued ? [queued] : []) }
}

/**
 * The writes that give a registration the company it typed, for the authorisation's batch, each
 * guarded by the same conditions when it runs (the registration still pending, still typed, under the
 * link cap): the audit entry and the company, under the structure the registration waits in, when no
 * structure holds the name yet; then the registration joins the carrier company of that name, the one
 * just created or one created meanwhile. `holder` reads, at the end, what holds the name.
 */
function typedCompany(
  db: DB,
  actorId: number,
  target: PendingRow,
  typed: string,
  typeId: number,
  underCap: SelectQueryBuilder<Database, 'utilisateur', { id: number }>,
  at: string,
  userAgent: string | null,
) {
  const named = (alias: string) => sql<SqlBool>`${sql.ref(`${alias}.nom`)} = ${typed} collate nocase`
  const carrier = db
    .selectFrom('structure as carrier')
    .select('carrier.id')
    .where('carrier.type_id', '=', typeId)
    .where(named('carrier'))
  const stillTyped = underCap
    .where('registration_structure_id', 'is', null)
    .where('registration_structure_nom', '=', typed)
  const creatable = stillTyped.where(({ not, exists }) =>
    not(exists(db.selectFrom('structure as taken').select('taken.id').where(named('taken')))),
  )
  // The structure it waits in, still there (its deletion is refused while registrations wait in it).
  const parentId = target.rattachement_id ?? 0
  const parentExists = creatable.where(({ exists }) =>
    exists(db.selectFrom('structure as parent').select('parent.id').where('parent.id', '=', parentId)),
  )
  return {
    creationLog: insertWhen(
      db,
      'log',
      logEntry(actorId, 'ADMINISTRATION', 'STRUCTURE_CREATION', userAgent, {
        commentaire: `${typed} (#${target.id} ${target.mail})`,
      }),
      parentExists,
    ),
    company: insertStructure(db, { nom: typed, typeId, parentId, createdAt: at }, creatable),
    // The new company starts with its type's functions, so that the carrier can be given a post.
    ...templateCopy(copyTemplate(db, sql<number>`(${carrier})`, typeId, at)),
    attached: db
      .updateTable('utilisateur')
      .set({ registration_structure_id: sql<number>`(${carrier})`, registration_structure_nom: null, updated_at: at })
      .where('id', '=', target.id)
      .where(({ exists }) => exists(stillTyped))
      .where(({ exists }) => exists(carrier)),
    holder: db.selectFrom('structure as holder').select(['holder.id', 'holder.type_id']).where(named('holder')),
  }
}

/** `copyTemplate`'s two statements, named for the authorisation's batch. */
function templateCopy([templateFonctions, templateGrants]: ReturnType<typeof copyTemplate>) {
  return { templateFonctions, templateGrants }
}

type RegistrationState = { registration_state: string; supprime: number }

/** A 'yyyy-MM-dd' column as the API writes dates (dd/MM/yyyy), in SQL. */
const wireDateSql = (column: string) =>
  sql<string>`substr(${sql.ref(column)}, 9, 2) || '/' || substr(${sql.ref(column)}, 6, 2) || '/' || substr(${sql.ref(column)}, 1, 4)`

/**
 * A `POSTE_SUPPRESSION` entry (`entry`, its comment aside) for each post of a registration, as the
 * authorisation's `POSTE_CREATION` said it (`#id mail : function, start → end`), written while
 * `condition` holds — before the registration's deletion takes its posts with it.
 */
function postesGoneLog(db: DB, target: { id: number; mail: string }, entry: NewLog, condition: Guard) {
  const { commentaire: _, ...fixed } = entry
  return db
    .insertInto('log')
    .columns([...(Object.keys(fixed) as (keyof NewLog)[]), 'commentaire'])
    .expression(
      db
        .selectFrom('poste as p')
        .innerJoin('fonction as f', 'f.id', 'p.fonction_id')
        .select((eb) => [
          ...Object.entries(fixed).map(([column, value]) => eb.val(value).as(column)),
          sql<string>`${`#${target.id} ${target.mail} : `} || f.libelle || ', ' || ${wireDateSql('p.date_debut')}
            || ' → ' || ${wireDateSql('p.date_fin')}`.as('commentaire'),
        ])
        .where('p.utilisateur_id', '=', target.id)
        .where(({ exists }) => exists(condition))
        .orderBy('p.id') as never,
    )
}

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

/**
 * Why an authorised registration did not get the company it typed: another kind of structure took
 * the name meanwhile (409, the name as the carrier typed it), or the structure it waited in is gone.
 */
function noCompany(typed: string, typeId: number | null, holder: { type_id: number } | undefined) {
  if (holder && holder.type_id !== typeId) return nomTaken(typed)
  return creationFailed('No structure to create the company under')
}
