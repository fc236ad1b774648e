import { beforeAll, describe, expect, it } from 'vitest'
import type { z } from 'zod'
import { SCIM_MAX_RESULTS } from '../../../worker-api/contract/machines/scim'
import { FILTER_MAX_COMPARISONS, FILTER_MAX_LENGTH } from '../../../worker-api/services/machines/scim/filter'
import { SCIM_MAX_POSTES } from '../../../worker-api/services/machines/scim/user-changes'
import { call, createOrganisation, db, insertServiceAccount, isoDate, serviceAccountToken } from '../helpers'
import { manyUsers } from '../many-users'
import { scimGroup, scimListBody, scimUser, scimUserBody } from './scim-answers'

/**
 * SCIM's lists at the maxima the README documents (a filter of 1 000 characters and 20 comparisons, a page of 200
 * users, 20 posts a user), on the D1 that refuses what production's refuses (tests/api/production-limits.test.ts).
 */

const PORTAIL = 'urn:ietf:params:scim:schemas:extension:portail:2.0:User'
const CORE_USER = 'urn:ietf:params:scim:schemas:core:2.0:User'
const SCIM_JSON = 'application/scim+json'
/** Functions of Agence Lille, two posts' worth. */
const FONCTIONS = Array.from({ length: SCIM_MAX_POSTES * 2 }, (_, n) => 301 + n)

let token: string

beforeAll(async () => {
  await createOrganisation()
  for (const some of [FONCTIONS.slice(0, SCIM_MAX_POSTES), FONCTIONS.slice(SCIM_MAX_POSTES)])
    await db()
      .insertInto('fonction')
      .values(some.map((id) => ({ id, libelle: `Fonction ${id}`, structure_id: 4 })))
      .execute()
  token = await serviceAccountToken(await insertServiceAccount({ structure: 1, scopes: 'api scim' }))
  await manyUsers(SCIM_MAX_RESULTS + 50, 4, 2)
})

const scim = (path: string, init: RequestInit = {}) =>
  call(`/scim/v2${path}`, {
    ...init,
    token,
    headers: init.body ? { 'Content-Type': SCIM_JSON } : {},
  })

/** A list of `item`s, which must answer 200. */
async function listed<T>(path: string, item: z.ZodType<T>) {
  const response = await scim(path)
  expect(response.status, await response.clone().text()).toBe(200)
  return scimListBody(response, item)
}

/**
 * A filter of exactly `FILTER_MAX_LENGTH` characters and `FILTER_MAX_COMPARISONS` comparisons, each `comparison(n)`
 * with a value `values(n, room)` that fills the room left.
 */
function widest(comparison: (n: number, value: string) => string, value: (n: number, length: number) => string) {
  const parts = Array.from({ length: FILTER_MAX_COMPARISONS }, (_, n) => comparison(n, ''))
  const bare = parts.join(' or ').length
  const room = FILTER_MAX_LENGTH - bare
  const each = Math.floor(room / FILTER_MAX_COMPARISONS)
  const extra = room - each * FILTER_MAX_COMPARISONS
  const text = Array.from({ length: FILTER_MAX_COMPARISONS }, (_, n) =>
    comparison(n, value(n, each + (n === 0 ? extra : 0))),
  ).join(' or ')
  expect(text).toHaveLength(FILTER_MAX_LENGTH)
  return encodeURIComponent(text)
}

/** `ext-<n>` padded to `length` characters. */
const padded = (n: number, length: number) => `ext-${n + 1}`.padEnd(length, '%').slice(0, length)

/**
 * `start` made `length` characters long whose LIKE pattern is as long as a filter takes (48 bytes once `%`, `_` and
 * `\` are escaped): `%` (two bytes escaped) while there is room, then letters.
 */
function fullPattern(start: string, length: number) {
  const escaped = Math.max(0, Math.min(length - start.length, 48 - length))
  return `${start}${'%'.repeat(escaped)}`.padEnd(length, 'x')
}

