import { type SqlBool, sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  call,
  changedBeforeWrite,
  createOrganisation,
  createUser,
  currentPost,
  db,
  insertServiceAccount,
  isoDate,
  ORIGIN,
  serviceAccountToken,
  sessionFor,
} from '../helpers'
import { scimErrorBody, scimListBody, scimUser, scimUserBody } from './scim-answers'

/**
 * SCIM 2.0 writes (RFC 7644 §3.3, §3.5, §3.6) as a provisioning client drives them: creating, replacing,
 * patching (with Microsoft Entra ID's spellings) and deleting users within the service account's
 * sub-tree, with their ETags, the invitation mail, the history and the sessions they end.
 */

const SCIM_ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error'
const LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse'
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp'
const CORE_USER = 'urn:ietf:params:scim:schemas:core:2.0:User'
const PORTAIL = 'urn:ietf:params:scim:schemas:extension:portail:2.0:User'
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'
const SCIM_JSON = 'application/scim+json'

type Account = { id: number; token: string }
type Poste = {
  structure: { value: string; display?: string }
  fonction: { value: string; display?: string }
  dateDebut: string
  dateFin: string
}
type Operation = { op: string; path?: string; value?: unknown }

let nord: Account
const _sequence = 0

/** A service account of `structure` with `scopes` (admin unless said), and its token. */
async function account(structure: number, scopes: string, admin: 0 | 1 = 1): Promise<Account> {
  const created = await insertServiceAccount({ structure, scopes, admin })
  return { id: created.id, token: await serviceAccountToken(created) }
}

const scim = (path: string, token: string | undefined, init: RequestInit = {}) =>
  call(`/scim/v2${path}`, { ...init, ...(token ? { token } : {}) })

