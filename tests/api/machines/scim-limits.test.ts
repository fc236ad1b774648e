import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  call,
  createOrganisation,
  db,
  insertServiceAccount,
  isoDate,
  ORIGIN,
  serviceAccountToken,
  withFrozenClock,
} from '../helpers'
import { scimErrorBody, scimListBody, scimUser } from './scim-answers'

/**
 * SCIM's limits as a client meets them: a filter's nesting, its values bound and never read as SQL, a page of at most
 * 200 users, and the account's calls a minute, refused ones counted too, past which it gets SCIM's 429 with Retry-After.
 */

const SCIM_ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error'
const SCIM_JSON = 'application/scim+json'
/** The users of Direction Est, the sub-tree of this file's accounts: more than a page. */
const USERS = 205

let token: string

/** An account of Direction Est with the scope scim, and its token. */
const accountToken = async () => serviceAccountToken(await insertServiceAccount({ structure: 10, scopes: 'scim' }))

const get = (path: string, as = token, limit?: number) =>
  call(`/scim/v2${path}`, { token: as, ...(limit ? { env: { SERVICE_ACCOUNT_RATE_PER_MINUTE: String(limit) } } : {}) })

const filter = (text: string) => `filter=${encodeURIComponent(text)}`

async function page(path: string) {
  const response = await get(path)
  expect(response.status, await response.clone().text()).toBe(200)
  return scimListBody(response, scimUser)
}

async function expectScimError(response: Response, status: number, scimType?: string) {
  expect(response.status).toBe(status)
  expect(response.headers.get('Content-Type')).toBe(SCIM_JSON)
  const body = await scimErrorBody(response)
  expect(body).toMatchObject({ schemas: [SCIM_ERROR], status: String(status) })
  expect(typeof body.detail).toBe('string')
  if (scimType) expect(body.scimType).toBe(scimType)
}

const userCount = async () =>
  Number((await sql<{ n: number }>`select count(*) as n from utilisateur`.execute(db())).rows[0]?.n)

beforeAll(async () => {
  await createOrganisation()
  await db()
    .insertInto('structure')
    .values({ id: 10, nom: 'Direction Est', type_id: 2, parent_id: 1, path: '/1/10/' })
    .execute()
  await db().insertInto('fonction').values({ id: 10, libelle: 'Agent Est', structure_id: 10 }).execute()
  // The users and their posts in two statements, the organisation's triggers placing them.
  await sql`insert into utilisateur (login, nom, prenom, mail, domain)
    with recursive n (i) as (select 1 union all select i + 1 from n where i < ${USERS})
    select 'est' || i, 'Nom' || i, 'Prenom' || i, 'est' || i || '@example.test', ${ORIGIN} from n`.execute(db())
  await sql`insert into poste (utilisateur_id, structure_id, fonction_id, date_debut, date_fin)
    select id, 10, 10, ${isoDate(-1)}, ${isoDate(60)} from utilisateur where login like 'est%'`.execute(db())
  token = await accountToken()
})

describe('a page', () => {
  it(`holds at most 200 users, whatever count asks, with the total of ${USERS}`, async () => {
    for (const query of ['count=500', '', `count=500&${filter('active eq true')}`]) {
      const first = await page(`/Users?${query}`)
      expect(first, query).toMatchObject({ totalResults: USERS, itemsPerPage: 200, startIndex: 1 })
      expect(first.Resources).toHaveLength(200)
    }
    const rest = await page('/Users?count=500&startIndex=201')
    expect(rest).toMatchObject({ totalResults: USERS, itemsPerPage: USERS - 200 })
    expect(rest.Resources).toHaveLength(USERS - 200)
  })
})

