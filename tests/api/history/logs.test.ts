import { env } from 'cloudflare:test'
import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import type { NewLog } from '../../../worker-api/db/schema'
import { SMALL_SCOPE_POSTS } from '../../../worker-api/lib/scope'
import { api, okBody } from '../client'
import {
  call,
  createOrganisation,
  createUser,
  currentPost,
  db,
  expectError,
  ORIGIN,
  post,
  sessionFor,
  signedInUser,
  solvedCaptcha,
} from '../helpers'

beforeAll(createOrganisation)

const LOGS = '/rest/bd/logs/'
const EDGE =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.51'

const rowOf = (id: number) => db().selectFrom('log').selectAll().where('id', '=', id).executeTakeFirstOrThrow()

describe('POST /rest/bd/logs/', () => {
  it('answers 201 with the id of the row it wrote for the caller', async () => {
    const user = await signedInUser()
    const body = await okBody(
      api(user.jwt.accessToken).rest.bd.logs.index.$post({
        json: { nomLog: 'Pesage', commentaire: 'ouverture', nomNavigateur: 'Firefox', versionNavigateur: '128.0' },
      }),
      201,
    )
    expect(Object.keys(body)).toEqual(['id'])
    expect(await rowOf(body.id)).toMatchObject({
      utilisateur_id: user.id,
      type_log: 'APPLI_PESAGE',
      nom_log: 'Pesage',
      commentaire: 'ouverture',
      nom_navigateur: 'Firefox',
      version_navigateur: '128.0',
    })
  })

  it('derives the type from nomLog', async () => {
    const user = await signedInUser()
    const cases: [string, string][] = [
      ['CONNEXION', 'CONNEXION'],
      ['DECONNEXION', 'DECONNEXION'],
      ['Pesage', 'APPLI_PESAGE'],
      ['Yard dangereux', 'APPLI_YARD'],
      ['Module Rendez vous', 'APPLI_MODRDV'],
      ['Facturation', 'APPLICATION'],
      ['APPLICATION', 'APPLICATION'],
      ['APPLI_PESAGE', 'APPLI_PESAGE'],
    ]
    for (const [nomLog, typeLog] of cases) {
      const { id } = await okBody(
        api(user.jwt.accessToken).rest.bd.logs.index.$post({
          json: { nomLog, nomNavigateur: 'Chrome', versionNavigateur: '120' },
        }),
        201,
      )
      expect({ nomLog, type: (await rowOf(id)).type_log }).toEqual({ nomLog, type: typeLog })
    }
  })

  it('falls back to the browser of the User-Agent when the client sends none', async () => {
    const user = await signedInUser()
    const { id } = await okBody(
      api(user.jwt.accessToken).rest.bd.logs.index.$post(
        { json: { nomLog: 'Pesage' } },
        { headers: { 'User-Agent': EDGE } },
      ),
      201,
    )
    expect(await rowOf(id)).toMatchObject({
      nom_navigateur: 'Microsoft Edge',
      version_navigateur: '124.0.2478.51',
      commentaire: null,
    })
  })

  it('answers 400 VALIDATION_FAILED for an empty or missing nomLog', async () => {
    const user = await signedInUser()
    for (const body of [{ nomLog: '' }, { nomLog: '   ' }, {}, { nomLog: 12 }]) {
      const error = await expectError(await post(LOGS, body, { token: user.jwt.accessToken }), 400, 'VALIDATION_FAILED')
      expect(error.attributs).toEqual([expect.objectContaining({ field: 'nomLog' })])
    }
  })

  it('takes 60 entries a minute from one user, then answers 429 TOO_MANY_ATTEMPTS and writes nothing', async () => {
    // The real limit (the test configuration raises it for the other files' users).
    const limited = { env: { CLIENT_LOG_RATE_PER_MINUTE: undefined } }
    const [user, other] = await Promise.all([signedInUser(), signedInUser()])
    const write = (token: string, headers: Record<string, string> = {}) =>
      post(LOGS, { nomLog: 'Pesage' }, { token, headers, ...limited })
    // Aligned on a fresh minute, so that the window does not turn during the test.
    const second = new Date().getSeconds()
    if (second > 50) await new Promise((resolve) => setTimeout(resolve, (61 - second) * 1000))
    for (let i = 0; i < 60; i++) {
      // From changing addresses: the limit is the user's, not the client's.
      expect((await write(user.jwt.accessToken, { 'CF-Connecting-IP': `192.0.2.${i}` })).status).toBe(201)
    }
    const before = await db().selectFrom('log').select('id').execute()
    const refused = await expectError(await write(user.jwt.accessToken), 429, 'TOO_MANY_ATTEMPTS')
    expect(refused.attributs[0]).toBeGreaterThan(0)
    expect(await db().selectFrom('log').select('id').execute()).toHaveLength(before.length)
    // Another user is counted apart.
    expect((await write(other.jwt.accessToken)).status).toBe(201)
  }, 90_000)

  it('answers 401 without a token, and writes nothing', async () => {
    const before = await db().selectFrom('log').select('id').execute()
    await expectError(await post(LOGS, { nomLog: 'Pesage' }), 401, 'UNAUTHORIZED')
    expect(await db().selectFrom('log').select('id').execute()).toHaveLength(before.length)
    expect((await call(LOGS, { method: 'POST', body: '{}', token: 'garbage' })).status).toBe(401)
  })
})

