import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import { WHOLE_LIST_MAX } from '../../../worker-api/contract/base'
import { addDays, todayIso } from '../../../worker-api/contract/dates'
import {
  DECISIONS_MAX,
  type ReviewDecisions,
  type ReviewMessage,
} from '../../../worker-api/contract/governance/access-reviews'
import { backgroundContext } from '../../../worker-api/lib/context'
import { reviewDeadlines } from '../../../worker-api/services/governance/review-deadlines'
import { runReviewStep } from '../../../worker-api/services/governance/review-runs'
import { api, okBody } from '../client'
import {
  type Caller,
  call,
  callerOf,
  changedBeforeWrite,
  createOrganisation,
  createUser,
  currentPost,
  db,
  expectError,
  insertServiceAccount,
  isoDate,
  post,
  serviceAccountToken,
  wireDate,
  withFrozenClock,
} from '../helpers'
import { reviewKit } from '../review-kit'

/**
 * Access reviews under attack: a delegated administrator reaching past their sub-tree, an ordinary user, an anonymous
 * caller, a stolen service account token, an administrator reviewing their own post, the organisation changing under a
 * campaign, odd input, and two writers at once. The organisation of helpers.ts: Groupe (1) › Direction Nord (2) ›
 * Agence Lille (4), Direction Sud (3); below Direction Sud each test that changes posts gets an agency of its own
 * (`agency`), so that what it ends or moves touches no other test.
 */

let nord: Caller
let sud: Caller
let root: Caller
let agent: Caller
let lille: { id: number; login: string }[]

const { queue, open, campaign, stateOf, elements, itemsOf, decide, opened, endOf } = reviewKit('CONSERVER')
/** The history's entries of a campaign (named `nom`) about one login (the decisions write `nom : login, …`). */
const entriesAbout = (nom: string, login: string) =>
  db()
    .selectFrom('log')
    .select(['nom_log', 'utilisateur_id', 'compte_service_id'])
    .where('type_log', '=', 'REVUE_ACCES')
    .where('commentaire', 'like', `${nom}% : ${login}, %`)
    .execute()
const closings = (nom: string) =>
  db()
    .selectFrom('log')
    .select(['utilisateur_id', 'compte_service_id', 'commentaire'])
    .where('nom_log', '=', 'REVUE_CLOTURE')
    .where('commentaire', 'like', `${nom} : %`)
    .execute()

/** The item of user `userId` in campaign `id`, as the root administrator lists it. */
async function itemOf(id: number, userId: number) {
  const item = (await itemsOf(root, id)).items.find((candidate) => candidate.utilisateur.id === userId)
  if (!item) throw new Error(`no item of user ${userId} in campaign ${id}`)
  return item
}
/** Decisions on campaign `id`, as the route declares them; `overrides` change the Worker's bindings. */
const decided = (
  who: { token: string },
  id: number,
  json: ReviewDecisions,
  overrides: Parameters<typeof api>[1] = {},
) => api(who.token, overrides).rest.bd.revue[':id'].decisions.$post({ param: { id }, json })
/** A campaign with its progress per structure, as `who` sees it. */
const detailOf = (who: { token: string }, id: number) =>
  okBody(api(who.token).rest.bd.revue[':id'].$get({ param: { id }, query: {} }))
const close = (who: { token: string }, id: number, init: Parameters<typeof call>[1] = {}) =>
  post(`/rest/bd/revue/${id}/cloture`, {}, { token: who.token, ...init })
const report = (who: { token: string }, id: number) => call(`/rest/bd/revue/${id}/rapport.csv`, { token: who.token })
const rowOf = (itemId: number) =>
  db().selectFrom('revue_element').selectAll().where('id', '=', itemId).executeTakeFirstOrThrow()
/** Whatever a refused call could have written: campaigns, decisions, closings, entries, posts' ends, queued steps. */
async function footprint() {
  const row = await env.DB.prepare(
    `select (select count(*) from revue) as revues,
       (select count(*) from revue where etat = 'CLOTUREE') as closed,
       (select count(*) from revue_element where etat <> 'A_REVOIR') as decided,
       (select count(*) from log where type_log = 'REVUE_ACCES') as entries,
       (select group_concat(id || ':' || date_fin) from poste) as ends`,
  ).first()
  return { ...row, queued: queue.waiting.length }
}

/** The due date passed: the cron hands the campaign to the queue, which applies it. */
async function pastDue(id: number) {
  await db()
    .updateTable('revue')
    .set({ echeance: isoDate(-1) })
    .where('id', '=', id)
    .execute()
  await reviewDeadlines(backgroundContext({ ...env, ...queue.env }))
  await queue.drain()
}

let agencies = 4
/** A new agency below Direction Sud, with a function of its own (same id) and `staff` users posted there. */
async function agency(staff: number) {
  const id = ++agencies
  await db()
    .insertInto('structure')
    .values({ id, nom: `Agence Sud ${id}`, type_id: 3, parent_id: 3, path: `/1/3/${id}/` })
    .execute()
  await db()
    .insertInto('fonction')
    .values({ id, libelle: `Docker ${id}`, structure_id: id })
    .execute()
  const users = []
  for (let n = 0; n < staff; n++) users.push(await createUser({ postes: [currentPost(id, id)] }))
  const postes = await db()
    .selectFrom('poste')
    .select(['id', 'utilisateur_id'])
    .where('structure_id', '=', id)
    .orderBy('id')
    .execute()
  return { id, users: users.map((user, n) => ({ ...user, poste: postes[n]?.id ?? 0 })) }
}

/** Users with a current post in Agence Lille, made for one test (the Nord campaigns opened after it hold them too). */
const lilleStaff = (n: number) =>
  Promise.all(Array.from({ length: n }, () => createUser({ postes: [currentPost(4, 2)] })))

/**
 * The test database, recording how many values each statement binds (D1 allows 100 bound values a statement; the local
 * one allows more).
 */
function measuredDb() {
  const seen = { maxBound: 0, worst: '' }
  const prepare = (real: (query: string) => D1PreparedStatement) => (query: string) => {
    const statement = real(query)
    const bind = statement.bind.bind(statement)
    statement.bind = (...values: unknown[]) => {
      if (values.length > seen.maxBound) Object.assign(seen, { maxBound: values.length, worst: query.slice(0, 200) })
      return bind(...values)
    }
    return statement
  }
  const database = {
    ...env.DB,
    prepare: prepare((query) => env.DB.prepare(query)),
    batch: (statements: D1PreparedStatement[]) => env.DB.batch(statements),
    withSession: (constraint: D1SessionBookmark | D1SessionConstraint) => {
      const session = env.DB.withSession(constraint)
      return {
        prepare: prepare((query) => session.prepare(query)),
        batch: (statements: D1PreparedStatement[]) => session.batch(statements),
        getBookmark: () => session.getBookmark(),
      }
    },
  } as D1Database
  return { database, seen }
}