/** A write as a SCIM client sends it: its body in SCIM's content type. */
const send = (
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  token: string | undefined,
  body?: unknown,
  headers: Record<string, string> = {},
) =>
  scim(path, token, {
    method,
    headers: body === undefined ? headers : { 'Content-Type': SCIM_JSON, ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })

const patchOf = (...Operations: Operation[]) => ({ schemas: [PATCH_OP], Operations })

/** A SCIM error of `status`; `scimType` checked when given (one of several when a list). */
async function expectScimError(response: Response, status: number, scimType?: string | string[]) {
  expect(response.status).toBe(status)
  expect(response.headers.get('Content-Type')).toBe(SCIM_JSON)
  const body = await scimErrorBody(response)
  expect(body).toMatchObject({ schemas: [SCIM_ERROR], status: String(status) })
  expect(typeof body.detail).toBe('string')
  if (Array.isArray(scimType)) expect(scimType).toContain(body.scimType)
  else if (scimType) expect(body.scimType).toBe(scimType)
  return body
}

/** A user's representation in a 200 or 201 answer. */
async function representation(response: Response, status = 200) {
  expect(response.status, await response.clone().text()).toBe(status)
  expect(response.headers.get('Content-Type')).toBe(SCIM_JSON)
  return scimUserBody(response)
}

let mails = 0
/** A fresh address (at most 50 characters, as every mail of the portal). */
const address = () => `scim${++mails}.${crypto.randomUUID().slice(0, 8)}@example.test`

const poste = (structure: number, fonction: number, from = isoDate(-1), to = isoDate(60)): Poste => ({
  structure: { value: String(structure) },
  fonction: { value: String(fonction) },
  dateDebut: from,
  dateFin: to,
})

/** A POST /Users body: an Agence Lille dock agent, active, whose userName is their mail. */
function newUser(mail = address(), overrides: Record<string, unknown> = {}) {
  return {
    schemas: [CORE_USER, PORTAIL],
    userName: mail,
    externalId: `hr-${mail}`,
    name: { givenName: 'Jeanne', familyName: 'Martin' },
    emails: [{ value: mail, type: 'work', primary: true }],
    active: true,
    [PORTAIL]: { postes: [poste(4, 2)] },
    ...overrides,
  }
}

/** A user created through SCIM by `by`. */
async function created(body: Record<string, unknown> = newUser(), by: Account = nord) {
  return representation(await send('POST', '/Users', by.token, body), 201)
}

const getUser = (id: string | number, token = nord.token) => scim(`/Users/${id}`, token)

const row = (id: string | number) =>
  db()
    .selectFrom('utilisateur')
    .select(['login', 'mail', 'nom', 'prenom', 'actif', 'supprime', 'external_id', 'version'])
    .where('id', '=', Number(id))
    .executeTakeFirstOrThrow()

const postesOf = (id: string | number) =>
  db()
    .selectFrom('poste')
    .select(['structure_id', 'fonction_id', 'date_debut', 'date_fin'])
    .where('utilisateur_id', '=', Number(id))
    .orderBy('id')
    .execute()

/** The users holding an address, whatever its case. */
const usersWithMail = (mail: string) =>
  db().selectFrom('utilisateur').select('id').where(sql<SqlBool>`mail = ${mail} collate nocase`).execute()

const historyOf = (by: Account) =>
  db().selectFrom('log').select(['id', 'nom_log', 'utilisateur_id']).where('compte_service_id', '=', by.id).execute()

/** A write of `by` that must leave at least one entry in its history. */
async function logged(by: Account, write: () => Promise<Response>) {
  const before = (await historyOf(by)).length
  const response = await write()
  const answer = `${response.status} ${await response.clone().text()}`
  expect((await historyOf(by)).length, `history entries written (answer ${answer})`).toBeGreaterThan(before)
  return response
}

async function listed(userName: string, token = nord.token) {
  const response = await scim(`/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`, token)
  expect(response.status).toBe(200)
  expect(response.headers.get('Content-Type')).toBe(SCIM_JSON)
  return scimListBody(response, scimUser)
}

/** The user with their address as their login, as the screens and the import make them; `login` is then the address. */
async function loginIsMail<T extends { id: number; login: string }>(user: T): Promise<T> {
  const { mail } = await row(user.id)
  await db().updateTable('utilisateur').set({ login: mail }).where('id', '=', user.id).execute()
  return { ...user, login: mail }
}

const versionNumber = (version: string) => Number(/^W\/"(\d+)"$/.exec(version)?.[1] ?? Number.NaN)

/** Functions of Agence Lille besides its dock agents: ids 101 to 121. */
const LILLE_FONCTIONS = Array.from({ length: 21 }, (_, n) => 101 + n)

beforeAll(async () => {
  await createOrganisation()
  await db()
    .insertInto('fonction')
    .values(LILLE_FONCTIONS.map((id) => ({ id, libelle: `Fonction ${id}`, structure_id: 4 })))
    .execute()
  nord = await account(2, 'api scim')
})

describe('who may write', () => {
  it('answers 401 without a token and 403 to an account without the scope scim, writing nothing', async () => {
    const target = await createUser({ postes: [currentPost(4, 2)] })
    const before = await row(target.id)
    const apiOnly = await account(2, 'api')
    const mail = address()
    for (const token of [undefined, apiOnly.token]) {
      const status = token ? 403 : 401
      await expectScimError(await send('POST', '/Users', token, newUser(mail)), status)
      await expectScimError(await send('PUT', `/Users/${target.id}`, token, newUser(mail)), status)
      const deactivate = patchOf({ op: 'Replace', path: 'active', value: 'False' })
      await expectScimError(await send('PATCH', `/Users/${target.id}`, token, deactivate), status)
      await expectScimError(await send('DELETE', `/Users/${target.id}`, token), status)
    }
    expect(await row(target.id)).toEqual(before)
    expect(await usersWithMail(mail)).toEqual([])
    expect(await historyOf(apiOnly)).toEqual([])
  })

  it('answers 403 to every write of a non-administrator account (admin 0)', async () => {
    const readOnly = await account(2, 'scim', 0)
    const target = await createUser({ postes: [currentPost(4, 2)] })
    const before = await row(target.id)
    const mail = address()
    await expectScimError(await send('POST', '/Users', readOnly.token, newUser(mail)), 403)
    await expectScimError(await send('PUT', `/Users/${target.id}`, readOnly.token, newUser(mail)), 403)
    const rename = patchOf({ op: 'Replace', path: 'name.familyName', value: 'Durand' })
    await expectScimError(await send('PATCH', `/Users/${target.id}`, readOnly.token, rename), 403)
    await expectScimError(await send('DELETE', `/Users/${target.id}`, readOnly.token), 403)
    expect(await row(target.id)).toEqual(before)
    expect(await usersWithMail(mail)).toEqual([])
    expect(await historyOf(readOnly)).toEqual([])
  })
})

describe('POST Users', () => {
  it('creates an active user: 201, its representation, Location and ETag, the invitation and the history', async () => {
    const mail = address()
    const response = await logged(nord, () => send('POST', '/Users', nord.token, newUser(mail)))
    const user = await representation(response.clone(), 201)
    expect(user).toMatchObject({
      schemas: expect.arrayContaining([CORE_USER, PORTAIL]),
      id: expect.stringMatching(/^\d+$/),
      externalId: `hr-${mail}`,
      userName: mail,
      name: { givenName: 'Jeanne', familyName: 'Martin' },
      emails: [{ value: mail, type: 'work', primary: true }],
      active: true,
      [PORTAIL]: {
        postes: [
          {
            structure: { value: '4', display: 'Agence Lille' },
            fonction: { value: '2', display: 'Agent de quai' },
            dateDebut: isoDate(-1),
            dateFin: isoDate(60),
          },
        ],
      },
      meta: { resourceType: 'User', version: expect.stringMatching(/^W\/"\d+"$/) },
    })
    expect(user.meta.location).toBe(`${ORIGIN}/portail-backend/scim/v2/Users/${user.id}`)
    expect(response.headers.get('Location')).toBe(user.meta.location)
    expect(response.headers.get('ETag')).toBe(user.meta.version)
    // The same representation as a read gives.
    expect(await representation(await getUser(user.id))).toEqual(user)
    expect(await row(user.id)).toMatchObject({ login: mail, mail, nom: 'Martin', prenom: 'Jeanne', actif: 1 })
    expect(await postesOf(user.id)).toEqual([
      { structure_id: 4, fonction_id: 2, date_debut: isoDate(-1), date_fin: isoDate(60) },
    ])
    const mails = await db()
      .selectFrom('outbox')
      .select(['to_address', 'kind'])
      .where('utilisateur_id', '=', Number(user.id))
      .execute()
    expect(mails).toEqual([{ to_address: mail, kind: 'INVITATION' }])
    const history = await db()
      .selectFrom('log')
      .select(['nom_log', 'compte_service_id'])
      .where('compte_service_id', '=', nord.id)
      .where('nom_log', '=', 'UTILISATEUR_CREATION')
      .where('commentaire', 'like', `%${mail}%`)
      .execute()
    expect(history).toEqual([{ nom_log: 'UTILISATEUR_CREATION', compte_service_id: nord.id }])
  })

  it('creates an inactive user without inviting them', async () => {
    const mail = address()
    const user = await created(newUser(mail, { active: false }))
    expect(user.active).toBe(false)
    expect(await row(user.id)).toMatchObject({ actif: 0, mail })
    expect(await db().selectFrom('outbox').select('id').where('to_address', '=', mail).execute()).toEqual([])
  })

  it('refuses as invalidValue an address that is none or is missing, and names outside 3–50 characters', async () => {
    const mail = address()
    const refused: Record<string, unknown>[] = [
      newUser(mail, { emails: [{ value: 'lea.martin', type: 'work', primary: true }] }),
      // A userName that is not an address names no address.
      newUser('lea.martin', { emails: undefined }),
      newUser(mail, { userName: ` ${'l'.repeat(101)} ` }),
      newUser(mail, { name: { givenName: 'Jo', familyName: 'Martin' } }),
      newUser(mail, { name: { givenName: 'Jeanne', familyName: 'Li' } }),
      newUser(mail, { name: { givenName: 'J'.repeat(51), familyName: 'Martin' } }),
      newUser(mail, { name: { givenName: 'Jeanne', familyName: 'M'.repeat(51) } }),
    ]
    for (const body of refused) {
      await expectScimError(await send('POST', '/Users', nord.token, body), 400, 'invalidValue')
    }
    expect(await usersWithMail(mail)).toEqual([])
    // The bounds themselves are names.
    const bounds = await created(newUser(mail, { name: { givenName: 'Léa', familyName: 'M'.repeat(50) } }))
    expect(bounds.name).toMatchObject({ givenName: 'Léa', familyName: 'M'.repeat(50) })
  })

  it('answers 409 uniqueness for an address another user holds, in any case, deleted users included', async () => {
    const holder = await createUser({ postes: [currentPost(4, 2)] })
    const deleted = await createUser({ postes: [currentPost(4, 2)], supprime: true })
    const elsewhere = await createUser({ postes: [currentPost(3, 3)] })
    const scimMade = await created()
    for (const taken of [
      `${holder.login}@example.test`.toUpperCase(),
      `${deleted.login}@example.test`,
      `${elsewhere.login}@Example.Test`,
      scimMade.userName.toUpperCase(),
    ]) {
      await expectScimError(await send('POST', '/Users', nord.token, newUser(taken)), 409, 'uniqueness')
    }
    for (const user of [holder, deleted, elsewhere]) {
      expect(await usersWithMail(`${user.login}@example.test`)).toEqual([{ id: user.id }])
    }
    expect(await usersWithMail(scimMade.userName)).toEqual([{ id: Number(scimMade.id) }])
  })

  it("places the user in the account's sub-tree only, in functions of their structure, at most 20 posts", async () => {
    const mail = address()
    for (const postes of [[], [poste(3, 3)], [poste(4, 2), poste(3, 3)], [poste(4, 3)], [poste(2, 2)]]) {
      const response = await send('POST', '/Users', nord.token, newUser(mail, { [PORTAIL]: { postes } }))
      await expectScimError(response, 400, 'invalidValue')
    }
    // 21 posts (the contract names no scimType for the limit).
    const tooMany = LILLE_FONCTIONS.map((fonction) => poste(4, fonction))
    await expectScimError(
      await send('POST', '/Users', nord.token, newUser(mail, { [PORTAIL]: { postes: tooMany } })),
      400,
    )
    const withoutExtension = newUser(mail, { schemas: [CORE_USER] }) as Record<string, unknown>
    delete withoutExtension[PORTAIL]
    await expectScimError(await send('POST', '/Users', nord.token, withoutExtension), 400, 'invalidValue')
    expect(await usersWithMail(mail)).toEqual([])
    const twenty = tooMany.slice(1)
    const user = await created(newUser(mail, { [PORTAIL]: { postes: twenty } }))
    expect(user[PORTAIL].postes).toHaveLength(20)
    expect(await postesOf(user.id)).toHaveLength(20)
  })
})

describe('PUT Users/{id}', () => {
  it('replaces the writable attributes and answers the representation with its ETag', async () => {
    const user = await created()
    const mail = address()
    const replacement = newUser(mail, {
      externalId: 'hr-remplace',
      name: { givenName: 'Louise', familyName: 'Bernard' },
      active: false,
      [PORTAIL]: { postes: [poste(4, 2, isoDate(5), isoDate(90))] },
    })
    const response = await logged(nord, () => send('PUT', `/Users/${user.id}`, nord.token, replacement))
    const replaced = await representation(response.clone())
    expect(replaced).toMatchObject({
      id: user.id,
      externalId: 'hr-remplace',
      userName: mail,
      name: { givenName: 'Louise', familyName: 'Bernard' },
      emails: [{ value: mail, type: 'work', primary: true }],
      active: false,
      [PORTAIL]: { postes: [{ structure: { value: '4' }, fonction: { value: '2' }, dateDebut: isoDate(5) }] },
    })
    expect(replaced[PORTAIL].postes).toHaveLength(1)
    expect(versionNumber(replaced.meta.version)).toBeGreaterThan(versionNumber(user.meta.version))
    expect(response.headers.get('ETag')).toBe(replaced.meta.version)
    expect(await representation(await getUser(user.id))).toEqual(replaced)
    expect(await row(user.id)).toMatchObject({
      login: mail,
      mail,
      nom: 'Bernard',
      prenom: 'Louise',
      actif: 0,
      external_id: 'hr-remplace',
    })
    expect(await postesOf(user.id)).toEqual([
      { structure_id: 4, fonction_id: 2, date_debut: isoDate(5), date_fin: isoDate(90) },
    ])
  })

  it('keeps the posts when the body leaves the extension out', async () => {
    const user = await created()
    const before = await postesOf(user.id)
    const body = newUser(user.userName, { schemas: [CORE_USER], name: { givenName: 'Jeanne', familyName: 'Petit' } })
    delete (body as Record<string, unknown>)[PORTAIL]
    const replaced = await representation(await send('PUT', `/Users/${user.id}`, nord.token, body))
    expect(replaced.name.familyName).toBe('Petit')
    expect(replaced[PORTAIL].postes).toEqual(user[PORTAIL].postes)
    expect(await postesOf(user.id)).toEqual(before)
  })

  it("answers 409 uniqueness for another user's address or login", async () => {
    const user = await created()
    const other = await created()
    const before = await row(user.id)
    await expectScimError(
      await send('PUT', `/Users/${user.id}`, nord.token, newUser(other.userName.toUpperCase())),
      409,
      'uniqueness',
    )
    const ownLogin = await createUser({ postes: [currentPost(3, 3)] })
    const logins = newUser(user.userName, { userName: ownLogin.login.toUpperCase() })
    await expectScimError(await send('PUT', `/Users/${user.id}`, nord.token, logins), 409, 'uniqueness')
    expect(await row(user.id)).toEqual(before)
  })
})

describe('PATCH Users/{id}', () => {
  it('deactivates as Entra ID does ("Replace", "False"): the sessions end, the history says so', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    await sessionFor(user.id)
    await sessionFor(user.id)
    const deactivations = async () =>
      (await historyOf(nord)).filter((entry) => entry.nom_log === 'UTILISATEUR_DESACTIVATION').length
    const before = await deactivations()
    const response = await logged(nord, () =>
      send('PATCH', `/Users/${user.id}`, nord.token, patchOf({ op: 'Replace', path: 'active', value: 'False' })),
    )
    expect((await representation(response)).active).toBe(false)
    expect(await row(user.id)).toMatchObject({ actif: 0 })
    expect(await deactivations()).toBe(before + 1)
    const sessions = await db()
      .selectFrom('refresh_token')
      .select('revoked_at')
      .where('utilisateur_id', '=', user.id)
      .execute()
    expect(sessions).toHaveLength(2)
    for (const session of sessions) expect(session.revoked_at).not.toBeNull()
    const reactivated = await representation(
      await send('PATCH', `/Users/${user.id}`, nord.token, patchOf({ op: 'Replace', path: 'active', value: 'True' })),
    )
    expect(reactivated.active).toBe(true)
    expect(await row(user.id)).toMatchObject({ actif: 1 })
  })

  it('reads each path, whatever the case of op', async () => {
    const user = await created()
    const mail = address()
    const response = await logged(nord, () =>
      send(
        'PATCH',
        `/Users/${user.id}`,
        nord.token,
        patchOf(
          { op: 'Add', path: 'externalId', value: 'hr-ajoute' },
          { op: 'Replace', path: 'name.givenName', value: 'Camille' },
          { op: 'replace', path: 'name.familyName', value: 'Lefebvre' },
          { op: 'REPLACE', path: 'userName', value: mail },
          { op: 'Replace', path: 'emails[type eq "work"].value', value: mail },
          { op: 'Replace', path: 'active', value: false },
        ),
      ),
    )
    const patched = await representation(response)
    expect(patched).toMatchObject({
      id: user.id,
      externalId: 'hr-ajoute',
      userName: mail,
      name: { givenName: 'Camille', familyName: 'Lefebvre' },
      emails: [{ value: mail, type: 'work', primary: true }],
      active: false,
    })
    expect(await representation(await getUser(user.id))).toEqual(patched)
    expect(await row(user.id)).toMatchObject({
      login: mail,
      mail,
      nom: 'Lefebvre',
      prenom: 'Camille',
      actif: 0,
      external_id: 'hr-ajoute',
    })
    const removed = await representation(
      await send('PATCH', `/Users/${user.id}`, nord.token, patchOf({ op: 'Remove', path: 'externalId' })),
    )
    expect(removed.externalId).toBeUndefined()
    expect((await row(user.id)).external_id).toBeNull()
  })

  it('puts a deactivation made among other changes in the history as UTILISATEUR_DESACTIVATION', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    await sessionFor(user.id)
    const deactivations = async () =>
      (await historyOf(nord)).filter((entry) => entry.nom_log === 'UTILISATEUR_DESACTIVATION').length
    const before = await deactivations()
    const patched = await representation(
      await send(
        'PATCH',
        `/Users/${user.id}`,
        nord.token,
        patchOf({ op: 'Replace', value: { active: false, 'name.familyName': 'Durand' } }),
      ),
    )
    expect(patched).toMatchObject({ active: false, name: { familyName: 'Durand' } })
    const sessions = await db()
      .selectFrom('refresh_token')
      .select('revoked_at')
      .where('utilisateur_id', '=', user.id)
      .execute()
    expect(sessions.map((session) => session.revoked_at === null)).toEqual([false])
    expect(await deactivations()).toBe(before + 1)
  })

  it('moves the address of a user who has chosen a password once they confirm it, asking them once', async () => {
    // A user whose login is their address, as the screens make them: the login follows the address.
    const user = await loginIsMail(await createUser({ postes: [currentPost(4, 2)] }))
    const former = (await row(user.id)).mail
    const mail = address()
    const move = patchOf(
      { op: 'Replace', path: 'userName', value: mail },
      { op: 'Replace', path: 'emails[type eq "work"].value', value: mail },
    )
    const patched = await representation(await send('PATCH', `/Users/${user.id}`, nord.token, move))
    // Until the new mailbox confirms, the user keeps the address they sign in with (as when an administrator asks).
    expect(patched.userName).toBe(user.login)
    expect((await row(user.id)).mail).toBe(former)
    const mails = () =>
      db()
        .selectFrom('outbox')
        .select(['to_address', 'kind'])
        .where('to_address', 'in', [mail, former])
        .orderBy('id')
        .execute()
    expect(await mails()).toEqual([
      { to_address: mail, kind: 'MAIL_CHANGE_CONFIRM' },
      { to_address: former, kind: 'MAIL_CHANGE_REQUESTED' },
    ])
    // The provisioning client sends its value again at each cycle: the user is not asked again.
    expect((await send('PATCH', `/Users/${user.id}`, nord.token, move)).status).toBe(200)
    expect(await mails()).toHaveLength(2)
    expect((await row(user.id)).mail).toBe(former)
    // Nor is another user's address taken for theirs, spaces around it or not.
    const holder = await createUser({ postes: [currentPost(3, 3)] })
    const taken = (
      await db().selectFrom('utilisateur').select('mail').where('id', '=', holder.id).executeTakeFirstOrThrow()
    ).mail
    await expectScimError(
      await send(
        'PATCH',
        `/Users/${user.id}`,
        nord.token,
        patchOf({ op: 'Replace', path: 'userName', value: ` ${taken} ` }),
      ),
      409,
      'uniqueness',
    )
    // A PUT takes the same way.
    const other = await loginIsMail(await createUser({ postes: [currentPost(4, 2)] }))
    const otherMail = address()
    const replaced = await representation(await send('PUT', `/Users/${other.id}`, nord.token, newUser(otherMail)))
    expect(replaced.userName).toBe(other.login)
    expect(await db().selectFrom('outbox').select('kind').where('to_address', '=', otherMail).execute()).toEqual([
      { kind: 'MAIL_CHANGE_CONFIRM' },
    ])
  })

  it('replaces several attributes with a path-less value, dotted or nested', async () => {
    const user = await created()
    const dotted = await representation(
      await send(
        'PATCH',
        `/Users/${user.id}`,
        nord.token,
        patchOf({ op: 'Replace', value: { active: false, 'name.familyName': 'Durand' } }),
      ),
    )
    expect(dotted).toMatchObject({ active: false, name: { givenName: 'Jeanne', familyName: 'Durand' } })
    const nested = await representation(
      await send(
        'PATCH',
        `/Users/${user.id}`,
        nord.token,
        patchOf({ op: 'replace', value: { name: { givenName: 'Mathilde' }, externalId: 'hr-imbrique' } }),
      ),
    )
    expect(nested).toMatchObject({ externalId: 'hr-imbrique', name: { givenName: 'Mathilde', familyName: 'Durand' } })
    expect(await row(user.id)).toMatchObject({
      nom: 'Durand',
      prenom: 'Mathilde',
      actif: 0,
      external_id: 'hr-imbrique',
    })
  })

  it("replaces the posts through the extension's path", async () => {
    const user = await created()
    const postes = [poste(4, 2, isoDate(3), isoDate(33)), poste(4, 101, isoDate(40), isoDate(70))]
    const patched = await representation(
      await logged(nord, () =>
        send(
          'PATCH',
          `/Users/${user.id}`,
          nord.token,
          patchOf({ op: 'Replace', path: `${PORTAIL}:postes`, value: postes }),
        ),
      ),
    )
    const byFonction = (list: Poste[]) => [...list].sort((a, b) => Number(a.fonction.value) - Number(b.fonction.value))
    expect(byFonction(patched[PORTAIL].postes)).toEqual([
      {
        structure: { value: '4', display: 'Agence Lille' },
        fonction: { value: '2', display: 'Agent de quai' },
        dateDebut: isoDate(3),
        dateFin: isoDate(33),
      },
      {
        structure: { value: '4', display: 'Agence Lille' },
        fonction: { value: '101', display: 'Fonction 101' },
        dateDebut: isoDate(40),
        dateFin: isoDate(70),
      },
    ])
    expect(await postesOf(user.id)).toEqual(
      expect.arrayContaining([
        { structure_id: 4, fonction_id: 2, date_debut: isoDate(3), date_fin: isoDate(33) },
        { structure_id: 4, fonction_id: 101, date_debut: isoDate(40), date_fin: isoDate(70) },
      ]),
    )
    expect(await postesOf(user.id)).toHaveLength(2)
  })

  it('takes back the posts it reads: one function held twice, in two periods', async () => {
    const user = await createUser({
      postes: [currentPost(4, 2), { structureId: 4, fonctionId: 2, from: isoDate(100), to: isoDate(130) }],
    })
    const read = await representation(await getUser(user.id))
    expect(read[PORTAIL].postes).toHaveLength(2)
    const before = await postesOf(user.id)
    const response = await send(
      'PATCH',
      `/Users/${user.id}`,
      nord.token,
      patchOf({ op: 'Replace', path: `${PORTAIL}:postes`, value: read[PORTAIL].postes }),
    )
    expect((await representation(response))[PORTAIL].postes).toEqual(read[PORTAIL].postes)
    expect(await postesOf(user.id)).toEqual(before)
  })

  it('adds a post with add, the current one kept', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const before = await postesOf(user.id)
    const later = poste(4, 2, isoDate(100), isoDate(130))
    const response = await send(
      'PATCH',
      `/Users/${user.id}`,
      nord.token,
      patchOf({ op: 'add', path: `${PORTAIL}:postes`, value: [later] }),
    )
    expect((await representation(response))[PORTAIL].postes).toHaveLength(2)
    expect(await postesOf(user.id)).toEqual(expect.arrayContaining(before))
    expect(await postesOf(user.id)).toHaveLength(2)
  })

  it('deactivates a user whose stored names the rules of today would refuse', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    await db().updateTable('utilisateur').set({ nom: 'Li' }).where('id', '=', user.id).execute()
    const response = await send(
      'PATCH',
      `/Users/${user.id}`,
      nord.token,
      patchOf({ op: 'Replace', path: 'active', value: 'False' }),
    )
    expect((await representation(response)).active).toBe(false)
  })

  it('bumps meta.version when the family name changes, as the ETag of a read then says', async () => {
    const user = await created()
    const patched = await representation(
      await send(
        'PATCH',
        `/Users/${user.id}`,
        nord.token,
        patchOf({ op: 'Replace', path: 'name.familyName', value: 'Moreau' }),
      ),
    )
    expect(versionNumber(patched.meta.version)).toBeGreaterThan(versionNumber(user.meta.version))
    expect((await getUser(user.id)).headers.get('ETag')).toBe(patched.meta.version)
  })

  it('refuses removing a required attribute and a malformed path, writing nothing', async () => {
    const user = await created()
    const before = await row(user.id)
    for (const path of ['name.familyName', 'userName']) {
      const response = await send('PATCH', `/Users/${user.id}`, nord.token, patchOf({ op: 'Remove', path }))
      await expectScimError(response, 400, ['invalidValue', 'mutability'])
    }
    const malformed = patchOf(
      { op: 'Replace', path: 'name.familyName', value: 'Girard' },
      { op: 'Replace', path: 'emails[type eq', value: address() },
    )
    await expectScimError(await send('PATCH', `/Users/${user.id}`, nord.token, malformed), 400, 'invalidPath')
    expect(await row(user.id)).toEqual(before)
  })

  it('ignores the attributes it does not keep (title, the enterprise extension)', async () => {
    const user = await created()
    const patched = await representation(
      await send(
        'PATCH',
        `/Users/${user.id}`,
        nord.token,
        patchOf(
          { op: 'Add', path: 'title', value: 'Chef de quai' },
          { op: 'Replace', path: `${ENTERPRISE}:department`, value: 'Logistique' },
          { op: 'Replace', value: { title: 'Chef de quai', 'name.givenName': 'Manon' } },
        ),
      ),
    )
    expect(patched.name.givenName).toBe('Manon')
    expect(patched).not.toHaveProperty('title')
    expect(await row(user.id)).toMatchObject({ prenom: 'Manon', nom: 'Martin' })
  })
})

