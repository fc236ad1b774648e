import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import { call, createOrganisation, createUser, currentPost, expectError, ORIGIN, sessionFor } from './helpers'

/**
 * The whole-list form of the spec's list calls (no `page`: a bare array) answers at most 5 000
 * entries; past that, 400 LIST_TOO_LARGE with that number, and the paged form still answers. The
 * database is this file's own: its counts are exact.
 */
const WHOLE_LIST_MAX = 5000

let token: string
let adminId: number

beforeAll(async () => {
  await createOrganisation()
  const admin = await createUser({ admin: true, postes: [currentPost(1, 1)] })
  adminId = admin.id
  token = (await sessionFor(admin.id)).accessToken
})

const totalOf = async (path: string) => {
  const response = await call(`${path}?page=1`, { token })
  expect(response.status).toBe(200)
  return Number(response.headers.get('X-Total-Count'))
}

const totalsKept = async () =>
  (await env.DB.prepare('select count(*) as n from utilisateur_liste_total').first<{ n: number }>())?.n

async function expectBoundAt(path: string, addEntries: (count: number) => Promise<unknown>) {
  await addEntries(WHOLE_LIST_MAX - (await totalOf(path)))
  const whole = await call(path, { token })
  expect(whole.status).toBe(200)
  expect(await whole.json()).toHaveLength(WHOLE_LIST_MAX)

  await addEntries(1)
  const kept = await totalsKept()
  const refused = await expectError(await call(path, { token }), 400, 'LIST_TOO_LARGE')
  expect(refused.attributs).toEqual([WHOLE_LIST_MAX])
  expect(await totalsKept()).toBe(kept)
  // The paged form still answers, with the whole total.
  expect(await totalOf(path)).toBe(WHOLE_LIST_MAX + 1)
}

describe(`a whole list answers at most ${WHOLE_LIST_MAX} entries`, () => {
  it('GET rest/bd/utilisateur/liste', async () => {
    let added = 0
    await expectBoundAt('/rest/bd/utilisateur/liste', async (count) => {
      await env.DB.prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
         INSERT INTO utilisateur (login, nom, prenom, mail, domain)
         SELECT 'masse' || (i + ?2), 'Masse', 'P' || i, 'masse' || (i + ?2) || '@example.test', ?3 FROM n`,
      )
        .bind(count, added, ORIGIN)
        .run()
      added += count
    })
  })

  it('GET rest/bd/logs/', async () => {
    await expectBoundAt('/rest/bd/logs/', (count) =>
      env.DB.prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
         INSERT INTO log (date, utilisateur_id, type_log, nom_log)
         SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || i || ' seconds'), ?2, 'CONNEXION', 'CONNEXION' FROM n`,
      )
        .bind(count, adminId)
        .run(),
    )
  })
})
