import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import { REQUESTS_PER_DAY } from '../../../worker-api/contract/governance/access-requests'
import { api, errorBody, okBody } from '../client'
import {
  type Caller,
  call,
  callerOf,
  changedBeforeWrite,
  createOrganisation,
  currentPost,
  db,
  expectError,
  insertServiceAccount,
  isoDate,
  post,
  serviceAccountToken,
  wireDate,
} from '../helpers'

/**
 * Access requests under attack: a delegated administrator reaching past their sub-tree, an ordinary user, a stolen
 * service account token, and two writers at once. The organisation of helpers.ts, as tests/api/governance/access-requests.test.ts
 * sets it up: Groupe (1) › Direction Nord (2) › Agence Lille (4), Direction Sud (3); fonction 2 (Agent de quai, Lille)
 * grants Yard dangereux (1) and Pesage (2); fonction 4 (Planificateur, Lille) and fonction 3 (Responsable, Direction
 * Sud) grant Module Rendez vous (3), which is demandable.
 */

let nord: Caller
let sud: Caller
let root: Caller
let agent: Caller

const ask = (who: { token: string }, body: unknown, init: Parameters<typeof call>[1] = {}) =>
  post('/rest/bd/demande', body, { token: who.token, ...init })
const period = (from: number, to: number) => ({ dateDebut: wireDate(isoDate(from)), dateFin: wireDate(isoDate(to)) })
const request = (application = 3, days: [number, number] = [0, 29]) => ({
  application: { id: application },
  motif: 'Planifier les rendez-vous du quai',
  ...period(days[0], days[1]),
})
const decide = (who: { token: string }, id: number, body: unknown, init: Parameters<typeof call>[1] = {}) =>
  post(`/rest/bd/demande/${id}/decision`, body, { token: who.token, ...init })
const grant = { accord: true, fonction: { id: 4 }, structure: { id: 4 } }
const withdraw = (who: { token: string }, id: number) =>
  call(`/rest/bd/demande/${id}`, { method: 'DELETE', token: who.token })

const stateOf = (id: number) =>
  db().selectFrom('demande_acces').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
const mailsTo = (userId: number) =>
  db().selectFrom('outbox').select(['id', 'kind', 'subject']).where('utilisateur_id', '=', userId).execute()
const postsOf = (userId: number, fonctionId = 4) =>
  db()
    .selectFrom('poste')
    .selectAll()
    .where('utilisateur_id', '=', userId)
    .where('fonction_id', '=', fonctionId)
    .execute()
/** The entries naming request `id` (the decisions write `#id ` first). */
const entriesOf = (id: number) =>
  db()
    .selectFrom('log')
    .select(['nom_log', 'utilisateur_id', 'compte_service_id', 'commentaire'])
    .where('type_log', '=', 'DEMANDE_ACCES')
    .where('commentaire', 'like', `#${id} %`)
    .execute()
const postEntriesAbout = (login: string) =>
  db()
    .selectFrom('log')
    .select(['utilisateur_id', 'compte_service_id'])
    .where('nom_log', '=', 'POSTE_CREATION')
    .where('commentaire', 'like', `% ${login} :%`)
    .execute()

/** A fresh requester in Agence Lille (Agent de quai) and their waiting request for Module Rendez vous. */
async function waitingRequest(postes = [currentPost(4, 2)]) {
  const requester = await callerOf({ postes })
  const { id } = await okBody(api(requester.token).rest.bd.demande.$post({ json: request() }), 201)
  return { requester, id }
}

/**
 * The test database, recording how many values each statement binds and how many statements each batch sends
 * (D1 allows 100 bound values a statement; the local one allows more).
 */