/** The administrators of the three levels: the root (Groupe), Direction Nord, Direction Sud. */
async function administrators() {
  const [root, nord, sud] = await Promise.all([
    createUser({ admin: true, postes: [currentPost(1, 1)] }),
    createUser({ admin: true, postes: [currentPost(2, 1)] }),
    createUser({ admin: true, postes: [currentPost(3, 3)] }),
  ])
  const [rootSession, nordSession, sudSession] = await Promise.all([
    sessionFor(root.id),
    sessionFor(nord.id),
    sessionFor(sud.id),
  ])
  return {
    root: rootSession.accessToken,
    nord: nordSession.accessToken,
    sud: sudSession.accessToken,
    ids: { root, nord, sud },
  }
}

/** The history's filters, as its route declares them. */
type HistoryQuery = Parameters<ReturnType<typeof api>['rest']['bd']['logs']['index']['$get']>[0]['query']

const history = async (token: string, query: HistoryQuery = {}) => {
  const response = await api(token).rest.bd.logs.index.$get({ query })
  return { entries: await okBody(response), total: Number(response.headers.get('X-Total-Count')) }
}

/** A user's entries in the history as `token` reads it, oldest first. */
const entriesOf = async (token: string, mail: string) =>
  (await history(token, { q: mail })).entries.filter((entry) => entry.user?.mail === mail).reverse()

/** Entries written straight into the table, at given instants, for `userId`. */
async function entriesAt(userId: number | null, dates: string[], extra: Partial<NewLog> = {}) {
  for (const date of dates) {
    await db()
      .insertInto('log')
      .values({ date, utilisateur_id: userId, type_log: 'CONNEXION', nom_log: 'CONNEXION', ...extra })
      .execute()
  }
}

