import { env } from 'cloudflare:test'
import { sql } from 'kysely'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import type { z } from 'zod'
import {
  pendingUserSchema,
  type RegistrationInput,
  type registrationListQuery,
} from '../../../worker-api/contract/organisation/registration'
import { backgroundContext } from '../../../worker-api/lib/context'
import { sha256Hex } from '../../../worker-api/lib/crypto'
import type { MailProvider, OutgoingMail } from '../../../worker-api/lib/mail/providers'
import { deliverOutbox } from '../../../worker-api/services/core/outbox'
import { REGISTRATION_LINKS_PER_HOUR } from '../../../worker-api/services/organisation/registration-authorize'
import { api, okBody } from '../client'
import {
  call,
  changedBeforeWrite,
  createOrganisation,
  createUser,
  currentPost,
  db,
  editCaptcha,
  expectError,
  login,
  ORIGIN,
  post,
  sessionFor,
  solvedCaptcha,
  withFrozenClock,
} from '../helpers'

/**
 * Carrier self-registration (spec §1, §4, §7): the public list of carrier companies, the public
 * registration form, and the authorisation queue of the administrators whose scope holds the company.
 * The organisation of the helpers plus the carriers: Groupe (1) → Direction Nord (2) → Agence Lille (4)
 * → Transports Martin (5, carrier); Groupe → Direction Sud (3) → Agence Marseille (6) → Fret Sud (7,
 * carrier). A typed new company goes under Agence Lille (CARRIER_PARENT_ID 4, carrier type 4). The
 * database lives for the whole file: each test registers its own addresses.
 */

const REGISTER = '/rest/public/bd/transporteur/inscription'
const QUEUE = '/rest/bd/authorize/get/user/all'
const AUTHORIZE = '/rest/bd/authorize/user'
const RENEW = '/rest/public/bd/password/renew/'
const FORGOT = '/rest/public/bd/password/forgot/'

const DAY = 86_400_000
/** How long the link of an accepted registration works (spec: 7 days). */
const REGISTRATION_TTL = 7 * DAY
/** A password the rules accept (6–12 characters, a letter first, lower, upper and digit). */
const PASSWORD = 'Carrier12'

let rootAdmin: string
let rootAdminId: number
let nordAdmin: string
let nordAdminId: number
let sudAdmin: string
let agent: string

let sequence = 0
/** A fresh address (the tag says which test it belongs to). */
const newMail = (tag: string) => `${tag}-${++sequence}@transport.example.test`

type Company = RegistrationInput['structure']

/** The registration payload of spec §3, with a freshly solved captcha unless one is given. */
async function form(mail: string, structure: Company, extra: Record<string, unknown> = {}) {
  return { user: { mail, nom: 'Martin', prenom: 'Jeanne' }, structure, captcha: await solvedCaptcha(), ...extra }
}

const register = async (mail: string, structure: Company, extra: Record<string, unknown> = {}) =>
  post(REGISTER, await form(mail, structure, extra))
/** A registration sent as the route declares it. */
const signUp = async (mail: string, structure: Company) =>
  api().rest.public.bd.transporteur.inscription.$post({ json: await form(mail, structure) })
/** The public list of the carrier companies. */
const carrierList = () => okBody(api().rest.public.bd.transporteur.structures.$get())

/** A successful registration, and the id of the user row it wrote. */
async function registered(mail: string, structure: Company) {
  const body = await okBody(signUp(mail, structure), 201)
  const row = await userRow(mail)
  if (!row) throw new Error(`no user row for ${mail}`)
  return { ...body, id: row.id }
}

const userRow = (mail: string) =>
  db().selectFrom('utilisateur').selectAll().where(sql<boolean>`mail = ${mail} collate nocase`).executeTakeFirst()

const usersWithMail = async (mail: string) =>
  (await db().selectFrom('utilisateur').select('id').where(sql<boolean>`mail = ${mail} collate nocase`).execute())
    .length

const userById = (id: number) => db().selectFrom('utilisateur').selectAll().where('id', '=', id).executeTakeFirst()

const structuresNamed = (nom: string) =>
  db().selectFrom('structure').selectAll().where(sql<boolean>`nom = ${nom} collate nocase`).execute()

/** Rows of every table a registration or a decision may write, whoever they belong to. */
async function rowCounts() {
  const tables = ['utilisateur', 'structure', 'mail_token', 'outbox', 'log']
  const counts = await Promise.all(
    tables.map((t) => env.DB.prepare(`select count(*) as n from ${t}`).first<{ n: number }>()),
  )
  return Object.fromEntries(tables.map((t, i) => [t, counts[i]?.n]))
}

/** The queue as `token`'s administrator sees it. */
async function queue(token: string, query: z.input<typeof registrationListQuery> = {}) {
  const response = await api(token).rest.bd.authorize.get.user.all.$get({ query })
  const rows = await okBody(response)
  return { rows, ids: rows.map((u) => u.id), total: Number(response.headers.get('X-Total-Count')) }
}

const decide = (id: number, authorize: boolean, token: string) =>
  post(AUTHORIZE, { user: { id }, authorize }, { token })
const authorize = (id: number, token: string) => decide(id, true, token)
const refuse = (id: number, token: string) => decide(id, false, token)
/** A decision on registration `id` as the route declares it, and its answer. */
const decided = (id: number, authorize: boolean, token: string) =>
  okBody(api(token).rest.bd.authorize.user.$post({ json: { user: { id }, authorize } }))

const renew = (token: string, password: string) => post(RENEW, { token, password })

const outboxTo = (mail: string) =>
  db().selectFrom('outbox').selectAll().where('to_address', '=', mail).orderBy('id').execute()

/** The registration mails sent to an address, and the link of the latest as its recipient reads it. */
async function registrationMails(mail: string) {
  const sent = (await outboxTo(mail)).filter((m) => m.kind === 'REGISTRATION')
  const match = /(https?:\/\/\S+?)\/renewPassword\/([A-Za-z0-9_-]+)/.exec(sent.at(-1)?.text ?? '')
  if (!match) throw new Error(`no registration link mailed to ${mail}`)
  return { sent, origin: match[1] as string, token: match[2] as string }
}