function measuredDb() {
  const seen = { maxBound: 0, worst: '', maxBatch: 0 }
  const record = (sql: string, values: unknown[]) => {
    if (values.length > seen.maxBound) Object.assign(seen, { maxBound: values.length, worst: sql.slice(0, 200) })
  }
  const prepare = (real: (query: string) => D1PreparedStatement) => (query: string) => {
    const statement = real(query)
    const bind = statement.bind.bind(statement)
    statement.bind = (...values: unknown[]) => {
      record(query, values)
      return bind(...values)
    }
    return statement
  }
  const counted =
    (real: (statements: D1PreparedStatement[]) => Promise<D1Result[]>) => (statements: D1PreparedStatement[]) => {
      seen.maxBatch = Math.max(seen.maxBatch, statements.length)
      return real(statements)
    }
  const database = {
    ...env.DB,
    prepare: prepare((query) => env.DB.prepare(query)),
    batch: counted((statements) => env.DB.batch(statements)),
    withSession: (constraint: D1SessionBookmark | D1SessionConstraint) => {
      const session = env.DB.withSession(constraint)
      return {
        prepare: prepare((query) => session.prepare(query)),
        batch: counted((statements) => session.batch(statements)),
        getBookmark: () => session.getBookmark(),
      }
    },
  } as D1Database
  return { database, seen }
}

beforeAll(async () => {
  await createOrganisation()
  await db().insertInto('fonction').values({ id: 4, libelle: 'Planificateur', structure_id: 4 }).execute()
  await db().insertInto('fonction_application').values({ fonction_id: 4, application_id: 3 }).execute()
  await db().updateTable('application').set({ demandable: 1 }).where('id', 'in', [1, 3]).execute()
  nord = await callerOf({ admin: true, postes: [currentPost(2, 1)] })
  sud = await callerOf({ admin: true, postes: [currentPost(3, 3)] })
  root = await callerOf({ admin: true, postes: [currentPost(1, 1)] })
  agent = await callerOf({ postes: [currentPost(4, 2)] })
})

describe('a delegated administrator reaching past their sub-tree', () => {
  it("Direction Sud's administrator decides no request of Agence Lille (grant or refusal): 404, nothing written", async () => {
    const { requester, id } = await waitingRequest()
    await expectError(await decide(sud, id, { accord: false, commentaire: 'Pas chez nous' }), 404, 'NOT_FOUND')
    await expectError(
      await decide(sud, id, { accord: true, fonction: { id: 3 }, structure: { id: 3 } }),
      404,
      'NOT_FOUND',
    )
    expect(await stateOf(id)).toMatchObject({ etat: 'EN_ATTENTE', decideur_id: null, decision: null })
    expect(await postsOf(requester.id, 3)).toEqual([])
    expect(await entriesOf(id)).toEqual([])
    expect(await mailsTo(requester.id)).toEqual([])
  })

  it('a function of another structure, named with a structure of the scope, is refused (no post in Sud through Lille)', async () => {
    const { requester, id } = await waitingRequest()
    const refused = await expectError(
      await decide(nord, id, { accord: true, fonction: { id: 3 }, structure: { id: 4 } }),
      400,
      'VALIDATION_FAILED',
    )
    expect(refused.attributs).toEqual([{ field: 'fonction.id', message: 'validation.fonctionStructure' }])
    expect(await postsOf(requester.id, 3)).toEqual([])
    expect((await stateOf(id)).etat).toBe('EN_ATTENTE')
  })

  it('a requester who also holds a future post in Direction Sud is not Nord’s: not listed, not shown, not decidable, Nord not told', async () => {
    const nordMails = (await mailsTo(nord.id)).length
    const future = { structureId: 3, fonctionId: 3, from: isoDate(40), to: isoDate(60) }
    const { requester, id } = await waitingRequest([currentPost(4, 2), future])
    expect((await mailsTo(nord.id)).length).toBe(nordMails)
    // The nearest administrators managing them all: the root's.
    expect((await mailsTo(root.id)).length).toBeGreaterThan(0)
    const listed = await okBody(api(nord.token).rest.bd.demande.aTraiter.$get({ query: { q: requester.login } }))
    expect(listed).toEqual([])
    await expectError(await call(`/rest/bd/demande/${id}`, { token: nord.token }), 404, 'NOT_FOUND')
    await expectError(await decide(nord, id, grant), 404, 'NOT_FOUND')
    expect(await postsOf(requester.id)).toEqual([])
    // The root administrator manages them.
    expect((await call(`/rest/bd/demande/${id}`, { token: root.token })).status).toBe(200)
  })

  it('an administrator whose post has not started yet has no scope: 404 on the request, nothing listed', async () => {
    const { id } = await waitingRequest()
    const early = await callerOf({
      admin: true,
      postes: [{ structureId: 2, fonctionId: 1, from: isoDate(1), to: isoDate(30) }],
    })
    await expectError(await call(`/rest/bd/demande/${id}`, { token: early.token }), 404, 'NOT_FOUND')
    await expectError(await decide(early, id, grant), 404, 'NOT_FOUND')
    expect(await (await call('/rest/bd/demande/aTraiter', { token: early.token })).json()).toEqual([])
    expect((await stateOf(id)).etat).toBe('EN_ATTENTE')
  })

  // As POST poste refuses a deleted user, so do the list and the grant's guard.
  it("a deleted user's request is neither listed nor granted: no post is given to a deleted user (as POST poste refuses)", async () => {
    const { requester, id } = await waitingRequest()
    expect(
      (await call(`/rest/bd/utilisateur/suppression/${requester.id}`, { method: 'DELETE', token: nord.token })).status,
    ).toBe(204)
    // POST rest/bd/poste refuses a post to a deleted user…
    await expectError(
      await post(
        '/rest/bd/poste',
        { utilisateur: { id: requester.id }, structure: { id: 4 }, fonction: { id: 4 }, ...period(0, 29) },
        { token: nord.token },
      ),
      400,
      'VALIDATION_FAILED',
    )
    // …and so should the decision of their request.
    const listed = await okBody(api(nord.token).rest.bd.demande.aTraiter.$get({ query: { q: requester.login } }))
    expect
      .soft(
        listed.map((r) => r.id),
        'listed to decide',
      )
      .not.toContain(id)
    const response = await decide(nord, id, grant)
    expect.soft(response.status, 'the grant').not.toBe(200)
    expect(await postsOf(requester.id), 'a post of a deleted user').toEqual([])
  })
})