describe('GET /rest/bd/logs/: what the API records, as an administrator reads it', () => {
  it('records sign-in, each launch by its application type, sign-out and an administrator’s action, with the browser', async () => {
    const admins = await administrators()
    const user = await createUser({ postes: [currentPost(4, 2), currentPost(1, 1), currentPost(3, 3)] })
    const mail = `${user.login}@example.test`
    const { jwt } = await okBody(
      api().rest.public.bd.login.$post(
        { json: { identifiant: user.login, motDePasse: user.password, captcha: await solvedCaptcha() } },
        { headers: { 'User-Agent': EDGE } },
      ),
    )
    for (const application of [1, 2, 3, 4]) {
      const launched = await call(`/rest/bd/acces/application?idApplication=${application}`, {
        token: jwt.accessToken,
        headers: { 'User-Agent': EDGE },
      })
      expect(launched.status).toBe(200)
    }
    expect((await call('/rest/bd/logout', { method: 'POST', token: jwt.accessToken })).status).toBe(204)

    const entries = await entriesOf(admins.nord, mail)
    expect(entries.map((entry) => [entry.typeLog, entry.nomLog])).toEqual([
      ['CONNEXION', 'CONNEXION'],
      ['APPLI_YARD', 'Yard dangereux'],
      ['APPLI_PESAGE', 'Pesage'],
      ['APPLI_MODRDV', 'Module Rendez vous'],
      ['APPLICATION', 'Facturation'],
      ['DECONNEXION', 'DECONNEXION'],
    ])
    expect(entries[0]).toMatchObject({
      user: { id: user.id, nom: user.login.replace('user', 'Nom'), prenom: user.login.replace('user', 'Prenom'), mail },
      structure: { id: 4, nom: 'Agence Lille' },
      nomNavigateur: 'Microsoft Edge',
      versionNavigateur: '124.0.2478.51',
      source: 'SERVEUR',
    })

    // An administrator's action is theirs, with what it was about in the comment.
    const created = await post(
      '/rest/bd/structure',
      { nom: `Agence ${user.login}`, type: { id: 3 }, parent: { id: 2 } },
      { token: admins.nord },
    )
    expect(created.status).toBeLessThan(300)
    const [action] = await entriesOf(admins.root, `${admins.ids.nord.login}@example.test`)
    expect(action).toMatchObject({
      typeLog: 'ADMINISTRATION',
      nomLog: 'STRUCTURE_CREATION',
      commentaire: expect.stringContaining(`Agence ${user.login}`),
      structure: { id: 2, nom: 'Direction Nord' },
      source: 'SERVEUR',
    })
  })

  it('keeps what a client posts apart as reported by the client, and refuses a forged entry', async () => {
    const admins = await administrators()
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const { accessToken } = await sessionFor(user.id)
    const other = await createUser({ postes: [currentPost(4, 2)] })

    expect((await post(LOGS, { nomLog: 'CONNEXION' }, { token: accessToken })).status).toBe(201)
    const [reported] = await entriesOf(admins.nord, `${user.login}@example.test`)
    expect(reported).toMatchObject({ typeLog: 'CONNEXION', source: 'CLIENT', user: { id: user.id } })

    const before = await db()
      .selectFrom('log')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    const forged = [
      { nomLog: 'CONNEXION', user: { id: other.id } },
      { nomLog: 'CONNEXION', utilisateur: other.id },
      { nomLog: 'CONNEXION', date: '2020-01-01T00:00:00.000Z' },
      { nomLog: 'CONNEXION', typeLog: 'ADMINISTRATION' },
      { nomLog: 'CONNEXION', source: 'SERVEUR' },
      { nomLog: 'ADMINISTRATION' },
      { nomLog: 'Application inconnue' },
    ]
    for (const body of forged) {
      await expectError(await post(LOGS, body, { token: accessToken }), 400, 'VALIDATION_FAILED')
    }
    const after = await db()
      .selectFrom('log')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    expect(after.n).toBe(before.n)
    expect(await entriesOf(admins.nord, `${other.login}@example.test`)).toEqual([])
  })
})