beforeAll(async () => {
  await createOrganisation()
  nord = await callerOf({ admin: true, postes: [currentPost(2, 1)] })
  sud = await callerOf({ admin: true, postes: [currentPost(3, 3)] })
  root = await callerOf({ admin: true, postes: [currentPost(1, 1)] })
  agent = await callerOf({ postes: [currentPost(4, 2)] })
  lille = await Promise.all([1, 2, 3].map(() => createUser({ postes: [currentPost(4, 2)] })))
})

describe('a delegated administrator reaching past their sub-tree', () => {
  it('opens no campaign over a structure outside their sub-tree, nor over the root: 403, nothing written or queued', async () => {
    const before = await footprint()
    await expectError(await open(sud, campaign(2)), 403, 'FORBIDDEN')
    await expectError(await open(sud, campaign(4)), 403, 'FORBIDDEN')
    await expectError(await open(sud, campaign(1)), 403, 'FORBIDDEN')
    await expectError(await open(nord, campaign(3)), 403, 'FORBIDDEN')
    await expectError(await open(nord, campaign(1)), 403, 'FORBIDDEN')
    expect(await footprint()).toEqual(before)
  })

  it("reads nothing of Direction Nord's campaign: not listed, 404 on it, its items (filtered on Agence Lille too), its report", async () => {
    const id = await opened(nord, campaign(2))
    const listed = await okBody(api(sud.token).rest.bd.revue.$get({ query: { page: 1, taille: 100 } }))
    expect(listed.map((review) => review.id)).not.toContain(id)
    await expectError(await call(`/rest/bd/revue/${id}`, { token: sud.token }), 404, 'NOT_FOUND')
    await expectError(await elements(sud, id), 404, 'NOT_FOUND')
    await expectError(await elements(sud, id, '&structure=4'), 404, 'NOT_FOUND')
    await expectError(await elements(sud, id, '&structure=3&etat=A_REVOIR'), 404, 'NOT_FOUND')
    await expectError(await report(sud, id), 404, 'NOT_FOUND')
  })

  it("decides and closes nothing of Direction Nord's campaign, its item ids guessed: 404, nothing written", async () => {
    const id = await opened(nord, campaign(2))
    const { items } = await itemsOf(nord, id)
    const before = await footprint()
    await expectError(
      await decide(
        sud,
        id,
        items.map((item) => ({ element: { id: item.id }, decision: 'TERMINER', commentaire: 'Pas chez nous' })),
      ),
      404,
      'NOT_FOUND',
    )
    await expectError(await close(sud, id), 404, 'NOT_FOUND')
    expect(await footprint()).toEqual(before)
  })

  it("in the root's campaign sees, decides and reports only Direction Sud's items; Lille's ids come back untouched in dejaDecides", async () => {
    const marseille = await agency(1)
    const [docker] = marseille.users
    const id = await opened(root, campaign(1))
    const { items, total } = await itemsOf(sud, id)
    expect(items.length).toBeGreaterThan(0)
    expect(String(items.length)).toBe(total)
    for (const item of items) expect([1, 2, 4]).not.toContain(item.poste.structure.id)
    expect(await itemsOf(sud, id, '&structure=4')).toEqual({ items: [], total: '0' })
    const detail = await detailOf(sud, id)
    expect(detail.structures.map((s) => s.id)).not.toContain(4)
    expect(detail.structures.map((s) => s.id)).not.toContain(2)
    expect(detail.progression.total).toBe(items.length)
    const lines = await (await report(sud, id)).text()
    expect(lines).toContain(`;${docker?.login};`)
    for (const user of [...lille, nord, agent]) expect(lines).not.toContain(`;${user.login};`)

    const lilleItem = await itemOf(id, lille[0]?.id ?? 0)
    const dockerItem = await itemOf(id, docker?.id ?? 0)
    const lilleEnd = await endOf(lilleItem.poste.id)
    const response = await decide(sud, id, [
      { element: { id: lilleItem.id }, decision: 'TERMINER' },
      { element: { id: dockerItem.id }, decision: 'CONFIRMER' },
    ])
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ decides: [dockerItem.id], dejaDecides: [lilleItem.id] })
    expect((await rowOf(lilleItem.id)).etat).toBe('A_REVOIR')
    expect(await endOf(lilleItem.poste.id)).toBe(lilleEnd)
  })

  it('closes no campaign whose structure is above theirs, even one ready to close: 403, still open, no entry', async () => {
    const body = campaign(1)
    const id = await opened(root, body)
    await pastDue(id)
    expect((await stateOf(id)).etat).toBe('ECHUE')
    await expectError(await close(sud, id), 403, 'FORBIDDEN')
    await expectError(await close(nord, id), 403, 'FORBIDDEN')
    expect((await stateOf(id)).etat).toBe('ECHUE')
    expect(await closings(body.nom)).toEqual([])
    // The campaign was ready: the root's administrator closes it.
    expect((await close(root, id)).status).toBe(204)
  })

  it('an administrator without a current post (theirs ended) opens, reads and decides nothing', async () => {
    const id = await opened(nord, campaign(2))
    const [item] = (await itemsOf(nord, id, '&structure=4')).items
    const former = await callerOf({
      admin: true,
      postes: [{ structureId: 2, fonctionId: 1, from: isoDate(-60), to: isoDate(-1) }],
    })
    const before = await footprint()
    await expectError(await open(former, campaign(2)), 403, 'FORBIDDEN')
    expect(await (await call('/rest/bd/revue', { token: former.token })).json()).toEqual([])
    await expectError(await call(`/rest/bd/revue/${id}`, { token: former.token }), 404, 'NOT_FOUND')
    await expectError(
      await decide(former, id, [{ element: { id: item?.id ?? 0 }, decision: 'TERMINER' }]),
      404,
      'NOT_FOUND',
    )
    await expectError(await close(former, id), 404, 'NOT_FOUND')
    expect(await footprint()).toEqual(before)
  })
})

