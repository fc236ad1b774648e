import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import { api, okBody } from './client'
import {
  call,
  createOrganisation,
  createUser,
  currentPost,
  db,
  expectError,
  isoDate,
  ORIGIN,
  post,
  sessionFor,
  wireDate,
} from './helpers'

/**
 * Whose a user without a live post is (DESIGN §4): the scope of the structure of the post that ended
 * last (or, for a carrier who never had one, of the company they registered with); anyone else
 * without a post only the whole tree's administrators'. A pending registration is no user of the
 * generic endpoints at all: only the authorisation queue handles it.
 * The organisation of the helpers: Groupe (1) → Direction Nord (2) → Agence Lille (4), Groupe →
 * Direction Sud (3). Sud's administrator reaches for Nord's people; every refusal writes nothing.
 */
let root: string
let nord: string
let sud: string

const ended = (structureId: number, fonctionId: number, daysAgo: number) => ({
  structureId,
  fonctionId,
  from: isoDate(-daysAgo - 30),
  to: isoDate(-daysAgo),
})

/** The people of the finding: a Nord employee who lost their post, a deleted one, a pending registration, a never-posted user. */
async function nordPeople() {
  const [former, deleted, pending, never] = await Promise.all([
    createUser({ postes: [ended(4, 2, 10)] }),
    createUser({ supprime: true, postes: [ended(4, 2, 10)] }),
    createUser({ registration: 'PENDING', password: null, actif: false, registrationStructure: 4 }),
    createUser(),
  ])
  return { former, deleted, pending, never }
}

const put = (path: string, body: unknown, token: string) =>
  call(path, { method: 'PUT', body: JSON.stringify(body), token })
const del = (path: string, token: string) => call(path, { method: 'DELETE', token })

/** Every generic call an administrator could make about user `id`, by name (a post in `place`, of their scope). */
function callsAbout(id: number, token: string, place = { structure: 3, fonction: 3 }) {
  return {
    read: () => call(`/rest/bd/utilisateur/${id}`, { token }),
    edit: () =>
      put(`/rest/bd/utilisateur/${id}`, { nom: 'Pris', prenom: 'Compte', mail: `pris-${id}@evil.test` }, token),
    disable: () => put('/rest/bd/utilisateur/state', { id, actif: false }, token),
    enable: () => put('/rest/bd/utilisateur/state', { id, actif: true }, token),
    promote: () => put('/rest/bd/utilisateur/admin', { id, admin: true }, token),
    remove: () => del(`/rest/bd/utilisateur/suppression/${id}`, token),
    restore: () => del(`/rest/bd/utilisateur/retablir/${id}`, token),
    poste: () =>
      post(
        '/rest/bd/poste',
        {
          structure: { id: place.structure },
          fonction: { id: place.fonction },
          utilisateur: { id },
          dateDebut: wireDate(isoDate(0)),
          dateFin: wireDate(isoDate(30)),
        },
        { token },
      ),
  }
}

/** Everything stored about a user: their row, posts, links, mails and the audit entries naming them. */
async function footprint(id: number) {
  const d = db()
  return {
    user: await d.selectFrom('utilisateur').selectAll().where('id', '=', id).executeTakeFirst(),
    postes: await d.selectFrom('poste').selectAll().where('utilisateur_id', '=', id).execute(),
    tokens: await d.selectFrom('mail_token').selectAll().where('utilisateur_id', '=', id).execute(),
    outbox: await d.selectFrom('outbox').selectAll().where('utilisateur_id', '=', id).execute(),
    logs: await d.selectFrom('log').selectAll().where('commentaire', 'like', `#${id} %`).execute(),
  }
}

/** User `id` as `token`'s administrator reads them. */
const userAs = (token: string, id: number) =>
  okBody(api(token).rest.bd.utilisateur[':id'].$get({ param: { id }, query: {} }))

/** The users of the list as `token`'s administrator sees it. */
async function listed(token: string) {
  return (await okBody(api(token).rest.bd.utilisateur.liste.$get({ query: {} }))).map((u) => u.id)
}

/** The users whose entries `token`'s administrator reads in the history of September 2023. */
async function historyAuthors(token: string) {
  const entries = await okBody(
    api(token).rest.bd.logs.index.$get({ query: { dateDebut: '20230901', dateFin: '20230930' } }),
  )
  return entries.map((entry) => entry.user?.id)
}

beforeAll(async () => {
  await createOrganisation()
  const [rootUser, nordUser, sudUser] = await Promise.all([
    createUser({ admin: true, postes: [currentPost(1, 1)] }),
    createUser({ admin: true, postes: [currentPost(2, 1)] }),
    createUser({ admin: true, postes: [currentPost(3, 3)] }),
  ])
  root = (await sessionFor(rootUser.id)).accessToken
  nord = (await sessionFor(nordUser.id)).accessToken
  sud = (await sessionFor(sudUser.id)).accessToken
})