describe('If-Match', () => {
  /** A user changed once since its creation: the version it was created with is stale. */
  async function changedOnce() {
    const user = await created()
    const changed = await representation(
      await send(
        'PATCH',
        `/Users/${user.id}`,
        nord.token,
        patchOf({ op: 'Replace', path: 'name.familyName', value: 'Roux' }),
      ),
    )
    expect(changed.meta.version).not.toBe(user.meta.version)
    return { id: user.id, stale: user.meta.version, current: changed.meta.version, userName: user.userName }
  }

  it('answers 412 to a PUT, a PATCH or a DELETE with a stale version, writing nothing', async () => {
    const { id, stale, userName } = await changedOnce()
    const before = await row(id)
    const postes = await postesOf(id)
    const history = (await historyOf(nord)).length
    const ifMatch = { 'If-Match': stale }
    const put = newUser(userName, { name: { givenName: 'Jeanne', familyName: 'Blanc' }, active: false })
    await expectScimError(await send('PUT', `/Users/${id}`, nord.token, put, ifMatch), 412)
    const deactivate = patchOf({ op: 'Replace', path: 'active', value: 'False' })
    await expectScimError(await send('PATCH', `/Users/${id}`, nord.token, deactivate, ifMatch), 412)
    await expectScimError(await send('DELETE', `/Users/${id}`, nord.token, undefined, ifMatch), 412)
    expect(await row(id)).toEqual(before)
    expect(await postesOf(id)).toEqual(postes)
    expect((await historyOf(nord)).length).toBe(history)
  })

  it('writes with the current version', async () => {
    const { id, current, userName } = await changedOnce()
    const put = newUser(userName, { name: { givenName: 'Jeanne', familyName: 'Blanc' } })
    const replaced = await representation(await send('PUT', `/Users/${id}`, nord.token, put, { 'If-Match': current }))
    expect(replaced.name.familyName).toBe('Blanc')
    const deactivate = patchOf({ op: 'Replace', path: 'active', value: 'False' })
    const patched = await representation(
      await send('PATCH', `/Users/${id}`, nord.token, deactivate, { 'If-Match': replaced.meta.version }),
    )
    expect(patched.active).toBe(false)
    const deleted = await send('DELETE', `/Users/${id}`, nord.token, undefined, { 'If-Match': patched.meta.version })
    expect(deleted.status).toBe(204)
    expect((await row(id)).supprime).toBe(1)
  })
})