/** The unused, unexpired mail tokens of a user id (whether or not the user row still exists). */
const liveTokens = (userId: number) =>
  db()
    .selectFrom('mail_token')
    .selectAll()
    .where('utilisateur_id', '=', userId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', new Date().toISOString())
    .execute()

/**
 * The administrators' audit entries about a registration (they name it `#id mail`; a refused
 * registration's id may be given again to the next one, its mail tells them apart).
 */
const logsAbout = (registration: { id: number; mail: string }) =>
  db()
    .selectFrom('log')
    .select(['nom_log', 'type_log', 'utilisateur_id', 'commentaire'])
    .where('commentaire', '=', `#${registration.id} ${registration.mail}`)
    .orderBy('id')
    .execute()

beforeAll(async () => {
  await createOrganisation()
  await db().insertInto('type_structure').values({ id: 4, libelle: 'Transporteur', parent_type_id: 3 }).execute()
  await db()
    .insertInto('structure')
    .values([
      { id: 5, nom: 'Transports Martin', type_id: 4, parent_id: 4, path: '/1/2/4/5/' },
      { id: 6, nom: 'Agence Marseille', type_id: 3, parent_id: 3, path: '/1/3/6/' },
      { id: 7, nom: 'Fret Sud', type_id: 4, parent_id: 6, path: '/1/3/6/7/' },
    ])
    .execute()
  const root = await createUser({ admin: true, postes: [currentPost(1, 1)] })
  rootAdminId = root.id
  rootAdmin = (await sessionFor(root.id)).accessToken
  const nord = await createUser({ admin: true, postes: [currentPost(2, 1)] })
  nordAdminId = nord.id
  nordAdmin = (await sessionFor(nord.id)).accessToken
  const sud = await createUser({ admin: true, postes: [currentPost(3, 3)] })
  sudAdmin = (await sessionFor(sud.id)).accessToken
  const dockAgent = await createUser({ postes: [currentPost(4, 2)] })
  agent = (await sessionFor(dockAgent.id)).accessToken
})

describe('GET rest/public/bd/transporteur/structures', () => {
  it('lists the carrier companies only, by name, to anybody', async () => {
    const list = await carrierList()
    expect(list).toEqual(
      expect.arrayContaining([
        { id: 5, nom: 'Transports Martin' },
        { id: 7, nom: 'Fret Sud' },
      ]),
    )
    // The agencies, directions and the root are not carriers.
    for (const id of [1, 2, 3, 4, 6]) expect(list.map((s) => s.id)).not.toContain(id)
    const carriers = await db().selectFrom('structure').select('id').where('type_id', '=', 4).execute()
    expect(list.map((s) => s.id).sort((a, b) => a - b)).toEqual(carriers.map((c) => c.id).sort((a, b) => a - b))
    const names = list.map((s) => s.nom.toLowerCase())
    expect(names).toEqual([...names].sort())
    for (const item of list) expect(Object.keys(item).sort()).toEqual(['id', 'nom'])
  })
})

describe('a carrier registration, from the form to the first sign-in', () => {
  it('waits inactive for an administrator of its company, then the link mailed lets the carrier in', async () => {
    const mail = newMail('loop')
    expect(await okBody(signUp(mail, { id: 5 }), 201)).toEqual({
      mail,
      nom: 'Martin',
      prenom: 'Jeanne',
      structure: { id: 5, nom: 'Transports Martin' },
    })
    const row = await userRow(mail)
    expect(row).toMatchObject({
      login: mail,
      mail,
      actif: 0,
      supprime: 0,
      admin: 0,
      password_hash: null,
      registration_state: 'PENDING',
      registration_structure_id: 5,
      token_register_expires_at: null,
      domain: ORIGIN,
    })
    const id = row!.id
    // The audit entry of the registration, on the new user.
    const inscription = await db()
      .selectFrom('log')
      .select(['type_log', 'nom_log', 'commentaire'])
      .where('utilisateur_id', '=', id)
      .execute()
    expect(inscription).toEqual([expect.objectContaining({ type_log: 'ADMINISTRATION', nom_log: 'INSCRIPTION' })])
    expect(inscription[0]?.commentaire).toContain(mail)

    // Not yet: whatever the password, the answer says the registration is not finished.
    await expectError(await login(mail, PASSWORD), 403, 'USER_NOT_FINISH_REGISTRATION')
    // Nor can a reset link bypass the administrator.
    const forgot = await post(FORGOT, { mail, domain: ORIGIN, captcha: await solvedCaptcha() })
    expect(forgot.status).toBe(204)
    expect(await outboxTo(mail)).toEqual([])

    const waiting = (await queue(nordAdmin)).rows.find((u) => u.id === id)
    expect(waiting).toMatchObject({
      login: mail,
      mail,
      nom: 'Martin',
      prenom: 'Jeanne',
      actif: false,
      supprime: false,
      admin: false,
      tokenRegister: null,
      structure: { id: 5, nom: 'Transports Martin' },
    })
    expect(pendingUserSchema.safeParse(waiting).success).toBe(true)

    const before = Date.now()
    const accepted = await decided(id, true, nordAdmin)
    expect(accepted.supprime).toBe(false)
    expect(accepted.user).toMatchObject({ id, mail, actif: true, structure: { id: 5, nom: 'Transports Martin' } })
    expect(accepted.user.tokenRegister).toBeGreaterThanOrEqual(before + REGISTRATION_TTL - 1000)
    expect(accepted.user.tokenRegister).toBeLessThanOrEqual(Date.now() + REGISTRATION_TTL + 1000)

    const { sent, origin, token } = await registrationMails(mail)
    expect(sent).toHaveLength(1)
    expect(sent[0]).toMatchObject({ to_address: mail, utilisateur_id: id, kind: 'REGISTRATION' })
    expect(origin).toBe(ORIGIN)
    const [link, ...others] = await db().selectFrom('mail_token').selectAll().where('utilisateur_id', '=', id).execute()
    expect(others).toEqual([])
    expect(link).toMatchObject({ purpose: 'REGISTRATION', used_at: null, token_hash: await sha256Hex(token) })
    expect(Date.parse(link?.expires_at ?? '')).toBe(accepted.user.tokenRegister)

    // Accepted but no password yet: still not finished.
    await expectError(await login(mail, PASSWORD), 403, 'USER_NOT_FINISH_REGISTRATION')
    expect((await renew(token, PASSWORD)).status).toBe(204)
    expect((await login(mail, PASSWORD)).status).toBe(200)
    expect(await userRow(mail)).toMatchObject({ registration_state: 'COMPLETE', actif: 1 })

    // Done: gone from the queue, nothing left to decide.
    expect((await queue(nordAdmin)).ids).not.toContain(id)
    expect((await queue(rootAdmin)).ids).not.toContain(id)
    await expectError(await authorize(id, nordAdmin), 404, 'NOT_FOUND')
    await expectError(await refuse(id, nordAdmin), 404, 'NOT_FOUND')
    expect(await userById(id)).toBeDefined()
  })
})

describe('a company typed at registration', () => {
  /** What an anonymous visitor can learn of a name: the public list and the answer to a registration. */
  async function publicNames() {
    return (await carrierList()).map((s) => s.nom.toLowerCase())
  }

  it('is kept on the registration, not created: not listed, not a structure, the answer echoes what was typed', async () => {
    const before = await rowCounts()
    const first = await registered(newMail('typed'), { nom: 'Transports Nouveaux' })
    expect(first.structure).toEqual({ id: null, nom: 'Transports Nouveaux' })
    expect(await structuresNamed('Transports Nouveaux')).toEqual([])
    expect((await rowCounts()).structure).toBe(before.structure)
    expect(await publicNames()).not.toContain('transports nouveaux')
    // Kept on the registration, which waits where the company will be created (the carriers' parent).
    expect(await userById(first.id)).toMatchObject({
      registration_structure_id: null,
      registration_structure_nom: 'Transports Nouveaux',
      rattachement_id: 4,
    })
    // A second registration of the name in another case is another request for the same company.
    const second = await registered(newMail('typed'), { nom: 'TRANSPORTS nouveaux' })
    expect(second.structure).toEqual({ id: null, nom: 'TRANSPORTS nouveaux' })
    expect(await structuresNamed('Transports Nouveaux')).toEqual([])
    // The Nord administrator (whose scope holds the carriers' parent) sees both, with the typed names.
    const rows = (await queue(nordAdmin)).rows.filter((u) => u.id === first.id || u.id === second.id)
    expect(rows.map((u) => u.structure)).toEqual([
      { id: null, nom: 'Transports Nouveaux' },
      { id: null, nom: 'TRANSPORTS nouveaux' },
    ])
    expect((await queue(sudAdmin)).ids).not.toContain(first.id)
  })

  it('held by any structure, an internal one included, is answered as any other: 201, nothing echoed or created', async () => {
    for (const nom of ['Agence Lille', 'direction sud', 'GROUPE', 'Transports Inconnus']) {
      const mail = newMail('taken-name')
      const before = await rowCounts()
      const response = await signUp(mail, { nom })
      const text = await response.clone().text()
      expect(await okBody(response, 201)).toEqual({
        mail,
        nom: 'Martin',
        prenom: 'Jeanne',
        structure: { id: null, nom },
      })
      // Nothing says how the organisation spells it, nor that it exists.
      for (const stored of ['Agence Lille', 'Direction Sud', 'Groupe']) {
        if (stored !== nom) expect(text).not.toContain(stored)
      }
      const after = await rowCounts()
      expect(after.structure).toBe(before.structure)
      expect(after.utilisateur).toBe((before.utilisateur ?? 0) + 1)
    }
  })

  it('is created when an administrator authorises it, in the batch, under the carriers’ parent, with its audit entry', async () => {
    const mail = newMail('created')
    const body = await registered(mail, { nom: 'Camions Picards' })
    const accepted = await decided(body.id, true, nordAdmin)
    const [company, ...more] = await structuresNamed('Camions Picards')
    expect(more).toEqual([])
    expect(company).toMatchObject({ nom: 'Camions Picards', type_id: 4, parent_id: 4 })
    expect(company?.path).toBe(`/1/2/4/${company?.id}/`)
    expect(accepted.user.structure).toEqual({ id: company?.id, nom: 'Camions Picards' })
    // The carrier now belongs to the company (and to its scope while without a post).
    expect(await userById(body.id)).toMatchObject({
      registration_structure_id: company?.id,
      registration_structure_nom: null,
      rattachement_id: company?.id,
      actif: 1,
    })
    const creation = await db()
      .selectFrom('log')
      .select(['nom_log', 'type_log', 'utilisateur_id', 'commentaire'])
      .where('nom_log', '=', 'STRUCTURE_CREATION')
      .where('commentaire', 'like', '%Camions Picards%')
      .execute()
    expect(creation).toEqual([expect.objectContaining({ type_log: 'ADMINISTRATION', utilisateur_id: nordAdminId })])
    expect((await logsAbout(body)).map((l) => l.nom_log)).toEqual(['INSCRIPTION_VALIDATION'])
    // Approved: listed for everybody now, and named in the mail.
    expect(await carrierList()).toContainEqual({
      id: company?.id,
      nom: 'Camions Picards',
    })
    expect((await registrationMails(mail)).sent[0]?.text).toContain('Camions Picards')
    // A second link creates nothing more.
    expect((await authorize(body.id, nordAdmin)).status).toBe(200)
    expect(await structuresNamed('Camions Picards')).toHaveLength(1)
  })

  it('authorised once its name is an approved carrier’s, joins that carrier', async () => {
    const creator = await registered(newMail('join'), { nom: 'Routiers Reunis' })
    const joiner = await registered(newMail('join'), { nom: 'ROUTIERS reunis' })
    expect((await authorize(creator.id, nordAdmin)).status).toBe(200)
    const [company] = await structuresNamed('Routiers Reunis')
    const accepted = await decided(joiner.id, true, nordAdmin)
    expect(accepted.user.structure).toEqual({ id: company?.id, nom: 'Routiers Reunis' })
    expect(await structuresNamed('Routiers Reunis')).toHaveLength(1)
    expect(await userById(joiner.id)).toMatchObject({
      registration_structure_id: company?.id,
      rattachement_id: company?.id,
    })
  })

  it('authorised while another kind of structure holds its name: 409 STRUCTURE_NOM_ALREADY_USED, nothing written', async () => {
    const mail = newMail('held')
    const body = await registered(mail, { nom: 'agence LILLE' })
    const before = await rowCounts()
    const refused = await expectError(await authorize(body.id, nordAdmin), 409, 'STRUCTURE_NOM_ALREADY_USED')
    // The administrator is told the name the carrier typed.
    expect(refused.attributs).toEqual(['agence LILLE'])
    expect(await rowCounts()).toEqual(before)
    expect(await liveTokens(body.id)).toEqual([])
    expect(await userById(body.id)).toMatchObject({ actif: 0, registration_structure_id: null })
    // Refusing it is still possible.
    expect((await refuse(body.id, nordAdmin)).status).toBe(200)
  })

  it('typed as an existing carrier’s name (any case) uses that carrier, and refusing it keeps the carrier', async () => {
    const mail = newMail('existing')
    const before = await rowCounts()
    const body = await registered(mail, { nom: 'fret SUD' })
    expect(body.structure).toEqual({ id: 7, nom: 'Fret Sud' })
    expect((await rowCounts()).structure).toBe(before.structure)
    expect(await userById(body.id)).toMatchObject({ registration_structure_id: 7, registration_structure_nom: null })
    expect(await decided(body.id, false, sudAdmin)).toMatchObject({ supprime: true })
    expect(await structuresNamed('Fret Sud')).toHaveLength(1)
  })

  it('refusing a registration that picked an unused carrier never deletes the carrier', async () => {
    // Transports Martin has no post, no function, no user: only registrations.
    const body = await registered(newMail('picked'), { id: 5 })
    expect(await decided(body.id, false, nordAdmin)).toMatchObject({ supprime: true })
    expect(await structuresNamed('Transports Martin')).toHaveLength(1)
  })

  it('refusing a typed registration leaves no structure behind', async () => {
    const before = await rowCounts()
    const body = await registered(newMail('refused-typed'), { nom: 'Logistique Flandres' })
    expect(await decided(body.id, false, nordAdmin)).toMatchObject({
      supprime: true,
      user: { id: body.id, structure: { id: null, nom: 'Logistique Flandres' } },
    })
    expect(await userById(body.id)).toBeUndefined()
    expect(await structuresNamed('Logistique Flandres')).toEqual([])
    expect((await rowCounts()).structure).toBe(before.structure)
  })

  it('two administrators authorising it at once: one company, one audit entry of its creation', async () => {
    for (let round = 0; round < 3; round++) {
      const nom = `Double Fret ${round}`
      const body = await registered(newMail('authorize-twice'), { nom })
      const responses = await Promise.all([authorize(body.id, nordAdmin), authorize(body.id, rootAdmin)])
      expect(responses.map((r) => r.status)).toEqual([200, 200])
      const companies = await structuresNamed(nom)
      expect(companies).toHaveLength(1)
      expect(await userById(body.id)).toMatchObject({ registration_structure_id: companies[0]?.id })
      const creations = await db()
        .selectFrom('log')
        .select('id')
        .where('nom_log', '=', 'STRUCTURE_CREATION')
        .where('commentaire', 'like', `${nom} %`)
        .execute()
      expect(creations).toHaveLength(1)
    }
  })

  it('two registrations of one name authorised at once: one company, both carriers in it', async () => {
    const a = await registered(newMail('both'), { nom: 'Course Express' })
    const b = await registered(newMail('both'), { nom: 'COURSE EXPRESS' })
    const responses = await Promise.all([authorize(a.id, nordAdmin), authorize(b.id, rootAdmin)])
    expect(responses.map((r) => r.status)).toEqual([200, 200])
    const [company, ...more] = await structuresNamed('Course Express')
    expect(more).toEqual([])
    expect((await userById(a.id))?.registration_structure_id).toBe(company?.id)
    expect((await userById(b.id))?.registration_structure_id).toBe(company?.id)
  })
})

describe('POST rest/public/bd/transporteur/inscription refusals', () => {
  it('refuses an id that is not a carrier (an agency, the root, an unknown id) with a field error, writing nothing', async () => {
    for (const id of [4, 1, 6, 9999]) {
      const mail = newMail('not-carrier')
      const before = await rowCounts()
      const body = await expectError(await register(mail, { id }), 400, 'VALIDATION_FAILED')
      expect(body.attributs).toContainEqual(expect.objectContaining({ field: 'structure.id' }))
      expect(await usersWithMail(mail)).toBe(0)
      expect(await rowCounts()).toEqual(before)
    }
  })

  it('refuses a malformed form with field errors before anything, leaving the captcha unused', async () => {
    const mail = newMail('malformed-form')
    const before = await rowCounts()
    const captcha = await solvedCaptcha()
    const cases: [Record<string, unknown>, string][] = [
      [{ user: { mail: 'not-a-mail', nom: 'Martin', prenom: 'Jeanne' }, structure: { id: 5 } }, 'user.mail'],
      [{ user: { mail, nom: 'Ma', prenom: 'Jeanne' }, structure: { id: 5 } }, 'user.nom'],
      [{ user: { mail, nom: 'Martin' }, structure: { id: 5 } }, 'user.prenom'],
      [{ user: { mail, nom: 'Martin', prenom: 'Jeanne' }, structure: { nom: 'AB' } }, 'structure'],
      [{ user: { mail, nom: 'Martin', prenom: 'Jeanne' }, structure: {} }, 'structure'],
    ]
    for (const [body, field] of cases) {
      const error = await expectError(await post(REGISTER, { ...body, captcha }), 400, 'VALIDATION_FAILED')
      expect(JSON.stringify(error.attributs)).toContain(field)
    }
    expect(await rowCounts()).toEqual(before)
    // The captcha was never checked: it still registers.
    expect((await register(mail, { id: 5 }, { captcha })).status).toBe(201)
  })

  it('refuses an address already used, whatever its case, with 409 MAIL_ALREADY_USED', async () => {
    const mail = newMail('twice')
    await registered(mail, { id: 5 })
    const before = await rowCounts()
    await expectError(await register(mail.toUpperCase(), { id: 7 }), 409, 'MAIL_ALREADY_USED')
    await expectError(await register(mail, { nom: 'Un Autre Transporteur' }), 409, 'MAIL_ALREADY_USED')
    expect(await usersWithMail(mail)).toBe(1)
    expect(await rowCounts()).toEqual(before)
    expect(await structuresNamed('Un Autre Transporteur')).toEqual([])
  })

  it('refuses the address of an existing account (not a registration) as well', async () => {
    const user = await createUser()
    const before = await rowCounts()
    await expectError(await register(`${user.login}@EXAMPLE.test`, { id: 5 }), 409, 'MAIL_ALREADY_USED')
    expect(await rowCounts()).toEqual(before)
  })

  it('of two registrations of one new address and one new company at once, one wins, and no company is written', async () => {
    const mail = newMail('race')
    const bodies = await Promise.all([form(mail, { nom: 'Course Rapide' }), form(mail, { nom: 'Course Rapide' })])
    const before = await rowCounts()
    const responses = await Promise.all(bodies.map((body) => post(REGISTER, body)))
    expect(responses.map((r) => r.status).sort()).toEqual([201, 409])
    await expectError(responses.find((r) => r.status === 409) as Response, 409, 'MAIL_ALREADY_USED')
    expect(await usersWithMail(mail)).toBe(1)
    expect(await structuresNamed('Course Rapide')).toEqual([])
    const after = await rowCounts()
    expect({
      utilisateur: after.utilisateur! - before.utilisateur!,
      structure: after.structure! - before.structure!,
    }).toEqual({ utilisateur: 1, structure: 0 })
  })

  it('of two registrations of different addresses typing one new company at once, both win, each with its name', async () => {
    const [a, b] = [newMail('race-company'), newMail('race-company')]
    const bodies = await Promise.all([form(a, { nom: 'Fret Jumeau' }), form(b, { nom: 'FRET JUMEAU' })])
    const responses = await Promise.all(
      bodies.map((json) => api().rest.public.bd.transporteur.inscription.$post({ json })),
    )
    const answers = await Promise.all(responses.map((r) => okBody(r, 201)))
    expect(answers.map((r) => r.structure)).toEqual([
      { id: null, nom: 'Fret Jumeau' },
      { id: null, nom: 'FRET JUMEAU' },
    ])
    expect(await structuresNamed('Fret Jumeau')).toEqual([])
    expect((await userRow(a))?.registration_structure_nom).toBe('Fret Jumeau')
    expect((await userRow(b))?.registration_structure_nom).toBe('FRET JUMEAU')
  })
})

describe('the per-client limit of the registration', () => {
  it('takes 5 registrations a minute from one client address by default, and answers the 6th 429, writing nothing', async () => {
    // The file's configuration raises the limit for the other tests: here it is unset, as in production.
    const from = (ip: string) => ({
      headers: { 'CF-Connecting-IP': ip },
      env: { REGISTRATION_RATE_PER_MINUTE: undefined },
    })
    const submit = async (ip: string) => post(REGISTER, await form(newMail('limit'), { id: 5 }), from(ip))
    await withFrozenClock(async () => {
      for (let i = 0; i < 5; i++) expect((await submit('203.0.113.90')).status).toBe(201)
      const before = await rowCounts()
      const limited = await expectError(await submit('203.0.113.90'), 429, 'TOO_MANY_ATTEMPTS')
      expect(limited.attributs[0]).toBeGreaterThanOrEqual(1)
      expect(limited.attributs[0]).toBeLessThanOrEqual(60)
      expect(await rowCounts()).toEqual(before)
      // Another client is not affected.
      expect((await submit('203.0.113.91')).status).toBe(201)
    })
  })
})

describe('the captcha of the registration', () => {
  it('is required: without it 400 CAPTCHA_VALIDATE_FAILED, nothing written', async () => {
    const mail = newMail('no-captcha')
    const before = await rowCounts()
    const { captcha: _, ...body } = await form(mail, { id: 5 })
    await expectError(await post(REGISTER, body), 400, 'CAPTCHA_VALIDATE_FAILED')
    await expectError(await post(REGISTER, { ...body, captcha: '' }), 400, 'CAPTCHA_VALIDATE_FAILED')
    expect(await usersWithMail(mail)).toBe(0)
    expect(await rowCounts()).toEqual(before)
  })

  it('refuses a malformed payload with CAPTCHA_CHAR_INVALID and a wrong solution with CAPTCHA_VALIDATE_FAILED', async () => {
    const mail = newMail('bad-captcha')
    const before = await rowCounts()
    await expectError(await register(mail, { id: 5 }, { captcha: 'garbage' }), 400, 'CAPTCHA_CHAR_INVALID')
    await expectError(await register(mail, { id: 5 }, { captcha: '{not base64}' }), 400, 'CAPTCHA_CHAR_INVALID')
    const wrong = editCaptcha(await solvedCaptcha(), (data) => {
      data.number = (data.number as number) + 1
    })
    await expectError(await register(mail, { id: 5 }, { captcha: wrong }), 400, 'CAPTCHA_VALIDATE_FAILED')
    expect(await usersWithMail(mail)).toBe(0)
    expect(await rowCounts()).toEqual(before)
  })

  it('is single use: a solved captcha replayed is refused, for another address too', async () => {
    const captcha = await solvedCaptcha()
    const first = newMail('replay')
    expect((await register(first, { id: 5 }, { captcha })).status).toBe(201)
    const second = newMail('replay')
    const before = await rowCounts()
    await expectError(await register(second, { id: 5 }, { captcha }), 400, 'CAPTCHA_VALIDATE_FAILED')
    expect(await usersWithMail(second)).toBe(0)
    expect(await rowCounts()).toEqual(before)
  })
})

describe('GET rest/bd/authorize/get/user/all', () => {
  it('shows each administrator the registrations of their scope only; the root sees all', async () => {
    const nord = await registered(newMail('scope-nord'), { id: 5 })
    const sud = await registered(newMail('scope-sud'), { id: 7 })
    const typed = await registered(newMail('scope-typed'), { nom: 'Nordique Transports' })

    const nordIds = (await queue(nordAdmin)).ids
    expect(nordIds).toEqual(expect.arrayContaining([nord.id, typed.id]))
    expect(nordIds).not.toContain(sud.id)
    const sudQueue = await queue(sudAdmin)
    expect(sudQueue.ids).toContain(sud.id)
    expect(sudQueue.ids).not.toContain(nord.id)
    expect(sudQueue.ids).not.toContain(typed.id)
    expect(sudQueue.rows.find((u) => u.id === sud.id)?.structure).toEqual({ id: 7, nom: 'Fret Sud' })
    expect((await queue(nordAdmin)).rows.find((u) => u.id === typed.id)?.structure).toEqual({
      id: null,
      nom: 'Nordique Transports',
    })
    expect((await queue(rootAdmin)).ids).toEqual(expect.arrayContaining([nord.id, sud.id, typed.id]))
    // Every row is a pending registration: no complete user, no administrator.
    for (const row of (await queue(rootAdmin)).rows) {
      expect(pendingUserSchema.safeParse(row).success).toBe(true)
      expect((await userById(row.id))?.registration_state).toBe('PENDING')
    }
    // The total counts the scope.
    const { rows, total } = await queue(sudAdmin)
    expect(total).toBe(rows.length)
  })

  it('lets an administrator out of scope neither authorise nor refuse (404), and changes nothing', async () => {
    const nord = await registered(newMail('scope-act'), { id: 5 })
    const sud = await registered(newMail('scope-act'), { id: 7 })
    const before = await rowCounts()
    await expectError(await authorize(nord.id, sudAdmin), 404, 'NOT_FOUND')
    await expectError(await refuse(nord.id, sudAdmin), 404, 'NOT_FOUND')
    await expectError(await authorize(sud.id, nordAdmin), 404, 'NOT_FOUND')
    await expectError(await refuse(sud.id, nordAdmin), 404, 'NOT_FOUND')
    await expectError(await authorize(999_999, rootAdmin), 404, 'NOT_FOUND')
    await expectError(await refuse(999_999, rootAdmin), 404, 'NOT_FOUND')
    expect(await rowCounts()).toEqual(before)
    expect(await userById(nord.id)).toMatchObject({
      actif: 0,
      registration_state: 'PENDING',
      token_register_expires_at: null,
    })
    expect(await userById(sud.id)).toMatchObject({
      actif: 0,
      registration_state: 'PENDING',
      token_register_expires_at: null,
    })
  })

  it('refuses an existing user who is not a registration (404), even to the root', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    await expectError(await authorize(user.id, rootAdmin), 404, 'NOT_FOUND')
    await expectError(await refuse(user.id, rootAdmin), 404, 'NOT_FOUND')
    expect(await userById(user.id)).toBeDefined()
  })

  it('is for administrators only: 403 for a user, 401 without a session', async () => {
    const body = await registered(newMail('rights'), { id: 5 })
    await expectError(await call(QUEUE, { token: agent }), 403, 'FORBIDDEN')
    await expectError(await authorize(body.id, agent), 403, 'FORBIDDEN')
    await expectError(await refuse(body.id, agent), 403, 'FORBIDDEN')
    expect((await call(QUEUE)).status).toBe(401)
    expect((await post(AUTHORIZE, { user: { id: body.id }, authorize: true })).status).toBe(401)
    expect((await post(AUTHORIZE, { user: { id: body.id }, authorize: false })).status).toBe(401)
    expect(await userById(body.id)).toMatchObject({ actif: 0, registration_state: 'PENDING' })
    expect(await liveTokens(body.id)).toEqual([])
  })

  it('orders those with a link first by expiry, then the others; sorts by mail; pages with a total', async () => {
    // A scope of its own: Agence Nice (Direction Sud) and its carrier, and an administrator there.
    await db()
      .insertInto('structure')
      .values([
        { id: 100, nom: 'Agence Nice', type_id: 3, parent_id: 3, path: '/1/3/100/' },
        { id: 101, nom: 'Azur Fret', type_id: 4, parent_id: 100, path: '/1/3/100/101/' },
      ])
      .execute()
    const niceAdminUser = await createUser({ admin: true, postes: [currentPost(100, 3)] })
    const niceAdmin = (await sessionFor(niceAdminUser.id)).accessToken
    // Ids: c < a < b. Mail order (any case): a, b, c. Expiry order: b, then a; c has no link.
    const c = await registered(`zeta-${++sequence}@azur.example.test`, { id: 101 })
    const a = await registered(`alpha-${++sequence}@azur.example.test`, { id: 101 })
    const b = await registered(`Mu-${++sequence}@azur.example.test`, { id: 101 })
    expect((await queue(niceAdmin)).ids).toEqual([c.id, a.id, b.id])

    expect((await authorize(a.id, niceAdmin)).status).toBe(200)
    expect((await authorize(b.id, niceAdmin)).status).toBe(200)
    const later = new Date(Date.now() + REGISTRATION_TTL + 3_600_000).toISOString()
    const sooner = new Date(Date.now() + 6 * DAY).toISOString()
    await db().updateTable('utilisateur').set({ token_register_expires_at: later }).where('id', '=', a.id).execute()
    await db().updateTable('utilisateur').set({ token_register_expires_at: sooner }).where('id', '=', b.id).execute()

    const all = await queue(niceAdmin)
    expect(all.ids).toEqual([b.id, a.id, c.id])
    expect(all.rows.map((u) => u.tokenRegister)).toEqual([Date.parse(sooner), Date.parse(later), null])
    expect(all.total).toBe(3)
    expect((await queue(niceAdmin, { tri: 'expiry' })).ids).toEqual([b.id, a.id, c.id])
    // Latest expiry first, those without a link still last.
    expect((await queue(niceAdmin, { tri: '-expiry' })).ids).toEqual([a.id, b.id, c.id])

    expect((await queue(niceAdmin, { tri: 'mail' })).ids).toEqual([a.id, b.id, c.id])
    expect((await queue(niceAdmin, { tri: '-mail' })).ids).toEqual([c.id, b.id, a.id])

    const page1 = await queue(niceAdmin, { page: 1, taille: 2 })
    expect(page1.ids).toEqual([b.id, a.id])
    expect(page1.total).toBe(3)
    const page2 = await queue(niceAdmin, { page: 2, taille: 2 })
    expect(page2.ids).toEqual([c.id])
    expect(page2.total).toBe(3)
    const mailPage = await queue(niceAdmin, { tri: 'mail', page: 2, taille: 2 })
    expect(mailPage.ids).toEqual([c.id])
    expect(mailPage.total).toBe(3)

    // A search narrows the list and its total.
    const found = await queue(niceAdmin, { q: 'alpha' })
    expect(found.ids).toEqual([a.id])
    expect(found.total).toBe(1)
    await expectError(await call(`${QUEUE}?tri=login`, { token: niceAdmin }), 400, 'VALIDATION_FAILED')
  })
})

