import { beforeAll, describe, expect, it } from 'vitest'
import type { z } from 'zod'
import type { applicationListQuery } from '../../../worker-api/contract/catalogue/catalogue'
import { api, okBody } from '../client'
import { call, createOrganisation, createUser, currentPost, db, expectError, isoDate, signedInUser } from '../helpers'

/**
 * The catalogue's reads (GET rest/bd/application and /{id}): root administrators only, the functions
 * that grant each application, and how many users may launch it today, counted as the launcher derives
 * access (DESIGN §4). The organisation of helpers.ts: fonction 2 (Agent de quai, Agence Lille) grants
 * 1 Yard dangereux and 2 Pesage; 3 (Responsable, Direction Sud) grants 3 Module Rendez vous; 1
 * (Directeur, the root) grants 4 Facturation.
 */

const catalogue = (token: string | undefined, search = '') => call(`/rest/bd/application${search}`, { token })
const listed = async (token: string, query: z.input<typeof applicationListQuery> = {}) => {
  const response = await api(token).rest.bd.application.$get({ query })
  expect(response.status).toBe(200)
  return { items: await okBody(response), total: response.headers.get('X-Total-Count') }
}

let root: string
let agent: { id: number; token: string }
let lilleAdmin: string
let director: string

beforeAll(async () => {
  await createOrganisation()
  // The root administrator holds a current post on the root (Directeur: Facturation).
  root = (await signedInUser({ admin: true, postes: [currentPost(1, 1)] })).jwt.accessToken
  const signedIn = await signedInUser({ postes: [currentPost(4, 2)] })
  agent = { id: signedIn.id, token: signedIn.jwt.accessToken }
  // Who may not launch Yard dangereux and Pesage today, though a post of Agent de quai names them: an
  // inactive account, a deleted one, a pending registration, one invited who has not chosen a password
  // (they cannot sign in yet), a post that ended, a post to come.
  await createUser({ actif: false, postes: [currentPost(4, 2)] })
  await createUser({ registration: 'INVITED', password: null, postes: [currentPost(4, 2)] })
  await createUser({ supprime: true, postes: [currentPost(4, 2)] })
  await createUser({ registration: 'PENDING', password: null, postes: [currentPost(4, 2)] })
  await createUser({ postes: [{ structureId: 4, fonctionId: 2, from: isoDate(-60), to: isoDate(-1) }] })
  await createUser({ postes: [{ structureId: 4, fonctionId: 2, from: isoDate(1), to: isoDate(60) }] })
  // A second agent, with two posts of the same function: counted once. Agence Lille's administrator,
  // an agent too: the third who may launch them.
  await createUser({ postes: [currentPost(4, 2), currentPost(4, 2, 10)] })
  lilleAdmin = (await signedInUser({ admin: true, postes: [currentPost(4, 2)] })).jwt.accessToken
  // A director on the root who is no administrator: with the root administrator, two for Facturation.
  director = (await signedInUser({ postes: [currentPost(1, 1)] })).jwt.accessToken
})