describe('an ordinary user and an anonymous caller', () => {
  /** Every call of the campaigns on campaign `id`, item `item` named where a body takes one. */
  const everyCall = (id: number, item: number): [string, RequestInit & { body?: string }][] => [
    ['/rest/bd/revue', { method: 'POST', body: JSON.stringify(campaign(4)) }],
    ['/rest/bd/revue', { method: 'GET' }],
    ['/rest/bd/revue?page=1', { method: 'GET' }],
    [`/rest/bd/revue/${id}`, { method: 'GET' }],
    [`/rest/bd/revue/${id}/elements?page=1&structure=4`, { method: 'GET' }],
    [
      `/rest/bd/revue/${id}/decisions`,
      { method: 'POST', body: JSON.stringify([{ element: { id: item }, decision: 'CONFIRMER' }]) },
    ],
    [`/rest/bd/revue/${id}/cloture`, { method: 'POST', body: '{}' }],
    [`/rest/bd/revue/${id}/rapport.csv`, { method: 'GET' }],
  ]

  it('an ordinary user gets 403 on every call, even to confirm their own post, and writes nothing', async () => {
    const id = await opened(nord, campaign(4))
    const own = await itemOf(id, agent.id)
    const before = await footprint()
    for (const [path, init] of everyCall(id, own.id)) {
      const response = await call(path, { ...init, token: agent.token, env: queue.env })
      await expectError(response, 403, 'FORBIDDEN')
    }
    expect(await footprint()).toEqual(before)
  })

  it('an anonymous caller, or one with a forged token, gets 401 on every call and writes nothing', async () => {
    const id = await opened(nord, campaign(4))
    const own = await itemOf(id, agent.id)
    const before = await footprint()
    for (const [path, init] of everyCall(id, own.id)) {
      await expectError(await call(path, { ...init, env: queue.env }), 401, 'UNAUTHORIZED')
      const forged = `${agent.token.split('.').slice(0, 2).join('.')}.c2lnbmF0dXJl`
      await expectError(await call(path, { ...init, token: forged, env: queue.env }), 401, 'INVALID_TOKEN')
    }
    expect(await footprint()).toEqual(before)
  })
})

describe('a stolen service account token', () => {
  it('a token without the api scope calls none of the campaigns’ routes; a read-only account’s only reads them', async () => {
    const id = await opened(nord, campaign(4))
    const [item] = (await itemsOf(nord, id)).items
    const logsOnly = await serviceAccountToken(await insertServiceAccount({ structure: 2, scopes: 'logs' }))
    const plain = await serviceAccountToken(await insertServiceAccount({ structure: 2, scopes: 'api', admin: 0 }))
    const before = await footprint()
    const calls: [string, RequestInit][] = [
      ['/rest/bd/revue', { method: 'POST', body: JSON.stringify(campaign(4)) }],
      ['/rest/bd/revue', {}],
      [`/rest/bd/revue/${id}`, {}],
      [`/rest/bd/revue/${id}/elements`, {}],
      [
        `/rest/bd/revue/${id}/decisions`,
        { method: 'POST', body: JSON.stringify([{ element: { id: item?.id }, decision: 'TERMINER' }]) },
      ],
      [`/rest/bd/revue/${id}/cloture`, { method: 'POST', body: '{}' }],
      [`/rest/bd/revue/${id}/rapport.csv`, {}],
    ]
    for (const [path, init] of calls) {
      await expectError(await call(path, { ...init, token: logsOnly, env: queue.env }), 403, 'SERVICE_ACCOUNT_SCOPE')
      const read = await call(path, { ...init, token: plain, env: queue.env })
      if (init.method === 'POST') await expectError(read, 403, 'SERVICE_ACCOUNT_SCOPE')
      else expect(read.status, path).toBe(200)
    }
    expect(await footprint()).toEqual(before)
  })

  it("Direction Sud's account opens nothing over Direction Nord, and reads, decides or closes nothing of its campaign", async () => {
    const id = await opened(nord, campaign(2))
    const { items } = await itemsOf(nord, id)
    const token = await serviceAccountToken(await insertServiceAccount({ structure: 3, scopes: 'api' }))
    const before = await footprint()
    await expectError(await open({ token }, campaign(2)), 403, 'FORBIDDEN')
    await expectError(await open({ token }, campaign(1)), 403, 'FORBIDDEN')
    const listed = await okBody(api(token).rest.bd.revue.$get({ query: {} }))
    expect(listed.map((review) => review.id)).not.toContain(id)
    await expectError(await call(`/rest/bd/revue/${id}`, { token }), 404, 'NOT_FOUND')
    await expectError(await elements({ token }, id, '&structure=4'), 404, 'NOT_FOUND')
    await expectError(await report({ token }, id), 404, 'NOT_FOUND')
    await expectError(
      await decide(
        { token },
        id,
        items.map((item) => ({ element: { id: item.id }, decision: 'TERMINER' })),
      ),
      404,
      'NOT_FOUND',
    )
    await expectError(await close({ token }, id), 404, 'NOT_FOUND')
    expect(await footprint()).toEqual(before)
  })

  it("Direction Nord's account runs a campaign of Agence Lille in its own name: the campaign, each decision, the closing and their entries name the account", async () => {
    const account = await insertServiceAccount({ structure: 2, scopes: 'api', nom: 'Outil de gouvernance' })
    const token = await serviceAccountToken(account)
    const body = campaign(4)
    const id = await opened({ token }, body)
    const { items } = await itemsOf({ token }, id)
    // No item is the account's "own": every post of the sub-tree is its to review.
    const answer = await okBody(
      decided(
        { token },
        id,
        items.map((item) => ({ element: { id: item.id }, decision: 'CONFIRMER' })),
      ),
    )
    expect(answer.dejaDecides).toEqual([])
    expect((await close({ token }, id)).status).toBe(204)
    expect(await stateOf(id)).toMatchObject({ auteur_id: -account.id, cloture_par: -account.id, etat: 'CLOTUREE' })
    expect(await rowOf(items[0]?.id ?? 0)).toMatchObject({
      decideur_id: -account.id,
      decideur_nom: 'Outil de gouvernance',
    })
    expect(await entriesAbout(body.nom, agent.login)).toEqual([
      { nom_log: 'REVUE_CONFIRMATION', utilisateur_id: null, compte_service_id: account.id },
    ])
    expect(await closings(body.nom)).toEqual([
      expect.objectContaining({ utilisateur_id: null, compte_service_id: account.id }),
    ])
  })
})