describe('an ordinary user', () => {
  it('decides nothing, reads no request to decide, not even their own', async () => {
    const { requester, id } = await waitingRequest()
    await expectError(await decide(requester, id, grant), 403, 'FORBIDDEN')
    await expectError(await decide(requester, id, { accord: false, commentaire: 'Non merci' }), 403, 'FORBIDDEN')
    await expectError(await decide(agent, id, grant), 403, 'FORBIDDEN')
    await expectError(await call(`/rest/bd/demande/${id}`, { token: requester.token }), 403, 'FORBIDDEN')
    await expectError(await call(`/rest/bd/demande/${id}`, { token: agent.token }), 403, 'FORBIDDEN')
    expect((await stateOf(id)).etat).toBe('EN_ATTENTE')
    expect(await postsOf(requester.id)).toEqual([])
  })

  it('asks for no application disabled in the catalogue, even one marked demandable', async () => {
    await db().updateTable('application').set({ actif: 0, demandable: 1 }).where('id', '=', 2).execute()
    try {
      const requester = await callerOf({ postes: [currentPost(2, 1)] })
      const refused = await expectError(await ask(requester, request(2)), 400, 'VALIDATION_FAILED')
      expect(refused.attributs).toEqual([{ field: 'application.id', message: 'validation.unknown' }])
      const listed = await okBody(api(requester.token).rest.bd.demande.applications.$get())
      expect(listed.map((item) => item.application.id)).not.toContain(2)
    } finally {
      await db().updateTable('application').set({ actif: 1, demandable: 0 }).where('id', '=', 2).execute()
    }
  })

  it('odd or huge input is a 400 (or 404), never the server’s error, and writes nothing', async () => {
    const requester = await callerOf({ postes: [currentPost(4, 2)] })
    const bodies: unknown[] = [
      null,
      [],
      'demande',
      {},
      { ...request(), application: { id: 1e20 } },
      { ...request(), application: { id: '3; drop table poste' } },
      { ...request(), application: { id: -3 } },
      { ...request(), application: { id: 3.5 } },
      { ...request(), application: 3 },
      { ...request(), motif: 'x'.repeat(100_000) },
      { ...request(), motif: '😀'.repeat(501) },
      { ...request(), motif: '   ' },
      { ...request(), motif: ['a', 'b', 'c'] },
      { ...request(), dateDebut: isoDate(0), dateFin: isoDate(3) },
      { ...request(), dateDebut: '31/02/2030', dateFin: '01/03/2030' },
      { ...request(), dateDebut: '01/01/0000', dateFin: '02/01/0000' },
      { ...request(), dateDebut: '00/00/2030', dateFin: '01/01/2030' },
      { ...request(), dateFin: '31/12/9999' },
      { ...request(), dateDebut: wireDate(isoDate(0)), dateFin: null },
    ]
    for (const [index, body] of bodies.entries()) {
      const response = await ask(requester, body)
      expect([400, 413], `body ${index}`).toContain(response.status)
    }
    expect(
      await db().selectFrom('demande_acces').select('id').where('utilisateur_id', '=', requester.id).execute(),
    ).toEqual([])
    for (const path of ['99999999999999999999', '9007199254740993', '1e400', '0', '-1', '1.5', 'abc', '%00']) {
      for (const method of ['GET', 'DELETE']) {
        const response = await call(`/rest/bd/demande/${path}`, {
          method,
          token: method === 'GET' ? nord.token : requester.token,
        })
        expect([400, 404], `${method} ${path}`).toContain(response.status)
      }
      const decision = await post(`/rest/bd/demande/${path}/decision`, grant, { token: nord.token })
      expect([400, 404], `decision ${path}`).toContain(decision.status)
    }
  })

  it('a decision’s odd input is a 400, never the server’s error, and writes nothing', async () => {
    const { requester, id } = await waitingRequest()
    const bodies: unknown[] = [
      { accord: 'true', fonction: { id: 4 }, structure: { id: 4 } },
      { ...grant, fonction: { id: 1e20 } },
      { ...grant, structure: { id: 1e20 } },
      { ...grant, ...period(5, 2) },
      { ...grant, dateDebut: wireDate(isoDate(0)) },
      { ...grant, ...period(-40, -30) },
      { ...grant, dateDebut: '31/02/2030', dateFin: '01/03/2030' },
      { ...grant, commentaire: 'x'.repeat(501) },
      { accord: false, commentaire: '  a  ' },
      { accord: false, commentaire: 'x'.repeat(100_000) },
    ]
    for (const [index, body] of bodies.entries()) {
      const response = await decide(nord, id, body)
      expect([400, 413], `body ${index}`).toContain(response.status)
    }
    expect((await stateOf(id)).etat).toBe('EN_ATTENTE')
    expect(await postsOf(requester.id)).toEqual([])
  })

  // Each request mails the requester's administrators: 10 a day (README, "Access requests"), asked and withdrawn or not.
  it('cannot flood the administrators: 10 requests a day, then 429 TOO_MANY_ATTEMPTS with the wait', async () => {
    expect(REQUESTS_PER_DAY).toBe(10)
    const requester = await callerOf({ postes: [currentPost(4, 2)] })
    const before = (await mailsTo(nord.id)).length
    const statuses: number[] = []
    for (let round = 0; round < 12; round++) {
      const response = await api(requester.token).rest.bd.demande.$post({ json: request() })
      // The route declares no 429 (its answers are 201, 400, 401, 403 and 409): the status read as any number.
      const status: number = response.status
      statuses.push(status)
      if (status === 429) {
        const wait = Number(response.headers.get('Retry-After'))
        expect(wait).toBeGreaterThan(86_000)
        expect(wait).toBeLessThanOrEqual(86_400)
        await errorBody(response, 429, 'TOO_MANY_ATTEMPTS')
        continue
      }
      const { id } = await okBody(response, 201)
      expect((await withdraw(requester, id)).status).toBe(204)
    }
    expect(statuses).toEqual([...Array(10).fill(201), 429, 429])
    expect((await mailsTo(nord.id)).length - before).toBe(10)
  })
})