describe('GET /rest/bd/application', () => {
  it('answers anonymous callers 401, users and administrators of a sub-tree 403', async () => {
    await expectError(await catalogue(undefined), 401, 'UNAUTHORIZED')
    await expectError(await catalogue(agent.token), 403, 'FORBIDDEN')
    await expectError(await catalogue(lilleAdmin), 403, 'FORBIDDEN')
    await expectError(await call('/rest/bd/application/1', { token: lilleAdmin }), 403, 'FORBIDDEN')
    // A post on the root without the administrator's flag is no administrator.
    await expectError(await catalogue(director), 403, 'FORBIDDEN')
  })

  it('gives a root administrator every application, by name, with its grants and who may launch it today', async () => {
    const { items, total } = await listed(root)
    expect(total).toBe('4')
    expect(items.map((a) => a.libelle)).toEqual(['Facturation', 'Module Rendez vous', 'Pesage', 'Yard dangereux'])
    const pesage = items.find((a) => a.id === 2)
    expect(pesage).toEqual({
      id: 2,
      libelle: 'Pesage',
      icone: 'scale',
      url: '/demo-app/pesage?lang=fr',
      actif: true,
      demandable: false,
      protocole: 'CODE',
      oidc: null,
      saml: null,
      fonctions: [{ id: 2, libelle: 'Agent de quai', structure: { id: 4, nom: 'Agence Lille' } }],
      nbFonctions: 1,
      // The three agents: not the inactive, deleted, pending, former or future holders.
      nbUtilisateurs: 3,
    })
    expect(items.find((a) => a.id === 4)?.nbUtilisateurs).toBe(2)
    expect(items.find((a) => a.id === 3)?.nbUtilisateurs).toBe(0)
  })

  it('pages, sorts and searches in SQL; a long or many-word search is an answer, not an error', async () => {
    const page = await listed(root, { page: 2, taille: 3 })
    expect(page.total).toBe('4')
    expect(page.items.map((a) => a.libelle)).toEqual(['Yard dangereux'])
    const byUsers = await listed(root, { tri: '-nbUtilisateurs' })
    expect(byUsers.items.map((a) => [a.libelle, a.nbUtilisateurs])).toEqual([
      ['Pesage', 3],
      ['Yard dangereux', 3],
      ['Facturation', 2],
      ['Module Rendez vous', 0],
    ])
    expect((await listed(root, { tri: '-libelle' })).items[0]?.libelle).toBe('Yard dangereux')
    const searched = await listed(root, { q: '  PES  ', page: 1 })
    expect([searched.total, searched.items.map((a) => a.libelle)]).toEqual(['1', ['Pesage']])
    const words = Array.from({ length: 30 }, () => 'ab').join(' ')
    for (const q of [words, 'é'.repeat(30), 'x'.repeat(100)]) {
      const response = await catalogue(root, `?q=${encodeURIComponent(q)}&page=1`)
      expect(response.status, q).toBe(200)
    }
    // A name with an accent is found as typed.
    await db().insertInto('application').values({ id: 5, libelle: 'Réception', icone: 'truck', url: '/r' }).execute()
    expect((await listed(root, { q: 'récep' })).items.map((a) => a.libelle)).toEqual(['Réception'])
    await db().deleteFrom('application').where('id', '=', 5).execute()
    // Past the 100 characters of a search box: said as such.
    await expectError(await catalogue(root, `?q=${'x'.repeat(101)}`), 400, 'VALIDATION_FAILED')
    await expectError(await catalogue(root, '?tri=url'), 400, 'VALIDATION_FAILED')
  })
})

describe('who may launch each application (nbUtilisateurs)', () => {
  const launchers = async (id: number) => (await listed(root)).items.find((a) => a.id === id)?.nbUtilisateurs
  const keptToday = () =>
    db()
      .selectFrom('utilisateur_liste_total')
      .select(['cle', 'total'])
      .where('cle', 'like', '["application",%')
      .execute()

  it('is counted once and kept until a user, a post or a grant is written', async () => {
    const pesage = await launchers(2)
    expect((await keptToday()).length).toBeGreaterThanOrEqual(4)
    // Kept: a read answers the kept figure without counting again.
    await db()
      .updateTable('utilisateur_liste_total')
      .set({ total: 99 })
      .where('cle', 'like', '["application",%')
      .execute()
    expect(await launchers(2)).toBe(99)
    // A new agent's post empties what was kept: counted again, one more.
    const agentToo = await createUser({ postes: [currentPost(4, 2)] })
    expect(await launchers(2)).toBe((pesage ?? 0) + 1)
    // Their account switched off: one less again.
    await db().updateTable('utilisateur').set({ actif: 0 }).where('id', '=', agentToo.id).execute()
    expect(await launchers(2)).toBe(pesage)
    // A grant given and taken back: Agent de quai now opens Module Rendez vous, then no longer.
    expect(await launchers(3)).toBe(0)
    await db().insertInto('fonction_application').values({ fonction_id: 2, application_id: 3 }).execute()
    expect(await launchers(3)).toBe(pesage)
    await db().deleteFrom('fonction_application').where('fonction_id', '=', 2).where('application_id', '=', 3).execute()
    expect(await launchers(3)).toBe(0)
    // The detail reads what the list keeps.
    const detail = await okBody(api(root).rest.bd.application[':id'].$get({ param: { id: 2 }, query: {} }))
    expect(detail.nbUtilisateurs).toBe(pesage)
  })

  it('counts nothing for a caller the catalogue refuses', async () => {
    await db().deleteFrom('utilisateur_liste_total').execute()
    await expectError(await catalogue(lilleAdmin), 403, 'FORBIDDEN')
    await expectError(await call('/rest/bd/application/2', { token: director }), 403, 'FORBIDDEN')
    expect(await keptToday()).toEqual([])
  })
})