describe('nobody reviews their own post', () => {
  it('an administrator’s own posts (in their scope’s structure and below it), alone in a batch: 409 naming them, nothing written', async () => {
    const twice = await callerOf({ admin: true, postes: [currentPost(2, 1), currentPost(4, 2)] })
    const body = campaign(2)
    const id = await opened(twice, body)
    const own = (await itemsOf(twice, id)).items.filter((item) => item.utilisateur.id === twice.id)
    expect(own).toHaveLength(2)
    const before = await footprint()
    const refused = await expectError(
      await decide(
        twice,
        id,
        own.map((item) => ({ element: { id: item.id }, decision: 'TERMINER', dateFin: wireDate(isoDate(3)) })),
      ),
      409,
      'REVUE_DEJA_DECIDEE',
    )
    expect(refused.attributs).toEqual([own.map((item) => item.id)])
    expect(await footprint()).toEqual(before)
    expect(await entriesAbout(body.nom, twice.login)).toEqual([])
    // Confirmed by someone else, they are decided.
    const byRoot = await decide(
      root,
      id,
      own.map((item) => ({ element: { id: item.id }, decision: 'CONFIRMER' })),
    )
    expect(byRoot.status).toBe(200)
  })

  it('nor through a service account they made: its maker’s post is named in dejaDecides, the others decided', async () => {
    const { id: structure, users } = await agency(1)
    // Administrator of Direction Sud too, whose account acts for them there.
    const maker = await callerOf({ admin: true, postes: [currentPost(structure, structure), currentPost(3, 3)] })
    const token = await serviceAccountToken(
      await insertServiceAccount({ structure: 3, scopes: 'api', nom: 'Outil du responsable', creePar: maker.id }),
    )
    const body = campaign(structure)
    const id = await opened(root, body)
    const own = await itemOf(id, maker.id)
    const other = await itemOf(id, users[0]?.id ?? 0)
    const before = await footprint()
    await expectError(
      await decide({ token }, id, [{ element: { id: own.id }, decision: 'CONFIRMER' }]),
      409,
      'REVUE_DEJA_DECIDEE',
    )
    expect(await footprint()).toEqual(before)
    const response = await decide({ token }, id, [
      { element: { id: own.id }, decision: 'TERMINER' },
      { element: { id: other.id }, decision: 'CONFIRMER' },
    ])
    expect(await response.json()).toEqual({ decides: [other.id], dejaDecides: [own.id] })
    expect(await rowOf(own.id)).toMatchObject({ etat: 'A_REVOIR', decideur_id: null })
    expect(await entriesAbout(body.nom, maker.login)).toEqual([])
  })

  it('in a mixed batch the own post, first or last, is named in dejaDecides while the others are decided and counted', async () => {
    const staff = await lilleStaff(2)
    const body = campaign(2)
    const id = await opened(nord, body)
    const own = await itemOf(id, nord.id)
    const a = await itemOf(id, staff[0]?.id ?? 0)
    const b = await itemOf(id, staff[1]?.id ?? 0)
    const response = await decide(nord, id, [
      { element: { id: own.id }, decision: 'TERMINER' },
      { element: { id: a.id }, decision: 'CONFIRMER' },
      { element: { id: b.id }, decision: 'TERMINER', dateFin: wireDate(isoDate(5)) },
      { element: { id: own.id }, decision: 'CONFIRMER' },
    ])
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ decides: [a.id, b.id], dejaDecides: [own.id] })
    expect(await rowOf(own.id)).toMatchObject({ etat: 'A_REVOIR', decideur_id: null })
    expect(await endOf(own.poste.id)).toBe(isoDate(30))
    expect(await endOf(b.poste.id)).toBe(isoDate(5))
    expect(await entriesAbout(body.nom, nord.login)).toEqual([])
    const detail = await detailOf(nord, id)
    expect(detail.progression).toMatchObject({ confirmes: 1, termines: 1 })
  })

  // DESIGN §4: an administrator manages the posts of a user only when every current post of the user lies in their scope.
  it('a delegated administrator ends no post of an administrator above them, which the post screens refuse them', async () => {
    const superior = await callerOf({ admin: true, postes: [currentPost(1, 1), currentPost(4, 2)] })
    const id = await opened(nord, campaign(2))
    const item = await itemOf(id, superior.id)
    // PUT rest/bd/poste refuses Nord this post…
    await expectError(
      await call('/rest/bd/poste', {
        method: 'PUT',
        token: nord.token,
        body: JSON.stringify({ id: item.poste.id, dateDebut: wireDate(isoDate(-30)), dateFin: wireDate(isoDate(0)) }),
      }),
      403,
      'FORBIDDEN',
    )
    // …and so does the review: not Nord's to decide.
    const refused = await expectError(
      await decide(nord, id, [{ element: { id: item.id }, decision: 'TERMINER' }]),
      409,
      'REVUE_DEJA_DECIDEE',
    )
    expect(refused.attributs).toEqual([[item.id]])
    expect(await endOf(item.poste.id)).toBe(isoDate(30))
    expect((await rowOf(item.id)).etat).toBe('A_REVOIR')
  })
})

describe('the organisation changing under a campaign', () => {
  it('a post deleted, shortened, or its user deleted while its item waits: ending it brings nothing back and lengthens nothing', async () => {
    const place = await agency(4)
    const [gone, shortened, deleted, far] = place.users
    if (!gone || !shortened || !deleted || !far) throw new Error('users missing')
    const id = await opened(sud, campaign(place.id, { siNonRevu: 'TERMINER' }))
    const items = new Map(
      await Promise.all(place.users.map(async (user) => [user.id, (await itemOf(id, user.id)).id] as const)),
    )
    expect(
      (await call(`/rest/bd/poste/suppression/${gone.poste}`, { method: 'DELETE', token: sud.token })).status,
    ).toBe(204)
    const shorter = { id: shortened.poste, dateDebut: wireDate(isoDate(-30)), dateFin: wireDate(isoDate(2)) }
    expect(
      (await call('/rest/bd/poste', { method: 'PUT', token: sud.token, body: JSON.stringify(shorter) })).status,
    ).toBe(200)
    expect(
      (await call(`/rest/bd/utilisateur/suppression/${deleted.id}`, { method: 'DELETE', token: sud.token })).status,
    ).toBe(204)
    expect((await itemOf(id, gone.id)).poste.id).toBeNull()

    const answer = await okBody(
      decided(sud, id, [
        { element: { id: items.get(gone.id) ?? 0 }, decision: 'TERMINER' },
        { element: { id: items.get(shortened.id) ?? 0 }, decision: 'TERMINER', dateFin: wireDate(isoDate(20)) },
        { element: { id: items.get(deleted.id) ?? 0 }, decision: 'TERMINER' },
        { element: { id: items.get(far.id) ?? 0 }, decision: 'TERMINER', dateFin: '31/12/9999' },
      ]),
    )
    expect(answer.decides).toHaveLength(4)
    expect(await db().selectFrom('poste').select('id').where('utilisateur_id', '=', gone.id).execute()).toEqual([])
    expect(await endOf(shortened.poste)).toBe(isoDate(2))
    expect(await endOf(deleted.poste)).toBe(isoDate(0))
    expect(await endOf(far.poste)).toBe(isoDate(30))
  })

  it('a post moved to start after the end a reviewer gives: ending it removes the post, so no day of it opens after that end', async () => {
    const place = await agency(1)
    const [later] = place.users
    if (!later) throw new Error('no user')
    const id = await opened(sud, campaign(place.id))
    const item = await itemOf(id, later.id)
    const moved = { id: later.poste, dateDebut: wireDate(isoDate(10)), dateFin: wireDate(isoDate(40)) }
    expect(
      (await call('/rest/bd/poste', { method: 'PUT', token: sud.token, body: JSON.stringify(moved) })).status,
    ).toBe(200)
    const response = await decide(sud, id, [
      { element: { id: item.id }, decision: 'TERMINER', dateFin: wireDate(isoDate(5)) },
    ])
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ decides: [item.id], dejaDecides: [] })
    expect(await rowOf(item.id)).toMatchObject({ etat: 'TERMINE', date_fin_decidee: isoDate(5) })
    // Every day of the post lay after the end given: none of it is kept.
    expect(await db().selectFrom('poste').select('id').where('id', '=', later.poste).execute()).toEqual([])
  })

  it('a structure moved out of the reviewer’s sub-tree after opening: its items leave that reviewer and go to its new administrators', async () => {
    const place = await agency(1)
    const [moved] = place.users
    if (!moved) throw new Error('no user')
    const id = await opened(sud, campaign(place.id))
    const item = await itemOf(id, moved.id)
    const move = (parent: number) =>
      call('/rest/bd/structure', {
        method: 'PUT',
        token: root.token,
        body: JSON.stringify({ id: place.id, nom: `Agence Sud ${place.id}`, type: { id: 3 }, parent: { id: parent } }),
      })
    expect((await move(2)).status).toBe(200)
    try {
      // Direction Nord's now: Nord sees and reviews it…
      expect
        .soft(
          (await itemsOf(nord, id)).items.map((seen) => seen.id),
          'listed to Nord',
        )
        .toContain(item.id)
      // …and Sud no longer (the campaign's own structure moved: Sud no longer sees the campaign at all).
      await expectError(await elements(sud, id), 404, 'NOT_FOUND')
      // …Sud ends nothing of Direction Nord's.
      await expectError(await decide(sud, id, [{ element: { id: item.id }, decision: 'TERMINER' }]), 404, 'NOT_FOUND')
      expect(await endOf(moved.poste)).toBe(isoDate(30))
      expect((await decide(nord, id, [{ element: { id: item.id }, decision: 'CONFIRMER' }])).status).toBe(200)
    } finally {
      expect((await move(3)).status).toBe(200)
    }
  })

  it('the campaign’s structure deleted after its posts were: its report is still read and the campaign closed', async () => {
    const place = await agency(1)
    const [leaver] = place.users
    if (!leaver) throw new Error('no user')
    const body = campaign(place.id)
    const id = await opened(sud, body)
    const item = await itemOf(id, leaver.id)
    expect((await decide(sud, id, [{ element: { id: item.id }, decision: 'CONFIRMER' }])).status).toBe(200)
    expect(
      (await call(`/rest/bd/poste/suppression/${leaver.poste}`, { method: 'DELETE', token: sud.token })).status,
    ).toBe(204)
    expect((await call(`/rest/bd/structure/${place.id}`, { method: 'DELETE', token: sud.token })).status).toBe(204)
    // The campaign is still listed with its progress…
    expect((await call(`/rest/bd/revue/${id}`, { token: sud.token })).status).toBe(200)
    // …and its report, what an auditor asks for, stays; so does its closing.
    const csv = await report(sud, id)
    expect.soft(csv.status, 'the report').toBe(200)
    expect.soft(await csv.text(), 'the report').toContain(`;${leaver.login};`)
    expect((await close(sud, id)).status).toBe(204)
    expect(await closings(body.nom)).toHaveLength(1)
  })
})

