import { beforeAll, describe, expect, it } from 'vitest'
import {
  call,
  createOrganisation,
  createUser,
  currentPost,
  db,
  insertServiceAccount,
  ORIGIN,
  serviceAccountToken,
  sessionFor,
} from '../helpers'
import {
  projectedUser,
  scimErrorBody,
  scimGroup,
  scimListBody,
  scimResourceType,
  scimSchema,
  scimUserBody,
  serviceProviderConfigBody,
} from './scim-answers'

/**
 * SCIM 2.0 as a provisioning client drives it: the requests of Microsoft Entra ID's provisioning
 * service (its "Test Connection" query, its filter by userName) and of any RFC 7644 client, answered
 * in SCIM's shape and within the service account's sub-tree.
 */

const SCIM_ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error'
const LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse'

let nordToken: string
let nordUser: { id: number; login: string }
let sudUser: { id: number; login: string }
const _sequence = 0

/** A service account of `structure` with `scopes`, and its token. */
async function accountToken(structure: number, scopes: string, admin: 0 | 1 = 1) {
  return serviceAccountToken(await insertServiceAccount({ structure, scopes, admin }))
}

const scim = (path: string, token: string | undefined, init: RequestInit = {}) =>
  call(`/scim/v2${path}`, { ...init, ...(token ? { token } : {}) })

async function list(query: string, token = nordToken) {
  const response = await scim(`/Users?${query}`, token)
  expect(response.status).toBe(200)
  expect(response.headers.get('Content-Type')).toBe('application/scim+json')
  return scimListBody(response, projectedUser)
}

async function expectScimError(response: Response, status: number, scimType?: string) {
  expect(response.status).toBe(status)
  expect(response.headers.get('Content-Type')).toBe('application/scim+json')
  const body = await scimErrorBody(response)
  expect(body).toMatchObject({ schemas: [SCIM_ERROR], status: String(status) })
  expect(typeof body.detail).toBe('string')
  if (scimType) expect(body.scimType).toBe(scimType)
  else expect(body.scimType).toBeUndefined()
}

const filter = (text: string) => `filter=${encodeURIComponent(text)}`

beforeAll(async () => {
  await createOrganisation()
  nordToken = await accountToken(2, 'api scim')
  nordUser = await createUser({ postes: [currentPost(4, 2)] })
  sudUser = await createUser({ postes: [currentPost(3, 3)] })
  for (let n = 0; n < 5; n++) await createUser({ postes: [currentPost(4, 2)] })
})

describe('who may call SCIM', () => {
  it('answers SCIM errors: 401 without a token, 403 to a person or an account without the scope scim', async () => {
    await expectScimError(await scim('/Users', undefined), 401)
    const admin = await createUser({ admin: true, postes: [currentPost(1, 1)] })
    await expectScimError(await scim('/Users', (await sessionFor(admin.id)).accessToken), 403)
    await expectScimError(await scim('/Users', await accountToken(2, 'api')), 403)
    await expectScimError(await scim('/Nothing', nordToken), 404)
  })
})

describe('discovery', () => {
  it('says truthfully what is supported', async () => {
    const config = await serviceProviderConfigBody(await scim('/ServiceProviderConfig', nordToken))
    expect(config).toMatchObject({
      patch: { supported: true },
      filter: { supported: true, maxResults: 200 },
      bulk: { supported: false },
      changePassword: { supported: false },
      sort: { supported: true },
      etag: { supported: true },
    })
    const types = await scimListBody(await scim('/ResourceTypes', nordToken), scimResourceType)
    expect(types.Resources.map((type) => type.id)).toEqual(['User', 'Group'])
    const schemas = await scimListBody(await scim('/Schemas', nordToken), scimSchema)
    expect(schemas.Resources.map((schema) => schema.id)).toEqual([
      'urn:ietf:params:scim:schemas:core:2.0:User',
      'urn:ietf:params:scim:schemas:extension:portail:2.0:User',
      'urn:ietf:params:scim:schemas:core:2.0:Group',
    ])
  })
})