describe('a filter', () => {
  const nots = (n: number, inner = 'userName eq "est1"') => `${'not ('.repeat(n)}${inner}${')'.repeat(n)}`
  const parentheses = (n: number) => `${'('.repeat(n)}userName eq "est1"${')'.repeat(n)}`
  /** `and` and `or` in turn, `levels` parentheses deep, around `innermost` (a value path: one level more). */
  const nested = (
    levels: number,
    comparison = (n: number) => `userName eq "est${n}"`,
    innermost = 'emails[type eq "work" and value ew "@example.test"]',
  ): string =>
    levels === 0
      ? innermost
      : `(${comparison(levels)} ${levels % 2 ? 'or' : 'and'} ${nested(levels - 1, comparison, innermost)})`

  it('nests parentheses and not 10 deep, each, and no deeper: 400 invalidFilter past that', async () => {
    expect((await page(`/Users?${filter(nots(10))}`)).totalResults).toBe(1)
    expect((await page(`/Users?${filter(nots(9))}`)).totalResults).toBe(USERS - 1)
    expect((await page(`/Users?${filter(parentheses(10))}`)).totalResults).toBe(1)
    // Both at their deepest together, each level another condition: the deepest SQL a filter makes.
    const deepest = `${'not '.repeat(10)}${nested(9)}`
    expect((await page(`/Users?${filter(deepest)}`)).totalResults).toBeGreaterThan(0)
    const groups = `${'not '.repeat(10)}${nested(10, (n) => `id eq "${n}"`, 'displayName eq "Direction Est / Agent Est"')}`
    expect((await get(`/Groups?${filter(groups)}`)).status).toBe(200)
    for (const text of [
      nots(11),
      parentheses(11),
      `${'not '.repeat(11)}userName eq "est1"`,
      nested(10),
      `emails[${parentheses(10)}]`,
    ]) {
      await expectScimError(await get(`/Users?${filter(text)}`), 400, 'invalidFilter')
    }
    await expectScimError(await get(`/Groups?${filter(nots(11, 'id eq "10"'))}`), 400, 'invalidFilter')
    // Brackets and parentheses inside a value are the value's.
    expect((await page(`/Users?${filter(`userName eq "${'(['.repeat(20)}"`)}`)).totalResults).toBe(0)
  })

  it('binds its values: SQL in them finds what it says, breaks nothing', async () => {
    const before = await userCount()
    for (const text of [
      `userName eq "' or 1=1 --"`,
      `userName eq "est1' or '1'='1"`,
      `name.familyName co "'); delete from utilisateur; --"`,
      'externalId eq "\\" or \\"1\\"=\\"1"',
      `emails.value sw "%"`,
      `userName co "_"`,
      `userName eq "est1" and externalId eq "x' or externalId is null or '"`,
    ]) {
      expect((await page(`/Users?${filter(text)}`)).totalResults, text).toBe(0)
    }
    expect((await page(`/Users?${filter(`userName ne "' or 1=1 --"`)}`)).totalResults).toBe(USERS)
    expect(await userCount()).toBe(before)
    expect((await page(`/Users?${filter('userName eq "est1"')}`)).totalResults).toBe(1)
  })
})

describe("the account's rate", () => {
  it('answers past it a SCIM 429 with Retry-After, until the minute ends', async () => {
    const limited = await accountToken()
    // The 20th second of a minute: 40 seconds to wait.
    const at = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 20_000)
    await withFrozenClock(async () => {
      expect((await get('/Users?count=1', limited, 2)).status).toBe(200)
      expect((await get('/ServiceProviderConfig', limited, 2)).status).toBe(200)
      const over = await get('/Users?count=1', limited, 2)
      expect(over.headers.get('Retry-After')).toBe('40')
      await expectScimError(over, 429)
    }, at)
  })

  it('counts the calls it refuses before reading anything, a filter too deep among them', async () => {
    const limited = await accountToken()
    await withFrozenClock(async () => {
      await expectScimError(await get(`/Users?${filter(`${'not '.repeat(60)}userName eq "x"`)}`, limited, 2), 400)
      await expectScimError(await get(`/Users?${filter('password eq "x"')}`, limited, 2), 400, 'invalidFilter')
      const over = await get('/Users?count=1', limited, 2)
      await expectScimError(over, 429)
      expect(over.headers.get('Retry-After')).toMatch(/^\d+$/)
      // Refused too, and counted: a client sending bad filters still meets the limit.
      await expectScimError(await get(`/Users?${filter('password eq "x"')}`, limited, 2), 429)
    })
  })
})