describe('odd input', () => {
  it('an opening with a malformed, past, present or too distant due date, or an odd name, is a 400 (413 past the body’s bound) and writes nothing', async () => {
    const today = todayIso()
    const before = await footprint()
    const bodies: [unknown, string | null][] = [
      [campaign(2, { echeance: addDays(today, 30) }), 'echeance'],
      [campaign(2, { echeance: '31/02/2027' }), 'echeance'],
      [campaign(2, { echeance: '' }), 'echeance'],
      [campaign(2, { echeance: wireDate(addDays(today, -1)) }), 'echeance'],
      [campaign(2, { echeance: wireDate(today) }), 'echeance'],
      [campaign(2, { echeance: wireDate(addDays(today, 367)) }), 'echeance'],
      [campaign(2, { echeance: '31/12/9999' }), 'echeance'],
      [campaign(2, { nom: 'x'.repeat(101) }), 'nom'],
      [campaign(2, { nom: '    ' }), 'nom'],
      [campaign(2, { nom: 'ab' }), 'nom'],
      [campaign(2, { siNonRevu: 'SUPPRIMER' }), 'siNonRevu'],
      [campaign(2, { structure: { id: -2 } }), 'structure.id'],
      [campaign(2, { structure: 2 }), 'structure'],
      [campaign(2, { structure: { id: 1e20 } }), 'structure.id'],
      [null, null],
      [[campaign(2)], null],
      ['revue', null],
    ]
    for (const [body, field] of bodies) {
      const response = await open(nord, body)
      const refused = await expectError(response, 400, 'VALIDATION_FAILED')
      if (field) expect((refused.attributs as { field: string }[])[0]?.field, JSON.stringify(body)).toBe(field)
    }
    await expectError(await open(nord, campaign(2, { nom: 'x'.repeat(200_000) })), 413, 'REQUEST_TOO_LARGE')
    expect(await footprint()).toEqual(before)
    // A year ahead is within bounds.
    expect((await open(nord, campaign(2, { echeance: wireDate(addDays(today, 366)) }))).status).toBe(201)
    await queue.drain()
  })

  it(`${DECISIONS_MAX + 1} decisions, an empty or odd list, a malformed or past end, odd ids or a long comment: 400, nothing decided, even the valid ones of the batch`, async () => {
    const id = await opened(nord, campaign(4))
    const [x, y] = (await itemsOf(nord, id)).items
    if (!x || !y) throw new Error('items missing')
    const confirm = { element: { id: x.id }, decision: 'CONFIRMER' }
    const end = (dateFin: unknown) => ({ element: { id: y.id }, decision: 'TERMINER', dateFin })
    const before = await footprint()
    const bodies: unknown[] = [
      Array.from({ length: DECISIONS_MAX + 1 }, () => confirm),
      [],
      {},
      confirm,
      [{ ...confirm, decision: 'SUPPRIMER' }],
      [{ element: { id: x.id } }],
      [confirm, end('2027-01-15')],
      [confirm, end('31/02/2027')],
      [confirm, end('')],
      [confirm, end(20270115)],
      [confirm, end(wireDate(isoDate(-1)))],
      [confirm, { element: { id: -1 }, decision: 'CONFIRMER' }],
      [confirm, { element: { id: 0 }, decision: 'CONFIRMER' }],
      [confirm, { element: { id: 1.5 }, decision: 'CONFIRMER' }],
      [confirm, { element: { id: 'x' }, decision: 'CONFIRMER' }],
      [confirm, { element: y.id, decision: 'CONFIRMER' }],
      [confirm, { ...end(undefined), commentaire: 'x'.repeat(501) }],
      [confirm, { ...end(undefined), commentaire: ['a'] }],
    ]
    for (const [index, body] of bodies.entries()) {
      const response = await decide(nord, id, body)
      expect(response.status, `body ${index}`).toBe(400)
      await expectError(response, 400, 'VALIDATION_FAILED')
    }
    const past = await expectError(
      await decide(nord, id, [confirm, end(wireDate(isoDate(-1)))]),
      400,
      'VALIDATION_FAILED',
    )
    expect((past.attributs as { field: string }[])[0]?.field).toBe('1.dateFin')
    expect(await footprint()).toEqual(before)
  })

  // The page sends one decision per ticked item (up to DECISIONS_MAX), the reason typed once repeated in each
  // (app/features/governance/review.server.ts).
  it(`${DECISIONS_MAX} ticked items ended together with one reason, as the page sends them, are taken: the caller’s decided, the rest named`, async () => {
    const [user] = await lilleStaff(1)
    const id = await opened(nord, campaign(4))
    const x = await itemOf(id, user?.id ?? 0)
    const reason =
      'Contrat terminé fin novembre : remplacé par l’équipe de Rouen, accès au quai et au pesage à retirer.'
    const dateFin = wireDate(isoDate(10))
    const body: ReviewDecisions = [x.id, ...Array.from({ length: DECISIONS_MAX - 1 }, (_, n) => 10_000_000 + n)].map(
      (element) => ({ element: { id: element }, decision: 'TERMINER', dateFin, commentaire: reason }),
    )
    const { database, seen } = measuredDb()
    const answer = await okBody(decided(nord, id, body, { DB: database }))
    expect(answer.decides).toEqual([x.id])
    expect(answer.dejaDecides).toHaveLength(DECISIONS_MAX - 1)
    expect(await rowOf(x.id)).toMatchObject({ etat: 'TERMINE', commentaire: reason })
    expect(await endOf(x.poste.id)).toBe(isoDate(10))
    expect(seen.maxBound, seen.worst).toBeLessThanOrEqual(100)
  })

  it('the same item twice in a batch is decided once, as its last decision says: one entry, counted once', async () => {
    const [user] = await lilleStaff(1)
    const body = campaign(4)
    const id = await opened(nord, body)
    const x = await itemOf(id, user?.id ?? 0)
    const response = await decide(nord, id, [
      { element: { id: x.id }, decision: 'CONFIRMER', commentaire: 'Oui' },
      { element: { id: x.id }, decision: 'TERMINER', dateFin: wireDate(isoDate(7)), commentaire: 'Non' },
    ])
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ decides: [x.id], dejaDecides: [] })
    expect(await rowOf(x.id)).toMatchObject({ etat: 'TERMINE', commentaire: 'Non' })
    expect(await endOf(x.poste.id)).toBe(isoDate(7))
    expect((await entriesAbout(body.nom, user?.login ?? '')).map((entry) => entry.nom_log)).toEqual(['REVUE_FIN_POSTE'])
    const detail = await detailOf(nord, id)
    expect(detail.progression).toMatchObject({ confirmes: 0, termines: 1 })
  })

  it("another campaign's items are not decided through this one: named in dejaDecides, untouched", async () => {
    const [user] = await lilleStaff(1)
    const first = await opened(nord, campaign(4))
    const second = await opened(nord, campaign(4))
    const mine = await itemOf(first, user?.id ?? 0)
    const theirs = await itemOf(second, user?.id ?? 0)
    const alone = await expectError(
      await decide(nord, first, [{ element: { id: theirs.id }, decision: 'TERMINER' }]),
      409,
      'REVUE_DEJA_DECIDEE',
    )
    expect(alone.attributs).toEqual([[theirs.id]])
    const response = await decide(nord, first, [
      { element: { id: theirs.id }, decision: 'TERMINER' },
      { element: { id: mine.id }, decision: 'CONFIRMER' },
    ])
    expect(await response.json()).toEqual({ decides: [mine.id], dejaDecides: [theirs.id] })
    expect((await rowOf(theirs.id)).etat).toBe('A_REVOIR')
    expect(await endOf(theirs.poste.id)).toBe(isoDate(30))
  })

  it('a campaign applying or past its due date, or closed, takes no decision (409 REVUE_FERMEE) and is not closed twice', async () => {
    const id = await opened(nord, campaign(4))
    const x = await itemOf(id, lille[2]?.id ?? 0)
    const end = await endOf(x.poste.id)
    const decision = [{ element: { id: x.id }, decision: 'TERMINER' }]
    await db().updateTable('revue').set({ etat: 'ECHEANCE' }).where('id', '=', id).execute()
    await expectError(await decide(nord, id, decision), 409, 'REVUE_FERMEE')
    await db().updateTable('revue').set({ etat: 'OUVERTE' }).where('id', '=', id).execute()
    await pastDue(id)
    expect((await stateOf(id)).etat).toBe('ECHUE')
    await expectError(await decide(nord, id, decision), 409, 'REVUE_FERMEE')
    expect((await close(nord, id)).status).toBe(204)
    const before = await footprint()
    await expectError(await close(nord, id), 409, 'REVUE_FERMEE')
    await expectError(await decide(root, id, decision), 409, 'REVUE_FERMEE')
    expect(await footprint()).toEqual(before)
    expect(await endOf(x.poste.id)).toBe(end)
  })

  it('odd queries and ids: a long or many-word search, page 0, a page too large, odd filters, ids that are no campaign’s — 400 on the field, 404 for an unknown id, never the server’s error', async () => {
    const id = await opened(nord, campaign(2))
    for (const query of [
      `&q=${encodeURIComponent('é'.repeat(100))}`,
      `&q=${encodeURIComponent(Array.from({ length: 40 }, (_, n) => String.fromCharCode(97 + (n % 26))).join(' '))}`,
      `&q=${encodeURIComponent('%')}`,
      `&q=${encodeURIComponent('_')}`,
      `&q=${encodeURIComponent("' or 1=1 --")}`,
    ]) {
      // Nothing matches: '%' and '_' are searched as themselves.
      expect(await itemsOf(nord, id, query), query).toEqual({ items: [], total: '0' })
    }
    for (const query of [
      `&q=${'x'.repeat(101)}`,
      '&taille=101',
      '&taille=0',
      '&page=0',
      '&page=-1',
      '&structure=-4',
      '&structure=abc',
      '&etat=FINI',
    ]) {
      await expectError(await elements(nord, id, query), 400, 'VALIDATION_FAILED')
    }
    for (const query of ['?page=0', '?taille=101', '?page=abc']) {
      await expectError(await call(`/rest/bd/revue${query}`, { token: nord.token }), 400, 'VALIDATION_FAILED')
    }
    const decision = JSON.stringify([{ element: { id: 1 }, decision: 'CONFIRMER' }])
    const suffixes = [
      ['', {}],
      ['/elements?page=1', {}],
      ['/rapport.csv', {}],
      ['/decisions', { method: 'POST', body: decision }],
      ['/cloture', { method: 'POST', body: '{}' }],
    ] as const
    for (const path of ['0', '-1', '1.5', 'abc', '99999999999999999999', '9007199254740993', '1e400', '%00']) {
      for (const [suffix, init] of suffixes) {
        const response = await call(`/rest/bd/revue/${path}${suffix}`, { ...init, token: nord.token })
        const refused = await expectError(response, 400, 'VALIDATION_FAILED')
        expect((refused.attributs as { field: string }[])[0]?.field, `${path}${suffix}`).toBe('id')
      }
    }
    // A well-formed id no campaign has.
    for (const [suffix, init] of suffixes) {
      await expectError(
        await call(`/rest/bd/revue/${id + 1_000_000}${suffix}`, { ...init, token: nord.token }),
        404,
        'NOT_FOUND',
      )
    }
  })

  it('a search finds a name written with its accents, as the items show it', async () => {
    const place = await agency(1)
    const [accented] = place.users
    await db()
      .updateTable('utilisateur')
      .set({ nom: 'Lefèvre', prenom: 'Élodie' })
      .where('id', '=', accented?.id ?? 0)
      .execute()
    const id = await opened(sud, campaign(place.id))
    for (const q of ['Élodie', 'Lefèvre', 'elodie lefevre']) {
      const { items } = await itemsOf(sud, id, `&q=${encodeURIComponent(q)}`)
      expect(
        items.map((item) => item.utilisateur.id),
        q,
      ).toEqual([accented?.id])
    }
  })
})