describe('GET /rest/bd/logs/: range, scope, search and pages', () => {
  it('takes whole days in Paris time, both bounds inclusive, either optional', async () => {
    const admins = await administrators()
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const mail = `${user.login}@example.test`
    // 10 March (winter, UTC+1) and 14 July (summer, UTC+2): each day's first and last instants, and
    // the instants just outside them.
    const winter = [
      '2026-03-09T22:59:59.999Z',
      '2026-03-09T23:00:00.000Z',
      '2026-03-10T22:59:59.999Z',
      '2026-03-10T23:00:00.000Z',
    ]
    const summer = [
      '2026-07-13T21:59:59.999Z',
      '2026-07-13T22:00:00.000Z',
      '2026-07-14T21:59:59.999Z',
      '2026-07-14T22:00:00.000Z',
    ]
    await entriesAt(user.id, [...winter, ...summer])
    const dates = async (query: HistoryQuery) =>
      (await history(admins.nord, { q: mail, ...query })).entries.map((entry) => entry.date).reverse()

    expect(await dates({ dateDebut: '20260310', dateFin: '20260310' })).toEqual(winter.slice(1, 3))
    expect(await dates({ dateDebut: '20260714', dateFin: '20260714' })).toEqual(summer.slice(1, 3))
    expect(await dates({ dateDebut: '20260311', dateFin: '20260714' })).toEqual([winter[3], ...summer.slice(0, 3)])
    expect(await dates({ dateFin: '20260310' })).toEqual(winter.slice(0, 3))
    expect(await dates({ dateDebut: '20260715' })).toEqual([summer[3]])
    // The legacy client's 'null' for no bound.
    expect(await dates({ dateDebut: 'null', dateFin: 'null' })).toEqual([...winter, ...summer])
  })

  it('finds an entry by the instant its date says, to the millisecond, on any day from 1970 to 9998', async () => {
    // The indexes hold `log.instant`, computed by SQLite from the date (migration 0044): it must be the date's own
    // milliseconds, for every date the history takes, or a range would gain or lose entries at its ends.
    let seed = 64
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
      return seed / 2 ** 31
    }
    const last = Date.UTC(9998, 11, 31, 23, 59, 59, 999)
    const dates = [0, 1, 999, 1_000, last, ...Array.from({ length: 2_000 }, () => Math.floor(random() * last))].map(
      (ms) => new Date(ms).toISOString(),
    )
    const written = await db()
      .insertInto('log')
      .columns(['date', 'utilisateur_id', 'type_log', 'nom_log'])
      .expression((eb) =>
        eb
          .selectFrom(sql<{ value: string }>`json_each(${JSON.stringify(dates)})`.as('d'))
          .select([
            'd.value',
            sql<null>`null`.as('u'),
            sql<string>`'ADMINISTRATION'`.as('t'),
            sql<string>`'INSTANT'`.as('n'),
          ]),
      )
      .returning(['date', 'instant'])
      .execute()
    expect(written).toHaveLength(dates.length)
    const wrong = written.filter((row) => row.instant !== Date.parse(row.date))
    expect(wrong).toEqual([])
    await db().deleteFrom('log').where('nom_log', '=', 'INSTANT').execute()
  })

  it('refuses a day that is not one, or a range that ends before it starts', async () => {
    const admins = await administrators()
    for (const query of [
      'dateDebut=20260230',
      'dateFin=2026-03-10',
      'dateDebut=1',
      'dateDebut=20260311&dateFin=20260310',
    ]) {
      const error = await expectError(await call(`${LOGS}?${query}`, { token: admins.nord }), 400, 'VALIDATION_FAILED')
      expect(error.attributs).toEqual([
        expect.objectContaining({ field: query.includes('&') ? 'dateFin' : query.split('=')[0] }),
      ])
    }
  })

  it('shows an administrator the entries of the users in their scope only', async () => {
    const admins = await administrators()
    const lille = await createUser({ postes: [currentPost(4, 2)] })
    const sud = await createUser({ postes: [currentPost(3, 3)] })
    const elsewhere = await createUser({ domain: 'https://ailleurs.example.test' })
    const gone = await createUser({ postes: [currentPost(4, 2)] })
    const day = '2025-01-15T10:00:00.000Z'
    await entriesAt(lille.id, [day], { commentaire: 'portee-lille' })
    await entriesAt(sud.id, [day], { commentaire: 'portee-sud' })
    await entriesAt(elsewhere.id, [day], { commentaire: 'portee-ailleurs' })
    await entriesAt(gone.id, [day], { commentaire: 'portee-supprime' })
    await db().deleteFrom('poste').where('utilisateur_id', '=', gone.id).execute()
    await db().deleteFrom('utilisateur').where('id', '=', gone.id).execute()

    const seen = async (token: string) =>
      (await history(token, { dateDebut: '20250115', dateFin: '20250115' })).entries
        .map((entry) => entry.commentaire)
        .filter((comment) => comment?.startsWith('portee-'))
        .sort()
    expect(await seen(admins.root)).toEqual(['portee-lille', 'portee-sud', 'portee-supprime'])
    expect(await seen(admins.nord)).toEqual(['portee-lille'])
    expect(await seen(admins.sud)).toEqual(['portee-sud'])
    const [orphan] = (await history(admins.root, { dateDebut: '20250115', dateFin: '20250115' })).entries.filter(
      (entry) => entry.commentaire === 'portee-supprime',
    )
    expect(orphan).toMatchObject({ user: null, structure: null })
  })

  it("shows a carrier's registration entry to the administrators of its company's scope only", async () => {
    const admins = await administrators()
    // A registration with a company in Agence Lille (Direction Nord's), waiting in Nord's queue.
    const pending = await createUser({
      registration: 'PENDING',
      password: null,
      actif: false,
      registrationStructure: 4,
    })
    const day = '2025-01-16T10:00:00.000Z'
    await entriesAt(pending.id, [day], {
      type_log: 'ADMINISTRATION',
      nom_log: 'INSCRIPTION',
      commentaire: 'inscrit-lille',
    })
    const seen = async (token: string) =>
      (await history(token, { dateDebut: '20250116', dateFin: '20250116' })).entries
        .map((entry) => entry.commentaire)
        .filter((comment) => comment === 'inscrit-lille')
    expect(await seen(admins.root)).toEqual(['inscrit-lille'])
    expect(await seen(admins.nord)).toEqual(['inscrit-lille'])
    expect(await seen(admins.sud)).toEqual([])
  })

  it('answers 403 to a user who is not an administrator, and 401 without a session', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const { accessToken } = await sessionFor(user.id)
    await expectError(await call(LOGS, { token: accessToken }), 403, 'FORBIDDEN')
    await expectError(await call(`${LOGS}export`, { token: accessToken }), 403, 'FORBIDDEN')
    await expectError(await call(LOGS), 401, 'UNAUTHORIZED')
    await expectError(await call(`${LOGS}export`), 401, 'UNAUTHORIZED')
  })

  it('keeps no total for a caller it refuses: a user, a revoked session, a deleted administrator', async () => {
    const totals = async () => (await db().selectFrom('utilisateur_liste_total').select('cle').execute()).length
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const revoked = await createUser({ admin: true, postes: [currentPost(1, 1)] })
    const deleted = await createUser({ admin: true, postes: [currentPost(1, 1)] })
    const [userSession, revokedSession, deletedSession] = await Promise.all([
      sessionFor(user.id),
      sessionFor(revoked.id),
      sessionFor(deleted.id),
    ])
    await db()
      .updateTable('refresh_token')
      .set({ revoked_at: new Date().toISOString() })
      .where('utilisateur_id', '=', revoked.id)
      .execute()
    await db().updateTable('utilisateur').set({ supprime: 1 }).where('id', '=', deleted.id).execute()
    const before = await totals()
    for (const q of ['un', 'deux', 'trois']) {
      const query = `${LOGS}?page=1&q=${q}`
      await expectError(await call(query, { token: userSession.accessToken }), 403, 'FORBIDDEN')
      await expectError(await call(query, { token: revokedSession.accessToken }), 401, 'INVALID_TOKEN')
      await expectError(await call(query, { token: deletedSession.accessToken }), 401, 'INVALID_TOKEN')
    }
    expect(await totals()).toBe(before)
    // An administrator's read keeps its total, as before.
    const admin = await createUser({ admin: true, postes: [currentPost(1, 1)] })
    await history((await sessionFor(admin.id)).accessToken, { page: 1, q: 'quatre' })
    expect(await totals()).toBe(before + 1)
    // With every filter and more words than are looked for, the statements still fit D1's 100 values.
    const everything: HistoryQuery = { dateDebut: '20240101', dateFin: '20991231', type: 'CONNEXION', taille: 5 }
    await history((await sessionFor(admin.id)).accessToken, { ...everything, page: 1, q: 'a b c d e f g h i j' })
    expect(await totals()).toBe(before + 2)
  })

  it('pages newest first with the total in X-Total-Count, and filters by type', async () => {
    const admins = await administrators()
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const mail = `${user.login}@example.test`
    const dates = Array.from({ length: 12 }, (_, i) => `2025-02-${String(i + 1).padStart(2, '0')}T08:00:00.000Z`)
    await entriesAt(user.id, dates)
    await entriesAt(user.id, ['2025-02-20T08:00:00.000Z'], { type_log: 'DECONNEXION', nom_log: 'DECONNEXION' })

    const first = await history(admins.nord, { q: mail, page: 1, taille: 5 })
    expect(first.total).toBe(13)
    expect(first.entries.map((entry) => entry.date)).toEqual(['2025-02-20T08:00:00.000Z', ...dates.slice(8).reverse()])
    const third = await history(admins.nord, { q: mail, page: 3, taille: 5 })
    expect(third.entries.map((entry) => entry.date)).toEqual(dates.slice(0, 3).reverse())
    const signOuts = await history(admins.nord, { q: mail, type: 'DECONNEXION', page: 1 })
    expect(signOuts.total).toBe(1)
    expect(signOuts.entries.map((entry) => entry.typeLog)).toEqual(['DECONNEXION'])
  })

  it('keeps its total right as entries are written and as the scope changes', async () => {
    const admins = await administrators()
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const may = { q: `${user.login}@example.test`, dateDebut: '20250501', dateFin: '20250531', page: 1 }
    await entriesAt(user.id, ['2025-05-02T08:00:00.000Z', '2025-05-03T08:00:00.000Z'])
    expect((await history(admins.nord, may)).total).toBe(2)
    // Counted again from the kept total: one more in the range, one outside it.
    await entriesAt(user.id, ['2025-05-04T08:00:00.000Z', '2025-06-04T08:00:00.000Z'])
    expect((await history(admins.nord, may)).total).toBe(3)
    // The user moves to Direction Sud: out of Nord's scope, into Sud's.
    await db()
      .updateTable('poste')
      .set({ structure_id: 3, fonction_id: 3 })
      .where('utilisateur_id', '=', user.id)
      .execute()
    expect((await history(admins.nord, may)).total).toBe(0)
    expect((await history(admins.sud, may)).total).toBe(3)
    // A new address: the search by the old one finds nothing any more.
    await db()
      .updateTable('utilisateur')
      .set({ mail: `${user.login}.parti@ailleurs.test` })
      .where('id', '=', user.id)
      .execute()
    expect((await history(admins.sud, may)).total).toBe(0)
  })

  it('searches the user’s names and mail, the action label in either language and the day', async () => {
    const admins = await administrators()
    const user = await createUser({ postes: [currentPost(4, 2)] })
    await db().updateTable('utilisateur').set({ nom: 'Lefèvre', prenom: 'Zoé' }).where('id', '=', user.id).execute()
    const mail = `${user.login}@example.test`
    await entriesAt(user.id, ['2025-03-05T09:00:00.000Z'])
    await entriesAt(user.id, ['2025-03-06T09:00:00.000Z'], { type_log: 'DECONNEXION', nom_log: 'DECONNEXION' })
    await entriesAt(user.id, ['2025-03-07T09:00:00.000Z'], {
      type_log: 'ADMINISTRATION',
      nom_log: 'UTILISATEUR_SUPPRESSION',
    })
    const found = async (q: string) =>
      (await history(admins.nord, { q, dateDebut: '20250301', dateFin: '20250331' })).entries
        .filter((entry) => entry.user?.id === user.id)
        .map((entry) => entry.date.slice(0, 10))
    const all = ['2025-03-07', '2025-03-06', '2025-03-05']
    expect(await found('lefevre zoe')).toEqual(all)
    expect(await found(`ZOÉ ${mail.toUpperCase()}`)).toEqual(all)
    expect(await found('déconnexion lefèvre')).toEqual(['2025-03-06'])
    expect(await found('sign-out lefevre')).toEqual(['2025-03-06'])
    expect(await found('suppression lefevre')).toEqual(['2025-03-07'])
    expect(await found('06/03/2025 lefevre')).toEqual(['2025-03-06'])
    expect(await found('6/3/2025 lefevre')).toEqual(['2025-03-06'])
    expect(await found('lefevre personne')).toEqual([])
  })

  it('searches the comment too: who deleted a user is found by that user’s login', async () => {
    const admins = await administrators()
    const gone = await createUser({ postes: [currentPost(4, 2)] })
    const deleted = await call(`/rest/bd/utilisateur/suppression/${gone.id}`, { method: 'DELETE', token: admins.nord })
    expect(deleted.status).toBe(204)
    const { entries } = await history(admins.root, { q: gone.login })
    const deletion = entries.find((entry) => entry.nomLog === 'UTILISATEUR_SUPPRESSION')
    expect(deletion?.user?.id).toBe(admins.ids.nord.id)
    expect(deletion?.commentaire).toBe(`#${gone.id} ${gone.login}`)
    expect((await history(admins.root, { q: `${gone.login} suppression` })).entries.map((e) => e.id)).toEqual([
      deletion?.id,
    ])
  })
})

