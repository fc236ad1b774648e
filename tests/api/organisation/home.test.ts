import { beforeAll, describe, expect, it } from 'vitest'
import { dayStartInstant } from '../../../worker-api/contract/dates'
import type { Home } from '../../../worker-api/contract/organisation/home'
import { api, okBody } from '../client'
import { call, createOrganisation, createUser, currentPost, db, isoDate, signedInUser, wireDate } from '../helpers'

/**
 * GET rest/bd/accueil, the administration home: every figure in the caller's scope, each count the
 * total of the list the page links to. The organisation of helpers.ts: Groupe (1) › Direction Nord
 * (2) › Agence Lille (4, function 2 Agent de quai); Direction Sud (3, function 3 Responsable).
 */

let root: string
let nord: string
let agent: string
const users: Record<string, { id: number }> = {}

const home = (token: string, query: { page?: number } = {}) => okBody(api(token).rest.bd.accueil.$get({ query }))

const total = async (token: string, path: string) => {
  const response = await call(path, { token })
  expect(response.status).toBe(200)
  return Number(response.headers.get('X-Total-Count'))
}

/** An entry of the history at `day` ('YYYY-MM-DD', Paris) plus `minutes` past its midnight. */
async function logAt(userId: number, day: string, type: string, nom: string, source: 'SERVEUR' | 'CLIENT' = 'SERVEUR') {
  const date = new Date(Date.parse(dayStartInstant(day)) + 90 * 60_000).toISOString()
  await db()
    .insertInto('log')
    .values({ date, utilisateur_id: userId, type_log: type as never, nom_log: nom, source })
    .execute()
}

beforeAll(async () => {
  await createOrganisation()
  root = (await signedInUser({ admin: true, postes: [currentPost(1, 1, 400)] })).jwt.accessToken
  nord = (await signedInUser({ admin: true, postes: [currentPost(2, 1, 400)] })).jwt.accessToken
  agent = (await signedInUser({ postes: [currentPost(4, 2, 400)] })).jwt.accessToken
  users.ending = await createUser({ postes: [{ structureId: 4, fonctionId: 2, from: isoDate(-10), to: isoDate(5) }] })
  users.later = await createUser({ postes: [{ structureId: 4, fonctionId: 2, from: isoDate(-10), to: isoDate(60) }] })
  users.sud = await createUser({ postes: [{ structureId: 3, fonctionId: 3, from: isoDate(-10), to: isoDate(3) }] })
  users.continued = await createUser({
    postes: [
      { structureId: 4, fonctionId: 2, from: isoDate(-10), to: isoDate(10) },
      { structureId: 4, fonctionId: 2, from: isoDate(11), to: isoDate(200) },
    ],
  })
  users.inactive = await createUser({
    actif: false,
    postes: [{ structureId: 4, fonctionId: 2, from: isoDate(-10), to: isoDate(4) }],
  })
  users.former = await createUser({ postes: [{ structureId: 4, fonctionId: 2, from: isoDate(-90), to: isoDate(-30) }] })
  users.deleted = await createUser({
    supprime: true,
    postes: [{ structureId: 4, fonctionId: 2, from: isoDate(-10), to: isoDate(6) }],
  })
  // Two carriers waiting under Agence Lille: one link expires tomorrow, the other in three days.
  for (const hours of [24, 72]) {
    const pending = await createUser({ registration: 'PENDING', registrationStructure: 4 })
    await db()
      .updateTable('utilisateur')
      .set({ token_register_expires_at: new Date(Date.now() + hours * 3_600_000).toISOString() })
      .where('id', '=', pending.id)
      .execute()
  }
  // Sign-ins and launches: today, three days ago, and 40 days ago (out of the window).
  await logAt(users.ending.id, isoDate(0), 'CONNEXION', 'CONNEXION')
  await logAt(users.ending.id, isoDate(-3), 'CONNEXION', 'CONNEXION')
  await logAt(users.ending.id, isoDate(-40), 'CONNEXION', 'CONNEXION')
  await logAt(users.sud.id, isoDate(-3), 'CONNEXION', 'CONNEXION')
  await logAt(users.ending.id, isoDate(-1), 'APPLI_PESAGE', 'Pesage')
  await logAt(users.ending.id, isoDate(-2), 'APPLI_PESAGE', 'Pesage')
  await logAt(users.later.id, isoDate(-2), 'APPLI_YARD', 'Yard dangereux')
  await logAt(users.ending.id, isoDate(-40), 'APPLI_YARD', 'Yard dangereux')
  // What a client reports is no launch the portal made.
  await logAt(users.later.id, isoDate(-1), 'APPLI_YARD', 'Yard dangereux', 'CLIENT')
  await logAt(users.sud.id, isoDate(-1), 'APPLICATION', 'Facturation')
})