describe('POST rest/bd/authorize/user', () => {
  it('sends a new link on a second authorisation: the first link dies, the second works', async () => {
    const mail = newMail('resend')
    const body = await registered(mail, { id: 5 })
    const first = await decided(body.id, true, nordAdmin)
    const firstLink = await registrationMails(mail)
    const second = await decided(body.id, true, nordAdmin)
    const secondLink = await registrationMails(mail)
    expect(second.supprime).toBe(false)
    expect(secondLink.sent).toHaveLength(2)
    expect(secondLink.token).not.toBe(firstLink.token)
    expect(second.user.tokenRegister).toBeGreaterThanOrEqual(first.user.tokenRegister ?? Number.POSITIVE_INFINITY)
    const live = await liveTokens(body.id)
    expect(live.map((t) => t.token_hash)).toEqual([await sha256Hex(secondLink.token)])
    expect(Date.parse(live[0]?.expires_at ?? '')).toBe(second.user.tokenRegister)
    expect((await logsAbout(body)).map((l) => l.nom_log)).toEqual(['INSCRIPTION_VALIDATION', 'INSCRIPTION_RENVOI'])

    await expectError(await renew(firstLink.token, PASSWORD), 410, 'TOKEN_USED')
    expect((await renew(secondLink.token, PASSWORD)).status).toBe(204)
    expect((await login(mail, PASSWORD)).status).toBe(200)
  })

  it('a registration approved with a post and completed is told to integrators: a user, their post, what it opens', async () => {
    await db().insertInto('fonction').values({ id: 50, libelle: 'Chauffeur', structure_id: 5 }).execute()
    await db().insertInto('fonction_application').values({ fonction_id: 50, application_id: 1 }).execute()
    const mail = newMail('told')
    const body = await registered(mail, { id: 5 })
    const approved = await post(
      AUTHORIZE,
      {
        user: { id: body.id },
        authorize: true,
        poste: { fonction: { id: 50 }, dateDebut: '01/01/2020', dateFin: '31/12/2099' },
      },
      { token: nordAdmin },
    )
    expect(approved.status).toBe(200)
    const told = async () =>
      (
        await db()
          .selectFrom('evenement')
          .select(['type', 'acteur', 'data'])
          .where('sujet_cle', '=', `utilisateur:${body.id}`)
          .orderBy('id')
          .execute()
      ).map((event) => [event.type, JSON.parse(event.acteur).type])
    // Approved, with a post: still the queue's, no access told yet.
    expect(await told()).toEqual([
      ['inscription.creee', 'systeme'],
      ['inscription.validee', 'utilisateur'],
    ])
    const { token } = await registrationMails(mail)
    expect((await renew(token, PASSWORD)).status).toBe(204)
    expect((await told()).slice(2)).toEqual([
      ['utilisateur.cree', 'utilisateur'],
      ['poste.cree', 'utilisateur'],
      ['acces.accorde', 'utilisateur'],
    ])
    expect(await db().selectFrom('acces_dit').selectAll().where('utilisateur_id', '=', body.id).execute()).toEqual([
      { utilisateur_id: body.id, application_id: 1, chemins: '["/1/2/4/5/"]' },
    ])
  })

  it('refusing deletes the registration, with the answer supprime: true, and the carrier cannot sign in', async () => {
    const mail = newMail('refused')
    const body = await registered(mail, { id: 5 })
    const answer = await decided(body.id, false, nordAdmin)
    expect(answer).toMatchObject({ supprime: true, user: { id: body.id, mail } })
    expect(await userById(body.id)).toBeUndefined()
    expect((await queue(nordAdmin)).ids).not.toContain(body.id)
    expect(await outboxTo(mail)).toEqual([])
    await expectError(await login(mail, PASSWORD), 401, 'BAD_CREDENTIAL')
    // The address is free again: the carrier may register anew.
    expect((await register(mail, { id: 5 })).status).toBe(201)
  })

  it('refusing an accepted registration kills the link it was sent, even for whoever takes the id next', async () => {
    const mail = newMail('accepted-refused')
    const body = await registered(mail, { id: 5 })
    expect((await authorize(body.id, nordAdmin)).status).toBe(200)
    const { token } = await registrationMails(mail)
    expect(await decided(body.id, false, nordAdmin)).toMatchObject({ supprime: true })
    expect(await userById(body.id)).toBeUndefined()
    expect(await liveTokens(body.id)).toEqual([])
    await expectError(await renew(token, PASSWORD), 404, 'TOKEN_NOT_FOUND')

    // The next registration (SQLite may give it the same id), accepted: the old link stays dead.
    const next = newMail('accepted-refused')
    const nextBody = await registered(next, { id: 5 })
    expect((await authorize(nextBody.id, nordAdmin)).status).toBe(200)
    await expectError(await renew(token, PASSWORD), 404, 'TOKEN_NOT_FOUND')
    expect(await userRow(next)).toMatchObject({ password_hash: null, registration_state: 'PENDING' })
  })

  it(`sends at most ${REGISTRATION_LINKS_PER_HOUR} links an hour for one registration, then 429 and nothing written`, async () => {
    const mail = newMail('cap')
    const body = await registered(mail, { id: 5 })
    for (let i = 0; i < REGISTRATION_LINKS_PER_HOUR; i++) expect((await authorize(body.id, rootAdmin)).status).toBe(200)
    const { token } = await registrationMails(mail)
    const before = await rowCounts()
    const shown = (await queue(rootAdmin)).rows.find((u) => u.id === body.id)?.tokenRegister
    const refused = await expectError(await authorize(body.id, rootAdmin), 429, 'TOO_MANY_ATTEMPTS')
    expect(refused.attributs).toEqual([3600])
    expect(await rowCounts()).toEqual(before)
    expect((await queue(rootAdmin)).rows.find((u) => u.id === body.id)?.tokenRegister).toBe(shown)
    // The last link sent still works.
    expect((await liveTokens(body.id)).map((t) => t.token_hash)).toEqual([await sha256Hex(token)])
    expect((await renew(token, PASSWORD)).status).toBe(204)
  })

  it('writes the mail in the language of the registration form', async () => {
    const mail = newMail('english')
    const response = await post(REGISTER, await form(mail, { id: 5 }), { headers: { 'Accept-Language': 'en' } })
    expect(response.status).toBe(201)
    const { id } = (await userRow(mail))!
    expect((await authorize(id, nordAdmin)).status).toBe(200)
    const { sent } = await registrationMails(mail)
    expect(sent[0]?.subject).toBe('Your registration on the portal is accepted')
    expect(sent[0]?.text).toContain('Transports Martin')
  })

  it('answers 400 for a malformed body', async () => {
    const body = await registered(newMail('malformed'), { id: 5 })
    await expectError(await post(AUTHORIZE, { user: { id: body.id } }, { token: nordAdmin }), 400, 'VALIDATION_FAILED')
    await expectError(
      await post(AUTHORIZE, { user: { id: 'x' }, authorize: true }, { token: nordAdmin }),
      400,
      'VALIDATION_FAILED',
    )
    expect(await userById(body.id)).toMatchObject({ actif: 0, registration_state: 'PENDING' })
  })
})