describe('GET /rest/bd/logs/export', () => {
  const exported = async (token: string, query: Record<string, string>, language = 'fr-FR') => {
    const response = await call(`${LOGS}export?${new URLSearchParams(query)}`, {
      token,
      headers: { 'Accept-Language': language },
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('Content-Type')).toBe('text/csv; charset=utf-8')
    expect(response.headers.get('Content-Disposition')).toMatch(/^attachment; filename="historique-[\d-]+\.csv"$/)
    const bytes = new Uint8Array(await response.arrayBuffer())
    return { bytes, text: new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes) }
  }

  it('is the filtered entries of the scope as UTF-8 CSV with a byte order mark, itself recorded', async () => {
    const admins = await administrators()
    const user = await createUser({ postes: [currentPost(4, 2)] })
    await db().updateTable('utilisateur').set({ nom: 'Général', prenom: 'Anaïs' }).where('id', '=', user.id).execute()
    const sud = await createUser({ postes: [currentPost(3, 3)] })
    await entriesAt(user.id, ['2025-04-02T08:30:00.000Z'], {
      commentaire: '=HYPERLINK("x";"y")',
      nom_navigateur: 'Firefox',
    })
    await entriesAt(sud.id, ['2025-04-02T08:30:00.000Z'])

    const { bytes, text } = await exported(admins.nord, { dateDebut: '20250402', dateFin: '20250402' })
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
    const lines = text.slice(1).trimEnd().split('\r\n')
    expect(lines).toEqual([
      'Date;Heure;Nom;Prénom;Mail;Structure;Action;Code;Commentaire;Navigateur;Version;Source',
      `02/04/2025;10:30:00;Général;Anaïs;${user.login}@example.test;Agence Lille;Connexion;CONNEXION;"'=HYPERLINK(""x"";""y"")";Firefox;;Serveur`,
    ])
    const [recorded] = (await history(admins.root, { q: 'export', type: 'ADMINISTRATION' })).entries.filter(
      (entry) => entry.user?.id === admins.ids.nord.id,
    )
    expect(recorded).toMatchObject({ nomLog: 'HISTORIQUE_EXPORT', commentaire: 'dateDebut=20250402 dateFin=20250402' })

    const english = await exported(admins.sud, { dateDebut: '20250402', dateFin: '20250402' }, 'en-GB')
    expect(english.text.slice(1).trimEnd().split('\r\n')).toEqual([
      'Date,Time,Last name,First name,Mail,Structure,Action,Code,Comment,Browser,Version,Source',
      `02/04/2025,10:30:00,${sud.login.replace('user', 'Nom')},${sud.login.replace('user', 'Prenom')},${sud.login}@example.test,Direction Sud,Sign-in,CONNEXION,,,,Server`,
    ])
  })

  it('neutralises a cell a spreadsheet could read as a formula, after any leading blank or control too', async () => {
    const admins = await administrators()
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const risky = [
      '=1+1',
      '+1',
      '-1',
      '@SUM(A1)',
      '\u0000=1+1',
      '\n=1+1',
      '\r=1+1',
      '\t=1+1',
      ' =1+1',
      '\u00a0=1+1',
      ' \t\r\n\u0000=1+1',
      '\u0000',
      '＝1+1',
      '＋1',
      '－1',
      '＠SUM(A1)',
      ' ＝1+1',
    ]
    const day = '2025-05-06T08:00:00.000Z'
    for (const commentaire of risky) await entriesAt(user.id, [day], { commentaire })
    await entriesAt(user.id, [day], { commentaire: 'Bonjour = salut' })
    const { text } = await exported(admins.nord, { dateDebut: '20250506', dateFin: '20250506' })
    // Each as a quote first, inside the cell's own quotes when it needs them.
    const neutralised = (value: string) => {
      const cell = `'${value}`
      return /[",;\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell
    }
    for (const commentaire of risky)
      expect(text, JSON.stringify(commentaire)).toContain(`;${neutralised(commentaire)};`)
    expect(text).toContain(';Bonjour = salut;')
  })

  it('streams every entry of a long range, newest first, across its reads', async () => {
    const admins = await administrators()
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const start = Date.parse('2024-01-01T12:00:00.000Z')
    const values = Array.from({ length: 1203 }, (_, i) => ({
      date: new Date(start + i * 3_600_000).toISOString(),
      utilisateur_id: user.id,
      type_log: 'CONNEXION' as const,
      nom_log: 'CONNEXION',
    }))
    for (let i = 0; i < values.length; i += 20)
      await db()
        .insertInto('log')
        .values(values.slice(i, i + 20))
        .execute()
    const { text } = await exported(admins.nord, {
      q: `${user.login}@example.test`,
      dateDebut: '20240101',
      dateFin: '20241231',
    })
    const rows = text.trimEnd().split('\r\n').slice(1)
    expect(rows).toHaveLength(1203)
    const times = rows.map((row) => row.split(';').slice(0, 2).join(' '))
    expect(times[0]).toBe('20/02/2024 15:00:00')
    expect(times.at(-1)).toBe('01/01/2024 13:00:00')
  })
})

describe('GET /rest/bd/logs/ on a large scope', () => {
  it(`answers the same pages and totals when the scope holds more than ${SMALL_SCOPE_POSTS} users`, async () => {
    const admins = await administrators()
    const [lille, sud, postless, elsewhere] = await Promise.all([
      createUser({ postes: [currentPost(4, 2)] }),
      createUser({ postes: [currentPost(3, 3)] }),
      createUser(),
      createUser({ domain: 'https://ailleurs.example.test' }),
    ])
    const september = (day: number, hour: number) =>
      `2023-09-${String(day).padStart(2, '0')}T${String(hour).padStart(2, '0')}:00:00.000Z`
    for (const [hour, user] of [lille, sud, postless, elsewhere].entries()) {
      await entriesAt(user.id, [september(4, hour), september(12, hour), september(20, hour)])
      await entriesAt(user.id, [september(25, hour)], { type_log: 'DECONNEXION', nom_log: 'DECONNEXION' })
    }
    const queries: HistoryQuery[] = [{}, { type: 'DECONNEXION' }, { q: postless.login }, { q: '12/09/2023' }]
    const answers = async () => {
      const out: Record<string, { ids: number[]; total: number }> = {}
      for (const [who, token] of Object.entries({ root: admins.root, nord: admins.nord, sud: admins.sud })) {
        for (const [i, query] of queries.entries()) {
          for (const page of [1, 2]) {
            const { entries, total } = await history(token, {
              dateDebut: '20230901',
              dateFin: '20230930',
              page,
              taille: 3,
              ...query,
            })
            out[`${who} ${i} ${page}`] = { ids: entries.map((entry) => entry.id), total }
          }
        }
      }
      return out
    }
    const few = await answers()
    // Nord: Lille's; Sud: its own; the root: all but elsewhere — the never-posted user's too (DESIGN §4).
    expect([few['root 0 1']?.total, few['nord 0 1']?.total, few['sud 0 1']?.total]).toEqual([12, 4, 4])
    expect(few['sud 1 1']?.total).toBe(1)

    // Users of the domain who never had a post, enough for the root's scope to be read down the date index.
    await env.DB.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
       INSERT INTO utilisateur (login, nom, prenom, mail, domain) SELECT 'foule' || i, 'Foule', 'P' || i, 'foule' || i || '@example.test', ?2 FROM n`,
    )
      .bind(SMALL_SCOPE_POSTS + 10, ORIGIN)
      .run()
    expect(await answers()).toEqual(few)

    const [crowd] = await db().selectFrom('utilisateur').select('id').where('login', '=', 'foule7').execute()
    await entriesAt(crowd?.id ?? null, [september(30, 8)])
    for (const [token, seen] of [
      [admins.root, true],
      [admins.nord, false],
      [admins.sud, false],
    ] as const) {
      const { entries } = await history(token, { dateDebut: '20230901', dateFin: '20230930', page: 1, taille: 3 })
      expect(entries[0]?.user?.mail === 'foule7@example.test').toBe(seen)
    }
    const latest = await history(admins.root, { dateDebut: '20230901', dateFin: '20230930', page: 1 })
    expect(latest.total).toBe(13)
  })
})