describe('GET rest/bd/accueil', () => {
  it('counts the users of the scope as the user list does, with the filters the page links with', async () => {
    const figures = await home(nord)
    const list = (filters: string) => total(nord, `/rest/bd/utilisateur/liste?page=1&${filters}`)
    expect(figures.utilisateurs).toEqual({
      avecPoste: await list('poste=true&supprime=false'),
      sansPoste: await list('poste=false&supprime=false'),
      inactifs: await list('actif=false&supprime=false'),
    })
    // Nord's administrator, the agent, ending, later, continued, inactive hold a current post; former
    // none; the deleted user is counted nowhere; Direction Sud's is not Nord's.
    expect(figures.utilisateurs).toEqual({ avecPoste: 6, sansPoste: 1, inactifs: 1 })
    expect((await home(root)).utilisateurs.avecPoste).toBe(8)
  })

  it('counts the registrations waiting in the queue, and those whose link expires within 48 hours', async () => {
    const figures = await home(nord)
    expect(figures.inscriptions).toEqual({ enAttente: 2, liensExpirant: 1 })
    expect(figures.inscriptions.enAttente).toBe(await total(nord, '/rest/bd/authorize/get/user/all?page=1'))
    const sud = (await signedInUser({ admin: true, postes: [currentPost(3, 3)] })).jwt.accessToken
    expect((await home(sud)).inscriptions).toEqual({ enAttente: 0, liensExpirant: 0 })
  })

  it("lists the scope's posts ending within 30 days, soonest first: not one already continued, nor an inactive or deleted user's", async () => {
    const nordPosts = (await home(nord)).postesFinissant
    expect(nordPosts.total).toBe(1)
    expect(nordPosts.items).toEqual([
      {
        id: expect.any(Number),
        dateDebut: wireDate(isoDate(-10)),
        dateFin: wireDate(isoDate(5)),
        utilisateur: { id: users.ending?.id, nom: expect.any(String), prenom: expect.any(String) },
        structure: { id: 4, nom: 'Agence Lille' },
        fonction: { id: 2, libelle: 'Agent de quai' },
        modification: true,
      },
    ])
    const rootPosts = (await home(root)).postesFinissant
    expect(rootPosts.items.map((p) => p.utilisateur.id)).toEqual([users.sud?.id, users.ending?.id])
    // Ten a page: the second is empty, its total the same.
    expect(await home(root, { page: 2 })).toMatchObject({ postesFinissant: { total: 2, items: [] } })
  })

  it('an extended post leaves the list, and the counts follow a write at once', async () => {
    const before = await home(nord)
    const [ending] = before.postesFinissant.items
    const extended = await call('/rest/bd/poste', {
      method: 'PUT',
      token: nord,
      body: JSON.stringify({ id: ending?.id, dateDebut: ending?.dateDebut, dateFin: wireDate(isoDate(365)) }),
    })
    expect(extended.status).toBe(200)
    expect((await home(nord)).postesFinissant).toEqual({ total: 0, items: [] })
    await createUser({ postes: [currentPost(4, 2)] })
    expect((await home(nord)).utilisateurs.avecPoste).toBe(before.utilisateurs.avecPoste + 1)
  })

  it('charts the sign-ins of the last 30 days by day (Paris), as the history counts them', async () => {
    const { connexions } = await home(nord)
    expect(connexions).toHaveLength(30)
    expect(connexions[0]?.jour).toBe(wireDate(isoDate(-29)))
    expect(connexions[29]?.jour).toBe(wireDate(isoDate(0)))
    // Three days ago: the user of Agence Lille only (Direction Sud's is not Nord's).
    expect(connexions[26]?.nombre).toBe(1)
    const compact = (iso: string) => iso.replaceAll('-', '')
    const history = await total(
      nord,
      `/rest/bd/logs/?page=1&type=CONNEXION&dateDebut=${compact(isoDate(-29))}&dateFin=${compact(isoDate(0))}`,
    )
    expect(connexions.reduce((sum, day) => sum + day.nombre, 0)).toBe(history)
    expect((await home(root)).connexions[26]?.nombre).toBe(2)
  })

  it("counts the launches of the last 30 days per application, most first, the portal's own entries only", async () => {
    expect((await home(nord)).lancements).toEqual([
      { application: 'Pesage', nombre: 2 },
      { application: 'Yard dangereux', nombre: 1 },
    ])
    expect((await home(root)).lancements).toEqual([
      { application: 'Pesage', nombre: 2 },
      { application: 'Facturation', nombre: 1 },
      { application: 'Yard dangereux', nombre: 1 },
    ])
  })

  it('lists a post ending 29 days on, not 30; ten a page', async () => {
    const before = (await home(root)).postesFinissant.total
    for (let n = 0; n < 11; n++) {
      await createUser({ postes: [{ structureId: 3, fonctionId: 3, from: isoDate(-1), to: isoDate(29) }] })
    }
    await createUser({ postes: [{ structureId: 3, fonctionId: 3, from: isoDate(-1), to: isoDate(30) }] })
    const first = (await home(root)).postesFinissant
    expect(first.total).toBe(before + 11)
    expect(first.items).toHaveLength(10)
    expect((await home(root, { page: 2 })).postesFinissant.items).toHaveLength(before + 1)
  })

  it('is for administrators: a user gets 403, a bad page 400', async () => {
    expect((await call('/rest/bd/accueil', { token: agent })).status).toBe(403)
    expect((await call('/rest/bd/accueil')).status).toBe(401)
    expect((await call('/rest/bd/accueil?page=0', { token: nord })).status).toBe(400)
  })

  it('keeps nothing for an administrator whose session has ended: 401, no row written', async () => {
    const ended = await signedInUser({ admin: true, postes: [currentPost(2, 1)] })
    await db()
      .updateTable('refresh_token')
      .set({ revoked_at: new Date().toISOString() })
      .where('utilisateur_id', '=', ended.id)
      .execute()
    const kept = () => db().selectFrom('utilisateur_liste_total').select('cle').execute()
    const before = await kept()
    expect((await call('/rest/bd/accueil', { token: ended.jwt.accessToken })).status).toBe(401)
    expect(await kept()).toEqual(before)
  })

  it("shows today's sign-ins and launches at once, and a closed day's as the scope now holds them", async () => {
    const { later, sud } = users as Record<'later' | 'sud', { id: number }>
    const before = await home(nord)
    const launches = (figures: Home) => figures.lancements.find((row) => row.application === 'Pesage')?.nombre ?? 0
    await logAt(later.id, isoDate(0), 'CONNEXION', 'CONNEXION')
    await logAt(later.id, isoDate(0), 'APPLI_PESAGE', 'Pesage')
    // Direction Sud's user's launches of today are not Nord's (each user checked once, however many their entries).
    await logAt(sud.id, isoDate(0), 'APPLI_PESAGE', 'Pesage')
    await logAt(sud.id, isoDate(0), 'APPLI_PESAGE', 'Pesage')
    const after = await home(nord)
    expect(after.connexions[29]?.nombre).toBe((before.connexions[29]?.nombre ?? 0) + 1)
    expect(launches(after)).toBe(launches(before) + 1)
    // Today's are kept and caught up from the newest entry counted: read again, nothing is counted twice.
    expect(await home(nord)).toEqual(after)
    // Direction Sud's user, who signed in three days ago, takes a post in Agence Lille: that sign-in is
    // now Direction Nord's, on its chart as in its history.
    await db()
      .insertInto('poste')
      .values({
        utilisateur_id: sud.id,
        structure_id: 4,
        fonction_id: 2,
        date_debut: isoDate(0),
        date_fin: isoDate(100),
      })
      .execute()
    const moved = await home(nord)
    expect(launches(moved)).toBe(launches(before) + 3)
    expect(moved.connexions[26]?.nombre).toBe((before.connexions[26]?.nombre ?? 0) + 1)
    const compact = (iso: string) => iso.replaceAll('-', '')
    const history = await total(
      nord,
      `/rest/bd/logs/?page=1&type=CONNEXION&dateDebut=${compact(isoDate(-29))}&dateFin=${compact(isoDate(0))}`,
    )
    expect(moved.connexions.reduce((sum, day) => sum + day.nombre, 0)).toBe(history)
  })
})