describe('a stolen service account token', () => {
  it('asks, lists and withdraws nothing on anyone’s behalf (no route of the requester is open to a program)', async () => {
    const account = await insertServiceAccount({ structure: 2, scopes: 'api logs' })
    const token = await serviceAccountToken(account)
    const { id } = await waitingRequest()
    await expectError(await ask({ token }, request()), 403, 'SERVICE_ACCOUNT_SCOPE')
    await expectError(await call('/rest/bd/demande/applications', { token }), 403, 'SERVICE_ACCOUNT_SCOPE')
    await expectError(await call('/rest/bd/demande/miennes', { token }), 403, 'SERVICE_ACCOUNT_SCOPE')
    await expectError(await call(`/rest/bd/demande/${id}`, { method: 'DELETE', token }), 403, 'SERVICE_ACCOUNT_SCOPE')
    expect((await stateOf(id)).etat).toBe('EN_ATTENTE')
  })

  it('a token without the api scope, or of an account that is not an administrator, decides nothing', async () => {
    const { id } = await waitingRequest()
    const logsOnly = await serviceAccountToken(await insertServiceAccount({ structure: 2, scopes: 'logs' }))
    await expectError(await call('/rest/bd/demande/aTraiter', { token: logsOnly }), 403, 'SERVICE_ACCOUNT_SCOPE')
    await expectError(await call(`/rest/bd/demande/${id}`, { token: logsOnly }), 403, 'SERVICE_ACCOUNT_SCOPE')
    await expectError(await decide({ token: logsOnly }, id, grant), 403, 'SERVICE_ACCOUNT_SCOPE')
    const plain = await serviceAccountToken(await insertServiceAccount({ structure: 2, scopes: 'api', admin: 0 }))
    // A read-only account reads the requests of its sub-tree, and decides none.
    expect((await call('/rest/bd/demande/aTraiter', { token: plain })).status).toBe(200)
    await expectError(await decide({ token: plain }, id, grant), 403, 'SERVICE_ACCOUNT_SCOPE')
    expect((await stateOf(id)).etat).toBe('EN_ATTENTE')
  })

  it("Direction Sud's account decides no request of Agence Lille", async () => {
    const { requester, id } = await waitingRequest()
    const token = await serviceAccountToken(await insertServiceAccount({ structure: 3, scopes: 'api' }))
    const listed = await okBody(api(token).rest.bd.demande.aTraiter.$get({ query: { q: requester.login } }))
    expect(listed).toEqual([])
    await expectError(await call(`/rest/bd/demande/${id}`, { token }), 404, 'NOT_FOUND')
    await expectError(await decide({ token }, id, { accord: false, commentaire: 'Pas chez nous' }), 404, 'NOT_FOUND')
    await expectError(
      await decide({ token }, id, { accord: true, fonction: { id: 3 }, structure: { id: 3 } }),
      404,
      'NOT_FOUND',
    )
    expect((await stateOf(id)).etat).toBe('EN_ATTENTE')
  })

  it('an account decides no request of the one who made it, nor lists it: a program does not decide for its maker', async () => {
    const { requester, id } = await waitingRequest()
    // The requester is an administrator of Direction Nord too, for whom the account acts (it acts for nobody else).
    await db().updateTable('utilisateur').set({ admin: 1 }).where('id', '=', requester.id).execute()
    await db()
      .insertInto('poste')
      .values({
        utilisateur_id: requester.id,
        structure_id: 2,
        fonction_id: 1,
        date_debut: isoDate(-1),
        date_fin: isoDate(30),
      })
      .execute()
    const token = await serviceAccountToken(
      await insertServiceAccount({ structure: 2, scopes: 'api', creePar: requester.id }),
    )
    const listed = await okBody(api(token).rest.bd.demande.aTraiter.$get({ query: { q: requester.login } }))
    expect(listed).toEqual([])
    await expectError(await call(`/rest/bd/demande/${id}`, { token }), 403, 'FORBIDDEN')
    await expectError(await decide({ token }, id, grant), 403, 'FORBIDDEN')
    await expectError(await decide({ token }, id, { accord: false, commentaire: 'Non' }), 403, 'FORBIDDEN')
    expect((await stateOf(id)).etat).toBe('EN_ATTENTE')
    expect(await postsOf(requester.id)).toEqual([])
    expect(await entriesOf(id)).toEqual([])
  })

  it("Direction Nord's account grants a request of its sub-tree: the post, the request and both entries name the account", async () => {
    const { requester, id } = await waitingRequest()
    const account = await insertServiceAccount({ structure: 2, scopes: 'api' })
    const token = await serviceAccountToken(account)
    const { database, seen } = measuredDb()
    const { poste } = await okBody(
      api(token, { DB: database }).rest.bd.demande[':id'].decision.$post({
        param: { id },
        json: { ...grant, commentaire: 'x'.repeat(500) },
      }),
    )
    expect(await stateOf(id)).toMatchObject({ etat: 'ACCORDEE', decideur_id: -account.id, poste_id: poste?.id })
    expect(await postsOf(requester.id)).toEqual([expect.objectContaining({ id: poste?.id })])
    expect(await entriesOf(id)).toEqual([
      expect.objectContaining({ nom_log: 'DEMANDE_ACCORD', utilisateur_id: null, compte_service_id: account.id }),
    ])
    expect(await postEntriesAbout(requester.login)).toEqual([{ utilisateur_id: null, compte_service_id: account.id }])
    expect(seen.maxBound, seen.worst).toBeLessThanOrEqual(100)
  })
})