describe('GET Users', () => {
  it(`takes a filter of ${FILTER_MAX_LENGTH} characters and ${FILTER_MAX_COMPARISONS} comparisons, each binding the most`, async () => {
    // externalId co: a pattern and the value again (compared exactly), each value as long as the length allows.
    const contains = widest(
      (_, value) => `externalId co "${value}"`,
      (n, length) => fullPattern(`ext-${n + 1}`, length),
    )
    expect(
      (await listed(`/Users?filter=${contains}&count=${SCIM_MAX_RESULTS}`, scimUser)).totalResults,
    ).toBeGreaterThanOrEqual(0)
    const starts = widest(
      (n, value) => `${['userName', 'name.familyName', 'name.givenName', 'emails.value'][n % 4]} sw "${value}"`,
      (_, length) => 'foule'.padEnd(length, 'x'),
    )
    expect((await listed(`/Users?filter=${starts}&sortBy=userName`, scimUser)).totalResults).toBe(0)
    const exact = widest(
      (_, value) => `externalId eq "${value}"`,
      (n, length) => padded(n, length),
    )
    expect((await listed(`/Users?filter=${exact}`, scimUser)).totalResults).toBe(0)
  })

  it('takes a pattern of the 48 bytes a LIKE leaves once its two % are added', async () => {
    const text = encodeURIComponent(`userName co "${'%'.repeat(24)}"`)
    expect((await listed(`/Users?filter=${text}`, scimUser)).totalResults).toBe(0)
    const accents = encodeURIComponent(`name.familyName ew "${'é'.repeat(24)}"`)
    expect((await listed(`/Users?filter=${accents}`, scimUser)).totalResults).toBe(0)
  })

  it(`answers a page of ${SCIM_MAX_RESULTS} users with their posts, filtered and sorted`, async () => {
    const page = await listed(
      `/Users?count=${SCIM_MAX_RESULTS}&sortBy=name.familyName&filter=userName%20sw%20%22foule%22`,
      scimUser,
    )
    expect(page.totalResults).toBeGreaterThan(SCIM_MAX_RESULTS)
    expect(page.Resources).toHaveLength(SCIM_MAX_RESULTS)
    for (const resource of page.Resources) expect(resource[PORTAIL].postes).toHaveLength(1)
  })
})

describe('GET Groups', () => {
  it(`takes a filter of ${FILTER_MAX_LENGTH} characters and ${FILTER_MAX_COMPARISONS} comparisons`, async () => {
    const names = widest(
      (_, value) => `displayName co "${value}"`,
      (n, length) => fullPattern(`Fonction ${301 + n}`, length),
    )
    expect(
      (await listed(`/Groups?filter=${names}&count=${SCIM_MAX_RESULTS}`, scimGroup)).totalResults,
    ).toBeGreaterThanOrEqual(0)
  })
})

describe(`a user's ${SCIM_MAX_POSTES} posts`, () => {
  const poste = (fonction: number, from: string, to: string) => ({
    structure: { value: '4' },
    fonction: { value: String(fonction) },
    dateDebut: from,
    dateFin: to,
  })
  const user = (mail: string, postes: ReturnType<typeof poste>[]) => ({
    schemas: [CORE_USER, PORTAIL],
    userName: mail,
    name: { givenName: 'Jeanne', familyName: 'Martin' },
    active: true,
    [PORTAIL]: { postes },
  })
  const held = async (id: string) =>
    (await db().selectFrom('poste').select('fonction_id').where('utilisateur_id', '=', Number(id)).execute()).length

  it('are created, replaced by as many others (PUT), then by as many again (PATCH)', async () => {
    const mail = 'vingt.postes@example.test'
    const first = FONCTIONS.slice(0, SCIM_MAX_POSTES).map((id) => poste(id, isoDate(-1), isoDate(60)))
    const created = await scim('/Users', { method: 'POST', body: JSON.stringify(user(mail, first)) })
    expect(created.status, await created.clone().text()).toBe(201)
    const { id } = await scimUserBody(created)
    expect(await held(id)).toBe(SCIM_MAX_POSTES)
    const second = FONCTIONS.slice(SCIM_MAX_POSTES).map((fonction) => poste(fonction, isoDate(2), isoDate(90)))
    const replaced = await scim(`/Users/${id}`, { method: 'PUT', body: JSON.stringify(user(mail, second)) })
    expect(replaced.status, await replaced.clone().text()).toBe(200)
    const third = FONCTIONS.slice(0, SCIM_MAX_POSTES).map((fonction) => poste(fonction, isoDate(3), isoDate(120)))
    const patched = await scim(`/Users/${id}`, {
      method: 'PATCH',
      body: JSON.stringify({
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'replace', path: `${PORTAIL}:postes`, value: third }],
      }),
    })
    expect(patched.status, await patched.clone().text()).toBe(200)
    expect((await scimUserBody(patched))[PORTAIL].postes).toHaveLength(SCIM_MAX_POSTES)
  })
})