describe('GET /rest/bd/session', () => {
  it('says whether the caller manages the catalogue (racine), as the catalogue decides', async () => {
    const racine = async (token: string) => (await okBody(api(token).rest.bd.session.$get())).racine
    expect(await racine(root)).toBe(true)
    expect(await racine(lilleAdmin)).toBe(false)
    // A post on the root without the administrator's flag.
    expect(await racine(director)).toBe(false)
    expect(await racine(agent.token)).toBe(false)
  })
})

describe('GET /rest/bd/application/{id}', () => {
  it('gives one application, 404 for an unknown one', async () => {
    const yard = await okBody(api(root).rest.bd.application[':id'].$get({ param: { id: 1 }, query: {} }))
    expect([yard.libelle, yard.nbUtilisateurs, yard.fonctions.map((f) => f.id)]).toEqual(['Yard dangereux', 3, [2]])
    await expectError(await call('/rest/bd/application/999', { token: root }), 404, 'NOT_FOUND')
  })
})

describe('an application switched off in the catalogue', () => {
  it('leaves every launcher and its launch answers as an unknown one, its grants kept', async () => {
    const sud = await signedInUser({
      postes: [currentPost(3, 3), { structureId: 3, fonctionId: 2, from: isoDate(5), to: isoDate(9) }],
    })
    const token = sud.jwt.accessToken
    const access = async () =>
      okBody(
        api(token).rest.bd.acces.utilisateur[':userId'].$get({ param: { userId: sud.id }, query: { futurs: 'true' } }),
      )
    await db().updateTable('application').set({ actif: 0 }).where('id', 'in', [1, 3]).execute()
    try {
      // Off: not in today's launcher, nor among what a future post will open (Yard dangereux).
      const off = await access()
      expect(off.accesApplication).toEqual([])
      expect(off.accesFuturs?.map((a) => a.application.id)).toEqual([2])
      await expectError(await call('/rest/bd/acces/application?idApplication=3', { token }), 404, 'NOT_FOUND')
      // Nor may a client report having launched it.
      const reported = await call('/rest/bd/logs/', {
        method: 'POST',
        token,
        body: JSON.stringify({ nomLog: 'Module Rendez vous' }),
      })
      await expectError(reported, 400, 'VALIDATION_FAILED')
      const listedOff = await okBody(api(root).rest.bd.application[':id'].$get({ param: { id: 3 }, query: {} }))
      // Its grants kept; nobody may launch it.
      expect([listedOff.actif, listedOff.fonctions.map((f) => f.id), listedOff.nbUtilisateurs]).toEqual([false, [3], 0])
    } finally {
      await db().updateTable('application').set({ actif: 1 }).where('id', 'in', [1, 3]).execute()
    }
    const on = await access()
    expect(on.accesApplication.map((a) => a.application.id)).toEqual([3])
    expect(on.accesFuturs?.map((a) => a.application.id).sort()).toEqual([1, 2])
    expect((await call('/rest/bd/acces/application?idApplication=3', { token })).status).toBe(200)
    const reported = await call('/rest/bd/logs/', {
      method: 'POST',
      token,
      body: JSON.stringify({ nomLog: 'Module Rendez vous' }),
    })
    expect(reported.status).toBe(201)
  })
})