describe('two decisions on one registration at once', () => {
  it('authorise and refuse: one outcome, never a live link without an active account', async () => {
    for (let round = 0; round < 3; round++) {
      const mail = newMail('authorize-refuse')
      const body = await registered(mail, { id: 5 })
      const [accepted, refused] = await Promise.all([authorize(body.id, nordAdmin), refuse(body.id, rootAdmin)])
      expect([200, 404]).toContain(accepted.status)
      expect([200, 404]).toContain(refused.status)
      expect([accepted.status, refused.status]).not.toEqual([404, 404])

      const row = await userById(body.id)
      const live = await liveTokens(body.id)
      expect(live.length).toBeLessThanOrEqual(1)
      if (refused.status === 200) {
        expect(await refused.json()).toMatchObject({ supprime: true })
        expect(row).toBeUndefined()
        expect(live).toEqual([])
      } else {
        await expectError(refused, 404, 'NOT_FOUND')
        expect(row).toMatchObject({ actif: 1, registration_state: 'PENDING' })
        expect(live).toHaveLength(1)
      }
      if (accepted.status === 404) await expectError(accepted, 404, 'NOT_FOUND')
      // The database: no user, or an active one with its live link.
      if (row) expect({ actif: row.actif, live: live.length }).toEqual({ actif: 1, live: 1 })
      else expect(live).toEqual([])
      // Whatever was mailed, a link of a deleted registration does not work.
      const mails = (await outboxTo(mail)).filter((m) => m.kind === 'REGISTRATION')
      if (!row && mails.length > 0) {
        const { token } = await registrationMails(mail)
        await expectError(await renew(token, PASSWORD), 404, 'TOKEN_NOT_FOUND')
      }
    }
  })

  it('refuse and authorise: never a 500; a refused registration gets no link, no mail and no audit of a link', async () => {
    for (let round = 0; round < 3; round++) {
      const mail = newMail('refuse-authorize')
      const body = await registered(mail, { id: 5 })
      const [refused, accepted] = await Promise.all([refuse(body.id, rootAdmin), authorize(body.id, nordAdmin)])
      expect([200, 404]).toContain(refused.status)
      expect([200, 404]).toContain(accepted.status)
      if (refused.status === 200 && (await userById(body.id)) === undefined) {
        expect(await liveTokens(body.id)).toEqual([])
        if (accepted.status === 404) {
          await expectError(accepted, 404, 'NOT_FOUND')
          expect((await outboxTo(mail)).filter((m) => m.kind === 'REGISTRATION')).toEqual([])
          expect((await logsAbout(body)).map((l) => l.nom_log)).toEqual(['INSCRIPTION_REFUS'])
        }
      }
    }
  })

  it('a registration refused, deleted or completed between the read and the write of an authorisation gets no link', async () => {
    const cases = [
      { meanwhile: 'refused', status: 404, code: 'NOT_FOUND' },
      { meanwhile: 'deleted', status: 404, code: 'NOT_FOUND' },
      { meanwhile: 'completed', status: 409, code: 'LISTE_UPDATE_FAILED' },
    ] as const
    for (const { meanwhile, status, code } of cases) {
      const mail = newMail(`authorize-${meanwhile}`)
      const body = await registered(mail, { id: 5 })
      const change = {
        refused: () => env.DB.prepare('delete from utilisateur where id = ?').bind(body.id).run(),
        deleted: () => env.DB.prepare('update utilisateur set supprime = 1 where id = ?').bind(body.id).run(),
        completed: () =>
          env.DB.prepare("update utilisateur set registration_state = 'COMPLETE' where id = ?").bind(body.id).run(),
      }[meanwhile]
      const before = await rowCounts()
      const answer = await post(
        AUTHORIZE,
        { user: { id: body.id }, authorize: true },
        {
          token: nordAdmin,
          env: { DB: changedBeforeWrite(change) },
        },
      )
      await expectError(answer, status, code)
      expect(await liveTokens(body.id), meanwhile).toEqual([])
      expect(await outboxTo(mail), meanwhile).toEqual([])
      const after = await rowCounts()
      expect({ ...after, utilisateur: 0 }, meanwhile).toEqual({ ...before, utilisateur: 0 })
    }
  })

  it('two refusals: one 200, the other 404, one audit entry', async () => {
    const body = await registered(newMail('refuse-refuse'), { id: 5 })
    const responses = await Promise.all([refuse(body.id, nordAdmin), refuse(body.id, rootAdmin)])
    expect(responses.map((r) => r.status).sort()).toEqual([200, 404])
    await expectError(responses.find((r) => r.status === 404) as Response, 404, 'NOT_FOUND')
    expect(await userById(body.id)).toBeUndefined()
    expect((await logsAbout(body)).map((l) => l.nom_log)).toEqual(['INSCRIPTION_REFUS'])
  })

  it('two authorisations: both answer, one link lives, its expiry the one the queue shows', async () => {
    const mail = newMail('authorize-authorize')
    const body = await registered(mail, { id: 5 })
    const responses = await Promise.all([authorize(body.id, nordAdmin), authorize(body.id, rootAdmin)])
    expect(responses.map((r) => r.status)).toEqual([200, 200])
    const live = await liveTokens(body.id)
    expect(live).toHaveLength(1)
    const shown = (await queue(nordAdmin)).rows.find((u) => u.id === body.id)
    expect(shown?.tokenRegister).toBe(Date.parse(live[0]?.expires_at ?? ''))
    const { token } = await registrationMails(mail)
    expect(live[0]?.token_hash).toBe(await sha256Hex(token))
  })
})