describe('two writers at once', () => {
  it('the requester withdraws between the grant’s read and its write: 409, no post, no entry, no mail', async () => {
    const { requester, id } = await waitingRequest()
    const response = await decide(nord, id, grant, {
      env: { DB: changedBeforeWrite(async () => expect((await withdraw(requester, id)).status).toBe(204)) },
    })
    await expectError(response, 409, 'DEMANDE_TRAITEE')
    expect((await stateOf(id)).etat).toBe('RETIREE')
    expect(await postsOf(requester.id)).toEqual([])
    expect(await postEntriesAbout(requester.login)).toEqual([])
    // The withdrawal's own entry only.
    expect((await entriesOf(id)).map((entry) => entry.nom_log)).toEqual(['DEMANDE_RETRAIT'])
    expect(await mailsTo(requester.id)).toEqual([])
  })

  it('another administrator gives the same post meanwhile (POST poste): 409, one post, the request still waiting', async () => {
    const { requester, id } = await waitingRequest()
    const response = await decide(nord, id, grant, {
      env: {
        DB: changedBeforeWrite(async () => {
          const given = await post(
            '/rest/bd/poste',
            { utilisateur: { id: requester.id }, structure: { id: 4 }, fonction: { id: 4 }, ...period(10, 12) },
            { token: root.token },
          )
          expect(given.status).toBe(201)
        }),
      },
    })
    await expectError(response, 409, 'POSTE_ALREADY_EXIST')
    expect(await postsOf(requester.id)).toHaveLength(1)
    expect(await stateOf(id)).toMatchObject({ etat: 'EN_ATTENTE', poste_id: null })
    expect(await mailsTo(requester.id)).toEqual([])
  })

  // The answer of a grant that lost to a change says which change: here the function no longer granting the application.
  it('the function stops granting the application meanwhile: nothing written, and the answer says so (not "outside your scope")', async () => {
    await db().insertInto('fonction').values({ id: 6, libelle: 'Planificateur adjoint', structure_id: 4 }).execute()
    await db().insertInto('fonction_application').values({ fonction_id: 6, application_id: 3 }).execute()
    const { requester, id } = await waitingRequest()
    const response = await decide(
      nord,
      id,
      { ...grant, fonction: { id: 6 } },
      {
        env: {
          DB: changedBeforeWrite(() => db().deleteFrom('fonction_application').where('fonction_id', '=', 6).execute()),
        },
      },
    )
    expect(await postsOf(requester.id, 6)).toEqual([])
    expect((await stateOf(id)).etat).toBe('EN_ATTENTE')
    // The structure is Nord's all along: the refusal should name the function, as without the race.
    const body = await expectError(response, 400, 'VALIDATION_FAILED')
    expect(body.attributs).toEqual([{ field: 'fonction.id', message: 'validation.fonctionApplication' }])
  })

  it("the administrator's flag is taken away meanwhile: nothing written", async () => {
    const { requester, id } = await waitingRequest()
    const loser = await callerOf({ admin: true, postes: [currentPost(2, 1)] })
    const response = await decide(loser, id, grant, {
      env: {
        DB: changedBeforeWrite(() =>
          db().updateTable('utilisateur').set({ admin: 0 }).where('id', '=', loser.id).execute(),
        ),
      },
    })
    expect([403, 404]).toContain(response.status)
    expect((await stateOf(id)).etat).toBe('EN_ATTENTE')
    expect(await postsOf(requester.id)).toEqual([])
    expect(await entriesOf(id)).toEqual([])
  })

  it('the application is taken off the demandable list between the ask’s read and its write: no request, no entry, no mail', async () => {
    await db().updateTable('application').set({ demandable: 1 }).where('id', '=', 4).execute()
    const requester = await callerOf({ postes: [currentPost(4, 2)] })
    const mails = await db()
      .selectFrom('outbox')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    const response = await ask(requester, request(4), {
      env: {
        DB: changedBeforeWrite(() =>
          db().updateTable('application').set({ demandable: 0 }).where('id', '=', 4).execute(),
        ),
      },
    })
    await expectError(response, 400, 'VALIDATION_FAILED')
    expect(
      await db().selectFrom('demande_acces').select('id').where('utilisateur_id', '=', requester.id).execute(),
    ).toEqual([])
    expect(
      await db()
        .selectFrom('log')
        .select('id')
        .where('nom_log', '=', 'DEMANDE_CREATION')
        .where('utilisateur_id', '=', requester.id)
        .execute(),
    ).toEqual([])
    expect(
      await db()
        .selectFrom('outbox')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow(),
    ).toEqual(mails)
  })
})