describe('DELETE Users/{id}', () => {
  it('deletes softly: 204 without a body, then 404 and out of the lists; a second DELETE is 404', async () => {
    const user = await created()
    const response = await logged(nord, () => send('DELETE', `/Users/${user.id}`, nord.token))
    expect(response.status).toBe(204)
    expect(await response.text()).toBe('')
    await expectScimError(await getUser(user.id), 404)
    expect((await listed(user.userName)).totalResults).toBe(0)
    expect(await row(user.id)).toMatchObject({ supprime: 1, mail: user.userName })
    await expectScimError(await send('DELETE', `/Users/${user.id}`, nord.token), 404)
  })
})

describe("the account's sub-tree", () => {
  it('answers 404 to a write on a user outside it, writing nothing', async () => {
    const sud = await createUser({ postes: [currentPost(3, 3)] })
    const before = await row(sud.id)
    const history = (await historyOf(nord)).length
    const mail = `${sud.login}@example.test`
    await expectScimError(await send('PUT', `/Users/${sud.id}`, nord.token, newUser(mail)), 404)
    const deactivate = patchOf({ op: 'Replace', path: 'active', value: 'False' })
    await expectScimError(await send('PATCH', `/Users/${sud.id}`, nord.token, deactivate), 404)
    await expectScimError(await send('DELETE', `/Users/${sud.id}`, nord.token), 404)
    expect(await row(sud.id)).toEqual(before)
    expect((await historyOf(nord)).length).toBe(history)
  })

  const METHODS = ['PATCH', 'PUT', 'DELETE'] as const

  /** One of the three ways a client turns a user off: PATCH active "False", PUT active false (the rest kept), DELETE. */
  async function turnOff(
    user: { id: number; login: string },
    method: (typeof METHODS)[number],
    env: NonNullable<Parameters<typeof call>[1]>['env'] = {},
  ) {
    const { mail } = await row(user.id)
    const put = newUser(mail, { userName: user.login, active: false }) as Record<string, unknown>
    delete put[PORTAIL]
    const body = { PATCH: patchOf({ op: 'Replace', path: 'active', value: 'False' }), PUT: put, DELETE: undefined }[
      method
    ]
    return call(`/scim/v2/Users/${user.id}`, {
      method,
      token: nord.token,
      env,
      headers: { 'Content-Type': SCIM_JSON },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
  }

  /** What turning a user off would change: their row (its version aside: a post's write moves it), their sessions, the history. */
  async function stateOf(id: number) {
    const sessions = await db()
      .selectFrom('refresh_token')
      .select('revoked_at')
      .where('utilisateur_id', '=', id)
      .execute()
    const { version: _version, ...user } = await row(id)
    return { user, sessions, history: (await historyOf(nord)).length }
  }

  const outside = (from: number, to: number) => ({
    structureId: 3,
    fonctionId: 3,
    from: isoDate(from),
    to: isoDate(to),
  })

  it('answers 403 to turning off a user who also holds a current or future post outside it, writing nothing', async () => {
    for (const elsewhere of [outside(-1, 30), outside(10, 40)]) {
      const user = await createUser({ postes: [currentPost(4, 2), elsewhere] })
      await sessionFor(user.id)
      const before = await stateOf(user.id)
      for (const method of METHODS) {
        await expectScimError(await turnOff(user, method), 403)
      }
      expect(await stateOf(user.id)).toEqual(before)
    }
    // A post outside it that is over leaves the user the account's.
    const former = await createUser({ postes: [currentPost(4, 2), outside(-40, -10)] })
    expect((await turnOff(former, 'PATCH')).status).toBe(200)
  })

  it('answers 403 when a post outside it comes between the read and the write, writing nothing', async () => {
    for (const method of METHODS) {
      const user = await createUser({ postes: [currentPost(4, 2)] })
      await sessionFor(user.id)
      const before = await stateOf(user.id)
      const post = outside(-1, 30)
      const meanwhile = changedBeforeWrite(() =>
        db()
          .insertInto('poste')
          .values({
            utilisateur_id: user.id,
            structure_id: post.structureId,
            fonction_id: post.fonctionId,
            date_debut: post.from,
            date_fin: post.to,
          })
          .execute(),
      )
      await expectScimError(await turnOff(user, method, { DB: meanwhile }), 403)
      expect(await stateOf(user.id), method).toEqual(before)
    }
  })

  it('answers 400 mutability to turning off an administrator, writing nothing', async () => {
    const admin = await createUser({ admin: true, postes: [currentPost(4, 2)] })
    await sessionFor(admin.id)
    const before = await stateOf(admin.id)
    for (const method of ['PATCH', 'PUT'] as const) {
      await expectScimError(await turnOff(admin, method), 400, 'mutability')
    }
    const pathless = patchOf({ op: 'Replace', value: { active: false, 'name.familyName': 'Durand' } })
    await expectScimError(await send('PATCH', `/Users/${admin.id}`, nord.token, pathless), 400, 'mutability')
    expect(await stateOf(admin.id)).toEqual(before)
    expect((await row(admin.id)).actif).toBe(1)
  })

  it('refuses as invalidValue posts that would leave the user none in it', async () => {
    const user = await created()
    const before = await postesOf(user.id)
    for (const postes of [[], [poste(3, 3)]]) {
      const response = await send(
        'PATCH',
        `/Users/${user.id}`,
        nord.token,
        patchOf({ op: 'Replace', path: `${PORTAIL}:postes`, value: postes }),
      )
      await expectScimError(response, 400, 'invalidValue')
    }
    expect(await postesOf(user.id)).toEqual(before)
  })
})

describe('Microsoft Entra ID provisioning', () => {
  it('runs the user operations as Microsoft documents them: query, create, query, disable, delete', async () => {
    const entra = await account(2, 'scim')
    const mail = address()
    const externalId = crypto.randomUUID()

    // Get User by query (zero results).
    const none = await listed(mail, entra.token)
    expect(none).toMatchObject({ schemas: [LIST], totalResults: 0, Resources: [] })

    // Create User.
    const response = await send('POST', '/Users', entra.token, {
      schemas: [CORE_USER, ENTERPRISE, PORTAIL],
      externalId,
      userName: mail,
      active: true,
      emails: [{ primary: true, type: 'work', value: mail }],
      meta: { resourceType: 'User' },
      name: { formatted: 'Test User', familyName: 'Utilisateur', givenName: 'Test' },
      roles: [],
      [PORTAIL]: { postes: [poste(4, 2)] },
    })
    const user = await representation(response.clone(), 201)
    expect(user).toMatchObject({ externalId, userName: mail, active: true })
    expect(response.headers.get('Location')).toBe(user.meta.location)

    // Get User by query.
    const found = await listed(mail, entra.token)
    expect(found.totalResults).toBe(1)
    expect(found.Resources[0]).toMatchObject({ id: user.id, externalId, userName: mail, active: true })

    // Disable User.
    const disabled = await representation(
      await send('PATCH', `/Users/${user.id}`, entra.token, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
      }),
    )
    expect(disabled).toMatchObject({ id: user.id, active: false })

    // Delete User.
    const deleted = await send('DELETE', `/Users/${user.id}`, entra.token)
    expect(deleted.status).toBe(204)
    expect(await deleted.text()).toBe('')
    expect((await listed(mail, entra.token)).totalResults).toBe(0)
    expect(await row(user.id)).toMatchObject({ actif: 0, supprime: 1 })
    expect((await historyOf(entra)).length).toBeGreaterThanOrEqual(3)
  })
})

describe('userName, the login', () => {
  /** Entra ID's user principal name, other than the mail in many tenants. */
  const principal = () => `${crypto.randomUUID().slice(0, 8)}@contoso.onmicrosoft.com`

  /** A POST body as Entra ID sends it: the principal name as userName, the mail as the work address. */
  const entraUser = (userName: string, mail: string) =>
    newUser(mail, { userName, emails: [{ type: 'work', primary: true, value: mail }] })

  const found = async (text: string) => {
    const response = await scim(`/Users?filter=${encodeURIComponent(text)}`, nord.token)
    expect(response.status).toBe(200)
    return (await scimListBody(response, scimUser)).Resources.map((user) => user.id)
  }

  it('creates a user whose login is the userName and whose address is the work mail, found by either', async () => {
    const userName = 'lea.martin@contoso.onmicrosoft.com'
    const mail = 'lea.martin@portail.example'
    const user = await created(entraUser(userName, mail))
    expect(user).toMatchObject({ userName, emails: [{ value: mail, type: 'work', primary: true }] })
    expect(await row(user.id)).toMatchObject({ login: userName, mail })
    expect(
      await db().selectFrom('outbox').select('to_address').where('utilisateur_id', '=', Number(user.id)).execute(),
    ).toEqual([{ to_address: mail }])
    for (const text of [
      `userName eq "${userName}"`,
      `userName eq "${userName.toUpperCase()}"`,
      `emails[type eq "work"].value eq "${mail}"`,
      `emails.value eq "${mail}"`,
    ]) {
      expect(await found(text), text).toEqual([user.id])
    }
    expect(await found(`userName eq "${mail}"`)).toEqual([])
    expect(await found(`emails.value eq "${userName}"`)).toEqual([])
  })

  it('takes an address as userName without emails for both, as clients of the address alone send it', async () => {
    const mail = address()
    const user = await created(newUser(mail, { emails: undefined }))
    expect(user).toMatchObject({ userName: mail, emails: [{ value: mail }] })
    expect(await row(user.id)).toMatchObject({ login: mail, mail })
  })

  it('answers 409 uniqueness for a login another user holds as login or address, in any case', async () => {
    const holder = await createUser({ postes: [currentPost(3, 3)] })
    const entra = await created(entraUser(principal(), address()))
    for (const taken of [holder.login.toUpperCase(), `${holder.login}@example.test`, entra.userName.toUpperCase()]) {
      const mail = address()
      await expectScimError(await send('POST', '/Users', nord.token, entraUser(taken, mail)), 409, 'uniqueness')
      expect(await usersWithMail(mail)).toEqual([])
    }
  })

  it('gives a login to one user only when another request takes it meanwhile: the write holds it, 409', async () => {
    const userName = principal()
    const mail = address()
    const other = address()
    const response = await call('/scim/v2/Users', {
      method: 'POST',
      token: nord.token,
      headers: { 'Content-Type': SCIM_JSON },
      body: JSON.stringify(entraUser(userName, mail)),
      env: {
        DB: changedBeforeWrite(() =>
          db()
            .insertInto('utilisateur')
            .values({ login: userName, nom: 'Autre', prenom: 'Requete', mail: other, domain: ORIGIN })
            .execute(),
        ),
      },
    })
    const body = await expectScimError(response, 409, 'uniqueness')
    expect(body.detail).toContain(userName)
    expect(await usersWithMail(mail)).toEqual([])
    const holders = await db()
      .selectFrom('utilisateur')
      .select('mail')
      .where(sql<SqlBool>`login = ${userName} collate nocase`)
      .execute()
    expect(holders).toEqual([{ mail: other }])
  })

  it('changes the login at once with PATCH userName or PUT, the address by its own rules', async () => {
    // A user who has chosen a password, whose login is their address.
    const user = await loginIsMail(await createUser({ postes: [currentPost(4, 2)] }))
    const mail = (await row(user.id)).mail
    const userName = principal()
    const patched = await representation(
      await logged(nord, () =>
        send('PATCH', `/Users/${user.id}`, nord.token, patchOf({ op: 'Replace', path: 'userName', value: userName })),
      ),
    )
    expect(patched).toMatchObject({ userName, emails: [{ value: mail }] })
    expect(await row(user.id)).toMatchObject({ login: userName, mail })
    expect(await found(`userName eq "${userName}"`)).toEqual([String(user.id)])
    const comments = await db()
      .selectFrom('log')
      .select('commentaire')
      .where('compte_service_id', '=', nord.id)
      .where('commentaire', 'like', `%login : ${userName}%`)
      .execute()
    expect(comments).toHaveLength(1)
    // Entra ID's replace of both: the login at once, the new address once confirmed from its mailbox.
    const renamed = principal()
    const moved = address()
    const put = newUser(moved, { userName: renamed, emails: [{ type: 'work', primary: true, value: moved }] })
    const replaced = await representation(await send('PUT', `/Users/${user.id}`, nord.token, put))
    expect(replaced).toMatchObject({ userName: renamed, emails: [{ value: mail }] })
    expect(await row(user.id)).toMatchObject({ login: renamed, mail })
    expect(await db().selectFrom('outbox').select('kind').where('to_address', '=', moved).execute()).toEqual([
      { kind: 'MAIL_CHANGE_CONFIRM' },
    ])
    // Another user's login is not taken.
    const holder = await createUser({ postes: [currentPost(3, 3)] })
    const taking = patchOf({ op: 'Replace', path: 'userName', value: holder.login })
    await expectScimError(await send('PATCH', `/Users/${user.id}`, nord.token, taking), 409, 'uniqueness')
    expect((await row(user.id)).login).toBe(renamed)
  })

  it('keeps the address of a user with a login of their own when a PUT leaves emails out', async () => {
    const mail = address()
    const user = await created(entraUser(principal(), mail))
    const body = newUser(user.userName, { emails: undefined, name: { givenName: 'Jeanne', familyName: 'Petit' } })
    const replaced = await representation(await send('PUT', `/Users/${user.id}`, nord.token, body))
    expect(replaced).toMatchObject({
      userName: user.userName,
      emails: [{ value: mail }],
      name: { familyName: 'Petit' },
    })
    expect(await row(user.id)).toMatchObject({ login: user.userName, mail })
    expect(await db().selectFrom('outbox').select('kind').where('to_address', '=', user.userName).execute()).toEqual([])
  })

  it("corrects an invited user's address and login together, inviting them at the new address", async () => {
    const user = await created(entraUser(principal(), address()))
    const userName = principal()
    const mail = address()
    const replaced = await representation(await send('PUT', `/Users/${user.id}`, nord.token, entraUser(userName, mail)))
    expect(replaced).toMatchObject({ userName, emails: [{ value: mail }] })
    expect(await row(user.id)).toMatchObject({ login: userName, mail })
    expect(await db().selectFrom('outbox').select('kind').where('to_address', '=', mail).execute()).toEqual([
      { kind: 'INVITATION' },
    ])
  })
})