describe('the audit of the decisions', () => {
  it('logs INSCRIPTION_VALIDATION for an authorisation and INSCRIPTION_REFUS for a refusal, on the administrator', async () => {
    const accepted = await registered(newMail('audit'), { id: 5 })
    expect((await authorize(accepted.id, nordAdmin)).status).toBe(200)
    expect(await logsAbout(accepted)).toEqual([
      expect.objectContaining({
        nom_log: 'INSCRIPTION_VALIDATION',
        type_log: 'ADMINISTRATION',
        utilisateur_id: nordAdminId,
      }),
    ])

    const refusedMail = newMail('audit')
    const refused = await registered(refusedMail, { nom: 'Audit Transports' })
    expect((await refuse(refused.id, rootAdmin)).status).toBe(200)
    const logs = await logsAbout(refused)
    expect(logs).toEqual([
      expect.objectContaining({
        nom_log: 'INSCRIPTION_REFUS',
        type_log: 'ADMINISTRATION',
        utilisateur_id: rootAdminId,
      }),
    ])
    expect(logs[0]?.commentaire).toContain(refusedMail)
  })

  it('logs nothing for a decision refused (out of scope, not an administrator)', async () => {
    const body = await registered(newMail('audit-none'), { id: 5 })
    await expectError(await authorize(body.id, sudAdmin), 404, 'NOT_FOUND')
    await expectError(await refuse(body.id, agent), 403, 'FORBIDDEN')
    expect(await logsAbout(body)).toEqual([])
  })
})