describe('two writers at once', () => {
  it('two reviewers on overlapping batches: each item decided once, the loser told which was taken, no post ended by the loser', async () => {
    const staff = await lilleStaff(2)
    const body = campaign(4)
    const id = await opened(nord, body)
    const a = await itemOf(id, staff[0]?.id ?? 0)
    const b = await itemOf(id, staff[1]?.id ?? 0)
    const response = await decide(
      nord,
      id,
      [
        { element: { id: a.id }, decision: 'TERMINER' },
        { element: { id: b.id }, decision: 'TERMINER', dateFin: wireDate(isoDate(4)) },
      ],
      {
        env: {
          DB: changedBeforeWrite(async () => {
            expect((await decide(root, id, [{ element: { id: a.id }, decision: 'CONFIRMER' }])).status).toBe(200)
          }),
        },
      },
    )
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ decides: [b.id], dejaDecides: [a.id] })
    expect(await rowOf(a.id)).toMatchObject({ etat: 'CONFIRME', decideur_id: root.id })
    expect(await endOf(a.poste.id)).toBe(isoDate(30))
    expect(await endOf(b.poste.id)).toBe(isoDate(4))
    expect((await entriesAbout(body.nom, a.utilisateur.login)).map((entry) => entry.utilisateur_id)).toEqual([root.id])
  })

  it('the due date applied while a decision is in flight: the decision is refused, the item decided once by the due date, its post ended once', async () => {
    const place = await agency(2)
    const [kept] = place.users
    if (!kept) throw new Error('no user')
    const body = campaign(place.id, { siNonRevu: 'TERMINER' })
    const id = await opened(sud, body)
    const item = await itemOf(id, kept.id)
    const response = await decide(sud, id, [{ element: { id: item.id }, decision: 'CONFIRMER' }], {
      env: {
        // The due date passes between the decision's read and its write, and the cron applies it.
        DB: changedBeforeWrite(() => pastDue(id)),
      },
    })
    expect(response.status).toBe(409)
    expect((await stateOf(id)).etat).toBe('ECHUE')
    expect(await rowOf(item.id)).toMatchObject({ etat: 'TERMINE', automatique: 1 })
    expect(await endOf(kept.poste)).toBe(isoDate(-1))
    expect((await entriesAbout(body.nom, kept.login)).map((entry) => entry.nom_log)).toEqual(['REVUE_FIN_POSTE'])
  })

  it('closing while the last decision lands: the closing’s entry counts what the campaign ends with', async () => {
    const place = await agency(2)
    const [first, last] = place.users
    if (!first || !last) throw new Error('users missing')
    const body = campaign(place.id)
    const id = await opened(sud, body)
    const firstItem = await itemOf(id, first.id)
    const lastItem = await itemOf(id, last.id)
    expect((await decide(sud, id, [{ element: { id: firstItem.id }, decision: 'CONFIRMER' }])).status).toBe(200)
    const response = await close(sud, id, {
      env: {
        DB: changedBeforeWrite(async () => {
          expect((await decide(root, id, [{ element: { id: lastItem.id }, decision: 'TERMINER' }])).status).toBe(200)
        }),
      },
    })
    // The decision landed before the closing's write, which finds nothing left to review.
    expect(response.status).toBe(204)
    expect((await stateOf(id)).etat).toBe('CLOTUREE')
    expect(await closings(body.nom)).toEqual([
      expect.objectContaining({ commentaire: `${body.nom} : 2 postes, 1 confirmés, 1 terminés` }),
    ])
  })

  it('an opening refused in its write writes no entry, even beside a campaign of the same author, name and instant', async () => {
    const place = await agency(1)
    const admin = await callerOf({ admin: true, postes: [currentPost(place.id, place.id)] })
    const body = campaign(place.id)
    const openings = () =>
      db()
        .selectFrom('log')
        .select('utilisateur_id')
        .where('nom_log', '=', 'REVUE_OUVERTURE')
        .where('commentaire', 'like', `${body.nom} :%`)
        .execute()
    await withFrozenClock(async () => {
      expect((await open(admin, body)).status).toBe(201)
      // The same campaign again, in the same millisecond, by its author who loses their post before the write.
      const again = await post('/rest/bd/revue', body, {
        token: admin.token,
        env: {
          ...queue.env,
          DB: changedBeforeWrite(() =>
            db()
              .updateTable('poste')
              .set({ date_fin: isoDate(-1) })
              .where('utilisateur_id', '=', admin.id)
              .execute(),
          ),
        },
      })
      await expectError(again, 403, 'FORBIDDEN')
    })
    expect(await openings()).toEqual([{ utilisateur_id: admin.id }])
  })

  it('the due date passing between a decision’s read and its write, before the cron applies it: nothing is written', async () => {
    const place = await agency(1)
    const [kept] = place.users
    if (!kept) throw new Error('no user')
    const id = await opened(sud, campaign(place.id))
    const item = await itemOf(id, kept.id)
    const end = await endOf(kept.poste)
    const before = await footprint()
    const response = await decide(sud, id, [{ element: { id: item.id }, decision: 'TERMINER' }], {
      env: {
        // The campaign is still open (the cron has not run): only the due date in the write refuses it.
        DB: changedBeforeWrite(() =>
          db()
            .updateTable('revue')
            .set({ echeance: isoDate(-1) })
            .where('id', '=', id)
            .execute(),
        ),
      },
    })
    expect(response.status).toBe(409)
    expect(await footprint()).toEqual(before)
    expect(await rowOf(item.id)).toMatchObject({ etat: 'A_REVOIR' })
    expect(await endOf(kept.poste)).toBe(end)
    expect((await stateOf(id)).etat).toBe('OUVERTE')
    // Due again later: the due date's tests below run the cron over every campaign past due.
    await db()
      .updateTable('revue')
      .set({ echeance: isoDate(30) })
      .where('id', '=', id)
      .execute()
  })

  it('an administrator who loses their scope between the closing’s read and its write closes nothing', async () => {
    const place = await agency(1)
    const [kept] = place.users
    if (!kept) throw new Error('no user')
    const body = campaign(place.id)
    const id = await opened(sud, body)
    const item = await itemOf(id, kept.id)
    expect((await decide(sud, id, [{ element: { id: item.id }, decision: 'CONFIRMER' }])).status).toBe(200)
    const closer = await callerOf({ admin: true, postes: [currentPost(3, 3)] })
    const response = await close(closer, id, {
      env: {
        DB: changedBeforeWrite(() =>
          db()
            .updateTable('poste')
            .set({ date_fin: isoDate(-1) })
            .where('utilisateur_id', '=', closer.id)
            .execute(),
        ),
      },
    })
    expect(response.status).toBe(409)
    expect((await stateOf(id)).etat).toBe('OUVERTE')
    expect(await closings(body.nom)).toEqual([])
  })

  it('a reviewer who loses their scope between the read and the write of a decision writes nothing', async () => {
    const loser = await callerOf({ admin: true, postes: [currentPost(2, 1)] })
    const id = await opened(nord, campaign(4))
    const x = await itemOf(id, lille[0]?.id ?? 0)
    const end = await endOf(x.poste.id)
    const before = await footprint()
    const response = await decide(loser, id, [{ element: { id: x.id }, decision: 'TERMINER' }], {
      env: {
        DB: changedBeforeWrite(() =>
          db()
            .updateTable('poste')
            .set({ date_fin: isoDate(-1) })
            .where('utilisateur_id', '=', loser.id)
            .execute(),
        ),
      },
    })
    // The campaign was read while they had the scope: the write finds none of it theirs.
    const refused = await expectError(response, 409, 'REVUE_DEJA_DECIDEE')
    expect(refused.attributs).toEqual([[x.id]])
    const after = await footprint()
    expect({ ...after, ends: undefined }).toEqual({ ...before, ends: undefined })
    expect((await rowOf(x.id)).etat).toBe('A_REVOIR')
    expect(await endOf(x.poste.id)).toBe(end)
  })

  it('the opening delivered twice at once writes each item once and counts it once', async () => {
    const place = await agency(3)
    const { id } = await okBody(api(sud.token, queue.env).rest.bd.revue.$post({ json: campaign(place.id) }), 201)
    const message = queue.waiting.shift()
    expect(message?.body).toEqual({ kind: 'review-step', revueId: id, etape: 'ouverture', depuis: 0 })
    const step = () => runReviewStep(backgroundContext({ ...env, ...queue.env }), message?.body as ReviewMessage)
    await Promise.all([step(), step(), step()])
    await queue.drain()
    const review = await stateOf(id)
    expect(review.etat).toBe('OUVERTE')
    const items = await db().selectFrom('revue_element').select('poste_id').where('revue_id', '=', id).execute()
    expect(items.map((item) => item.poste_id).sort()).toEqual(place.users.map((user) => user.poste).sort())
    expect(review.elements).toBe(3)
    const progress = await db().selectFrom('revue_progression').select('total').where('revue_id', '=', id).execute()
    expect(progress).toEqual([{ total: 3 }])
  })

  // Both deliveries within the same millisecond (the clock stopped): what "at once" may mean on two Workers.
  it('the due date’s step delivered twice at once ends each post once, with one entry each and one for the campaign', async () => {
    const place = await agency(3)
    const body = campaign(place.id, { siNonRevu: 'TERMINER' })
    const id = await opened(sud, body)
    await db()
      .updateTable('revue')
      .set({ echeance: isoDate(-1) })
      .where('id', '=', id)
      .execute()
    await reviewDeadlines(backgroundContext({ ...env, ...queue.env }))
    const message = queue.waiting.shift()
    expect(message?.body).toMatchObject({ revueId: id, etape: 'echeance' })
    const step = () => runReviewStep(backgroundContext({ ...env, ...queue.env }), message?.body as ReviewMessage)
    await withFrozenClock(() => Promise.all([step(), step()]))
    await queue.drain()
    expect((await stateOf(id)).etat).toBe('ECHUE')
    for (const user of place.users) {
      expect(await endOf(user.poste)).toBe(isoDate(-1))
      expect((await entriesAbout(body.nom, user.login)).map((entry) => entry.nom_log)).toEqual(['REVUE_FIN_POSTE'])
    }
    const progress = await db()
      .selectFrom('revue_progression')
      .select(['total', 'termines'])
      .where('revue_id', '=', id)
      .execute()
    expect(progress).toEqual([{ total: 3, termines: 3 }])
    const applied = await db()
      .selectFrom('log')
      .select('id')
      .where('nom_log', '=', 'REVUE_ECHEANCE')
      .where('commentaire', 'like', `${body.nom} : %`)
      .execute()
    expect(applied).toHaveLength(1)
  })
})