describe('expiry', () => {
  // A request's age decides, not the hourly job's sweep (100 a run): past its 14 days, it is expired.
  it('a request past its 14 days, not yet swept by the hourly job, is no longer granted', async () => {
    const { requester, id } = await waitingRequest()
    await db()
      .updateTable('demande_acces')
      .set({ created_at: new Date(Date.now() - 16 * 86_400_000).toISOString() })
      .where('id', '=', id)
      .execute()
    const response = await decide(nord, id, grant)
    expect(response.status).toBe(409)
    expect(await postsOf(requester.id)).toEqual([])
  })
})

describe("D1's limits", () => {
  it('every statement of a search, a detail and a decision binds at most 100 values', async () => {
    const { requester, id } = await waitingRequest()
    const q = encodeURIComponent('alpha beta gamma delta epsilon zeta eta theta')
    for (const [path, who] of [
      [`/rest/bd/demande/aTraiter?page=2&taille=100&tri=-dateDemande&q=${q}`, nord],
      [`/rest/bd/demande/aTraiter?page=1&q=${requester.login}`, root],
      [`/rest/bd/demande/${id}?q=${q}`, nord],
    ] as const) {
      const { database, seen } = measuredDb()
      expect((await call(path, { token: who.token, env: { DB: database } })).status, path).toBe(200)
      expect(seen.maxBound, `${path}: ${seen.worst}`).toBeGreaterThan(0)
      expect(seen.maxBound, `${path}: ${seen.worst}`).toBeLessThanOrEqual(100)
    }
    const { database, seen } = measuredDb()
    const response = await decide(
      nord,
      id,
      { ...grant, ...period(1, 20), commentaire: 'Pour la saison' },
      { env: { DB: database } },
    )
    expect(response.status).toBe(200)
    expect(seen.maxBound, seen.worst).toBeLessThanOrEqual(100)
  })
})