describe('the mail of an accepted registration', () => {
  /** A provider that records what it is given and accepts it. */
  function testProvider() {
    const sent: OutgoingMail[] = []
    const provider: MailProvider = {
      name: 'test',
      async send(mail) {
        sent.push(mail)
        return { messageId: `m-${mail.id}` }
      },
    }
    return { provider, sent }
  }

  /** An accepted registration whose mail the (unconfigured) provider could not deliver. */
  async function undelivered() {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const mail = newMail('undelivered')
    const body = await registered(mail, { id: 5 })
    const response = await call(AUTHORIZE, {
      method: 'POST',
      body: JSON.stringify({ user: { id: body.id }, authorize: true }),
      token: nordAdmin,
      env: { MAIL_PROVIDER: 'resend', RESEND_API_KEY: '' },
    })
    expect(response.status).toBe(200)
    const [row] = (await outboxTo(mail)).filter((m) => m.kind === 'REGISTRATION')
    expect(row).toMatchObject({ sent_at: null })
    expect(row?.text).toContain('/renewPassword/')
    return row!
  }

  it('is not kept with its link in the outbox once a real provider has it', async () => {
    const row = await undelivered()
    const { provider, sent } = testProvider()
    const now = new Date(Date.now() + 3_600_000)
    expect(await deliverOutbox(backgroundContext(env), { ids: [row.id], provider, now })).toEqual({
      sent: 1,
      failed: 0,
    })
    expect(sent[0]?.text).toContain('/renewPassword/')
    const after = await db().selectFrom('outbox').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow()
    expect(after.sent_at).not.toBeNull()
    expect({ html: after.html, text: after.text }).toEqual({ html: '', text: '' })
  })

  it('is not sent once its 7-day link has expired', async () => {
    const row = await undelivered()
    const { provider, sent } = testProvider()
    const past = new Date(Date.now() + REGISTRATION_TTL + 60_000)
    await deliverOutbox(backgroundContext(env), { provider, now: past })
    expect(sent.filter((m) => m.id === row.id)).toEqual([])
  })
})