describe('a campaign over a large organisation', () => {
  // README: a list without page is the whole list, at most WHOLE_LIST_MAX entries (LIST_TOO_LARGE past it).
  it(`answers its items without a page only up to ${WHOLE_LIST_MAX} (400 LIST_TOO_LARGE past it), page by page otherwise`, async () => {
    const count = WHOLE_LIST_MAX + 1
    await db()
      .insertInto('structure')
      .values({ id: 900, nom: 'Direction Ouest', type_id: 2, parent_id: 1, path: '/1/900/' })
      .execute()
    await db().insertInto('fonction').values({ id: 900, libelle: 'Préparateur', structure_id: 900 }).execute()
    await env.DB.prepare(
      `insert into utilisateur (login, nom, prenom, mail, domain)
       with recursive n(i) as (select 1 union all select i + 1 from n where i < ?1)
       select 'ouest' || i, 'Ouest', 'Agent' || i, 'ouest' || i || '@example.test', ?2 from n`,
    )
      .bind(count, 'http://localhost:8787')
      .run()
    await env.DB.prepare(
      `insert into poste (utilisateur_id, structure_id, fonction_id, date_debut, date_fin)
       select id, 900, 900, ?1, ?2 from utilisateur where login like 'ouest%'`,
    )
      .bind(isoDate(-30), isoDate(30))
      .run()
    try {
      const id = await opened(root, campaign(900))
      const paged = await elements(root, id)
      expect(paged.headers.get('X-Total-Count')).toBe(String(count))
      const whole = await call(`/rest/bd/revue/${id}/elements`, { token: root.token })
      const refused = await expectError(whole, 400, 'LIST_TOO_LARGE')
      expect(refused.attributs).toEqual([WHOLE_LIST_MAX])
    } finally {
      await env.DB.prepare(`delete from utilisateur where login like 'ouest%'`).run()
    }
    // Five thousand users written and a campaign over them opened: more than the default five seconds on a busy machine.
  }, 30_000)
})