describe('GET Users', () => {
  it("answers Entra ID's Test Connection: a random userName, an empty ListResponse", async () => {
    const body = await list(filter(`userName eq "${crypto.randomUUID()}"`))
    expect(body).toEqual({ schemas: [LIST], totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] })
  })

  it('finds a user by userName whatever its case, with their posts, inside the sub-tree only', async () => {
    const found = await list(filter(`userName eq "${nordUser.login.toUpperCase()}"`))
    expect(found.totalResults).toBe(1)
    expect(found.Resources[0]).toMatchObject({
      id: String(nordUser.id),
      userName: nordUser.login,
      emails: [{ value: `${nordUser.login}@example.test`, type: 'work', primary: true }],
      active: true,
      'urn:ietf:params:scim:schemas:extension:portail:2.0:User': {
        postes: [{ structure: { value: '4', display: 'Agence Lille' }, fonction: { value: '2' } }],
      },
      meta: { resourceType: 'User', location: `${ORIGIN}/portail-backend/scim/v2/Users/${nordUser.id}` },
    })
    expect((await list(filter(`userName eq "${sudUser.login}"`))).totalResults).toBe(0)
  })

  it('reads the operators, logic and value paths of RFC 7644 §3.4.2.2', async () => {
    const all = (await list('')).totalResults
    expect(all).toBeGreaterThanOrEqual(6)
    const mail = `${nordUser.login}@example.test`
    for (const [text, expected] of [
      [`emails[type eq "work"].value eq "${mail}"`, 1],
      [`emails.value eq "${mail.toUpperCase()}"`, 1],
      [`emails[type eq "home"].value eq "${mail}"`, 0],
      [`userName eq "${nordUser.login}" and active eq true`, 1],
      [`userName eq "${nordUser.login}" and not (active eq true)`, 0],
      [`(userName eq "${nordUser.login}") or (userName eq "${sudUser.login}")`, 1],
      ['name.familyName sw "Nom"', all],
      ['name.givenName co "renom"', all],
      ['userName ew "nobody"', 0],
      ['externalId pr', 0],
      ['meta.lastModified gt "2000-01-01T00:00:00Z"', all],
      ['active ne true', 0],
    ] as const) {
      expect((await list(filter(text))).totalResults, text).toBe(expected)
    }
  })

  it('refuses what it cannot read as 400 invalidFilter, at once', async () => {
    for (const text of [
      'password eq "x"',
      'userName eq',
      'userName zz "x"',
      `userName eq "${'a'.repeat(1001)}"`,
      `userName eq "${'\n'.repeat(50)}`,
      Array.from({ length: 21 }, (_, n) => `userName eq "u${n}"`).join(' or '),
      `userName co "${'é'.repeat(25)}"`,
      'active eq "yes"',
      'meta.lastModified gt "not a date"',
    ]) {
      await expectScimError(await scim(`/Users?${filter(text)}`, nordToken), 400, 'invalidFilter')
    }
  })

  it('pages from startIndex, at most 200 a page, sorted as asked', async () => {
    const all = await list('')
    const page = await list('startIndex=2&count=2')
    expect(page).toMatchObject({ totalResults: all.totalResults, startIndex: 2, itemsPerPage: 2 })
    expect(page.Resources.map((user) => user.id)).toEqual(all.Resources.slice(1, 3).map((user) => user.id))
    expect((await list('count=1000')).itemsPerPage).toBe(all.totalResults)
    expect(await list('count=0')).toMatchObject({ totalResults: all.totalResults, itemsPerPage: 0, Resources: [] })
    const names = (await list('sortBy=userName&sortOrder=descending')).Resources.map((user) => String(user.userName))
    expect(names).toEqual([...names].sort((a, b) => b.localeCompare(a, 'en', { sensitivity: 'base' })))
    await expectScimError(await scim('/Users?sortBy=password', nordToken), 400, 'invalidValue')
    await expectScimError(await scim('/Users?startIndex=abc', nordToken), 400, 'invalidValue')
  })

  it('counts a filtered list whatever its window: a page, past the end, the total only', async () => {
    const active = filter('active eq true')
    const all = await list(active)
    expect(all.totalResults).toBe(all.Resources.length)
    expect(all.totalResults).toBeGreaterThan(2)
    expect(await list(`${active}&startIndex=2&count=1`)).toMatchObject({
      totalResults: all.totalResults,
      itemsPerPage: 1,
    })
    expect(await list(`${active}&startIndex=1000&count=5`)).toMatchObject({
      totalResults: all.totalResults,
      itemsPerPage: 0,
      Resources: [],
    })
    expect(await list(`${active}&count=0`)).toMatchObject({ totalResults: all.totalResults, itemsPerPage: 0 })
    expect(await list(filter('userName eq "personne@example.test"'))).toMatchObject({ totalResults: 0, Resources: [] })
  })

  it('answers the attributes asked, or all but those excluded; id and schemas always', async () => {
    const [only] = (await list(`attributes=userName&${filter(`userName eq "${nordUser.login}"`)}`)).Resources
    expect(Object.keys(only ?? {}).sort()).toEqual(['id', 'schemas', 'userName'])
    const [names] = (await list(`attributes=name.familyName&${filter(`userName eq "${nordUser.login}"`)}`)).Resources
    expect(names?.name).toEqual({ familyName: expect.any(String) })
    const [without] = (await list(`excludedAttributes=emails,meta&${filter(`userName eq "${nordUser.login}"`)}`))
      .Resources
    expect(without?.emails).toBeUndefined()
    expect(without?.meta).toBeUndefined()
    expect(without?.userName).toBe(nordUser.login)
  })
})