describe('an administrator of Direction Sud reaching for Nord’s people without a post', () => {
  it('is refused every generic call (403) and writes nothing', async () => {
    const { former, deleted, never } = await nordPeople()
    for (const target of [former, deleted, never]) {
      const before = await footprint(target.id)
      const calls = callsAbout(target.id, sud)
      for (const [name, send] of Object.entries(calls)) {
        const response = await send()
        expect(`${name} ${response.status}`).toBe(`${name} 403`)
      }
      expect(await footprint(target.id)).toEqual(before)
    }
  })

  it('does not list them nor show their history', async () => {
    const { former, deleted, never } = await nordPeople()
    const seen = await listed(sud)
    for (const target of [former, deleted, never]) expect(seen).not.toContain(target.id)
    await db()
      .insertInto('log')
      .values({
        date: '2023-09-10T10:00:00.000Z',
        utilisateur_id: former.id,
        type_log: 'CONNEXION',
        nom_log: 'CONNEXION',
      })
      .execute()
    expect(await historyAuthors(sud)).not.toContain(former.id)
    expect(await historyAuthors(nord)).toContain(former.id)
    expect(await historyAuthors(root)).toContain(former.id)
  })

  it('follows the post that ended last, not an earlier one', async () => {
    const backNorth = await createUser({ postes: [ended(3, 3, 40), ended(4, 2, 5)] })
    const wentSouth = await createUser({ postes: [ended(4, 2, 40), ended(3, 3, 5)] })
    await expectError(await callsAbout(backNorth.id, sud).read(), 403, 'FORBIDDEN')
    expect(await userAs(nord, backNorth.id)).toMatchObject({
      modification: true,
    })
    expect(await userAs(sud, wentSouth.id)).toMatchObject({
      modification: true,
    })
    await expectError(await callsAbout(wentSouth.id, nord).read(), 403, 'FORBIDDEN')
  })
})

describe('the administrators whose scope held the last post, and the whole tree’s', () => {
  it('let Nord’s administrator and the root’s manage a Nord employee who lost their post', async () => {
    const { former } = await nordPeople()
    for (const token of [nord, root]) {
      const body = await userAs(token, former.id)
      expect(body).toMatchObject({ id: former.id, modification: true })
      expect((await listed(token)).includes(former.id)).toBe(true)
    }
    expect((await callsAbout(former.id, nord).disable()).status).toBe(200)
    expect((await callsAbout(former.id, root).enable()).status).toBe(200)
  })

  it('let Nord’s administrator restore a deleted Nord employee', async () => {
    const { deleted } = await nordPeople()
    expect((await callsAbout(deleted.id, nord).restore()).status).toBe(204)
    const row = await db().selectFrom('utilisateur').select('supprime').where('id', '=', deleted.id).executeTakeFirst()
    expect(row?.supprime).toBe(0)
  })

  it('leave a user who never had a post to the whole tree’s administrators of their domain', async () => {
    const { never } = await nordPeople()
    await expectError(await callsAbout(never.id, nord).read(), 403, 'FORBIDDEN')
    expect(await listed(nord)).not.toContain(never.id)
    const body = await userAs(root, never.id)
    expect(body.modification).toBe(true)
    expect(await listed(root)).toContain(never.id)
    const elsewhere = await createUser({ domain: 'https://ailleurs.example.test' })
    await expectError(await callsAbout(elsewhere.id, root).read(), 403, 'FORBIDDEN')
  })

  it('give a carrier who never had a post to the scope of the company they registered with', async () => {
    const carrier = await createUser({ registrationStructure: 4 })
    expect((await userAs(nord, carrier.id)).modification).toBe(true)
    await expectError(await callsAbout(carrier.id, sud).read(), 403, 'FORBIDDEN')
  })
})

describe('a pending registration', () => {
  it('is unknown to every generic call, whoever the administrator, and nothing is written', async () => {
    const { pending } = await nordPeople()
    const before = await footprint(pending.id)
    for (const token of [sud, nord, root]) {
      const calls = callsAbout(pending.id, token, token === nord ? { structure: 4, fonction: 2 } : undefined)
      const { poste, ...others } = calls
      for (const [name, send] of Object.entries(others)) {
        const response = await send()
        expect(`${name} ${response.status}`).toBe(`${name} 404`)
      }
      await expectError(await poste(), 400, 'VALIDATION_FAILED')
      expect(await listed(token)).not.toContain(pending.id)
    }
    expect(await footprint(pending.id)).toEqual(before)
  })

  it('stays in the authorisation queue of Nord, not of Sud', async () => {
    const { pending } = await nordPeople()
    const queue = async (token: string) =>
      (await okBody(api(token).rest.bd.authorize.get.user.all.$get({ query: {} }))).map((u) => u.id)
    expect(await queue(nord)).toContain(pending.id)
    expect(await queue(sud)).not.toContain(pending.id)
  })
})

describe('the scope on a large number of postless users', () => {
  it('keeps former employees in their last scope when the domain holds many users without a post', async () => {
    const { former } = await nordPeople()
    await env.DB.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1100)
       INSERT INTO utilisateur (login, nom, prenom, mail, domain) SELECT 'vide' || i, 'Vide', 'P' || i, 'vide' || i || '@example.test', ?1 FROM n`,
    )
      .bind(ORIGIN)
      .run()
    expect(await listed(sud)).not.toContain(former.id)
    expect(await listed(nord)).toContain(former.id)
    const nordList = await call('/rest/bd/utilisateur/liste?page=1&taille=5&q=vide', { token: nord })
    expect(nordList.headers.get('X-Total-Count')).toBe('0')
    const rootList = await call('/rest/bd/utilisateur/liste?page=1&taille=5&q=vide', { token: root })
    expect(rootList.headers.get('X-Total-Count')).toBe('1100')
  })
})