describe('GET Users/{id}', () => {
  it('writes a user alike in a page and alone, JSON types as RFC 7643 §4.1 has them; externalId only when held', async () => {
    const held = await createUser({ postes: [currentPost(4, 2)], actif: false })
    await db().updateTable('utilisateur').set({ external_id: 'hr-4711' }).where('id', '=', held.id).execute()
    const page = await list(filter(`id eq "${held.id}" or id eq "${nordUser.id}"`))
    expect(page.Resources).toHaveLength(2)
    const alone = async (id: number) => scimUserBody(await scim(`/Users/${id}`, nordToken))
    for (const id of [held.id, nordUser.id]) {
      expect(page.Resources.find((resource) => resource.id === String(id))).toEqual(await alone(id))
    }
    expect(await alone(held.id)).toEqual({
      schemas: [
        'urn:ietf:params:scim:schemas:core:2.0:User',
        'urn:ietf:params:scim:schemas:extension:portail:2.0:User',
      ],
      id: String(held.id),
      externalId: 'hr-4711',
      userName: held.login,
      name: { givenName: expect.any(String), familyName: expect.any(String), formatted: expect.any(String) },
      displayName: expect.any(String),
      emails: [{ value: `${held.login}@example.test`, type: 'work', primary: true }],
      active: false,
      'urn:ietf:params:scim:schemas:extension:portail:2.0:User': {
        postes: [
          {
            structure: { value: '4', display: expect.any(String) },
            fonction: { value: '2', display: expect.any(String) },
            dateDebut: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
            dateFin: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
          },
        ],
      },
      meta: {
        resourceType: 'User',
        created: expect.any(String),
        lastModified: expect.any(String),
        location: `${ORIGIN}/portail-backend/scim/v2/Users/${held.id}`,
        version: expect.stringMatching(/^W\/"\d+"$/),
      },
    })
    expect(Object.keys(await alone(nordUser.id))).not.toContain('externalId')
    expect((await alone(nordUser.id)).active).toBe(true)
  })

  it('answers one user of the sub-tree with its version as ETag; 404 outside it or once deleted', async () => {
    const response = await scim(`/Users/${nordUser.id}`, nordToken)
    expect(response.status).toBe(200)
    const user = await scimUserBody(response)
    expect(response.headers.get('ETag')).toBe(user.meta.version)
    expect(user.meta.version).toMatch(/^W\/"\d+"$/)
    await expectScimError(await scim(`/Users/${sudUser.id}`, nordToken), 404)
    await expectScimError(await scim('/Users/not-a-number', nordToken), 404)
    const gone = await createUser({ postes: [currentPost(4, 2)], supprime: true })
    await expectScimError(await scim(`/Users/${gone.id}`, nordToken), 404)
  })
})

describe('Groups', () => {
  it('lists one read-only group per function of the sub-tree, with the users of a current post in it', async () => {
    const response = await scim('/Groups', nordToken)
    expect(response.headers.get('Content-Type')).toBe('application/scim+json')
    const body = await scimListBody(response, scimGroup)
    // Agence Lille's dock agents; not Direction Sud's function, nor the root's.
    expect(body.Resources.map((group) => group.displayName)).toEqual(['Agence Lille / Agent de quai'])
    const [group] = body.Resources
    expect(group?.id).toBe('2')
    expect(group?.members).toContainEqual({
      value: String(nordUser.id),
      display: expect.any(String),
      $ref: `${ORIGIN}/portail-backend/scim/v2/Users/${nordUser.id}`,
    })
    expect(group?.members?.map((member) => member.value)).not.toContain(String(sudUser.id))
  })

  it('finds a group by displayName, leaves its members out when asked, and hides the others', async () => {
    const found = await scimListBody(
      await scim(
        `/Groups?${filter('displayName eq "agence lille / agent de quai"')}&excludedAttributes=members`,
        nordToken,
      ),
      scimGroup,
    )
    expect(found.totalResults).toBe(1)
    expect(found.Resources[0]?.members).toBeUndefined()
    expect((await scim('/Groups/2', nordToken)).status).toBe(200)
    await expectScimError(await scim('/Groups/3', nordToken), 404)
    await expectScimError(await scim(`/Groups?${filter('members.value eq "1"')}`, nordToken), 400, 'invalidFilter')
  })

  it('answers 501 to every write, saying where posts are written', async () => {
    for (const [method, path] of [
      ['POST', '/Groups'],
      ['PUT', '/Groups/2'],
      ['PATCH', '/Groups/2'],
      ['DELETE', '/Groups/2'],
    ] as const) {
      const response = await scim(path, nordToken, { method, body: JSON.stringify({ displayName: 'x' }) })
      await expectScimError(response.clone(), 501)
      expect((await scimErrorBody(response)).detail).toContain('postes')
    }
  })
})
