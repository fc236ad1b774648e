import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import { REQUEST_ESCALATION_DAYS, REQUEST_EXPIRY_DAYS } from '../../../worker-api/contract/governance/access-requests'
import { backgroundContext } from '../../../worker-api/lib/context'
import { requestDeadlines } from '../../../worker-api/services/governance/request-notices'
import { api, okBody } from '../client'
import {
  type Caller,
  call,
  callerOf,
  changedBeforeWrite,
  createOrganisation,
  currentPost,
  db,
  expectError,
  isoDate,
  ORIGIN,
  post,
  wireDate,
} from '../helpers'

/**
 * Access requests (README, "Access requests"): a user asks for a demandable application from their launcher; the
 * administrators who manage them are told (the nearest sub-tree's first) and one grants it with a post or refuses it;
 * undecided, it expires after 14 days. The organisation of helpers.ts: Groupe (1) › Direction Nord (2) › Agence Lille
 * (4), Direction Sud (3); fonction 2 (Agent de quai, Lille) grants Yard dangereux (1) and Pesage (2); here fonction 4
 * (Planificateur, Lille) grants Module Rendez vous (3), which fonction 3 (Responsable, Direction Sud) grants too.
 */

let agent: Caller
let nord: Caller
let nordEn: Caller
let sud: Caller
let root: Caller

const ask = (who: Caller, body: Record<string, unknown>) => post('/rest/bd/demande', body, { token: who.token })
const period = (from: number, to: number) => ({ dateDebut: wireDate(isoDate(from)), dateFin: wireDate(isoDate(to)) })
const request = (application = 3, days = [0, 29]) => ({
  application: { id: application },
  motif: 'Planifier les rendez-vous du quai',
  ...period(days[0] ?? 0, days[1] ?? 29),
})
const decide = (who: Caller, id: number, body: Record<string, unknown>, init: Parameters<typeof call>[1] = {}) =>
  post(`/rest/bd/demande/${id}/decision`, body, { token: who.token, ...init })

const mailsTo = (userId: number) =>
  db()
    .selectFrom('outbox')
    .select(['subject', 'text', 'kind', 'to_address'])
    .where('utilisateur_id', '=', userId)
    .orderBy('id')
    .execute()
const entries = (nomLog: string) =>
  db().selectFrom('log').select(['utilisateur_id', 'type_log', 'commentaire']).where('nom_log', '=', nomLog).execute()
const stateOf = (id: number) =>
  db().selectFrom('demande_acces').selectAll().where('id', '=', id).executeTakeFirstOrThrow()

/** A fresh requester in Agence Lille (Agent de quai) and their waiting request for Module Rendez vous. */
async function waitingRequest(options: { application?: number } = {}) {
  const requester = await callerOf({ postes: [currentPost(4, 2)] })
  const { id } = await okBody(
    api(requester.token).rest.bd.demande.$post({ json: request(options.application ?? 3) }),
    201,
  )
  return { requester, id }
}

beforeAll(async () => {
  await createOrganisation()
  await db().insertInto('fonction').values({ id: 4, libelle: 'Planificateur', structure_id: 4 }).execute()
  await db().insertInto('fonction_application').values({ fonction_id: 4, application_id: 3 }).execute()
  await db().updateTable('application').set({ demandable: 1 }).where('id', 'in', [1, 3]).execute()
  agent = await callerOf({ postes: [currentPost(4, 2)] })
  nord = await callerOf({ admin: true, postes: [currentPost(2, 1)] })
  nordEn = await callerOf({ admin: true, postes: [currentPost(2, 1)] })
  await db().updateTable('utilisateur').set({ langue: 'en' }).where('id', '=', nordEn.id).execute()
  sud = await callerOf({ admin: true, postes: [currentPost(3, 3)] })
  root = await callerOf({ admin: true, postes: [currentPost(1, 1)] })
})

describe('asking', () => {
  it('lists the demandable applications the user cannot launch, with the longest period', async () => {
    const response = await call('/rest/bd/demande/applications', { token: agent.token })
    expect(response.status).toBe(200)
    // Yard dangereux is demandable but already theirs; Facturation is not demandable.
    expect(await response.json()).toEqual([
      { application: { id: 3, libelle: 'Module Rendez vous', icone: 'calendar' }, dureeMaxJours: 90, demande: null },
    ])
  })

  it("the launcher reads its other applications and latest requests with its access, in one call on one's own list", async () => {
    const { requester } = await waitingRequest()
    const access = (who: Caller, userId: number, query: string) =>
      call(`/rest/bd/acces/utilisateur/${userId}?${query}`, { token: who.token })
    const accessOf = (query: { futurs?: 'true' | 'false'; demandes?: number }) =>
      okBody(api(requester.token).rest.bd.acces.utilisateur[':userId'].$get({ param: { userId: requester.id }, query }))
    const body = await accessOf({ futurs: 'true', demandes: 5 })
    const alone = async (path: string) => (await call(path, { token: requester.token })).json()
    // The same as the two calls it stands for, beside the access list the call has always answered.
    expect(body.demandables).toEqual(await alone('/rest/bd/demande/applications'))
    expect(body.demandes).toEqual(await alone('/rest/bd/demande/miennes?taille=5'))
    expect(body.demandes).toMatchObject([{ application: { id: 3 }, etat: 'EN_ATTENTE' }])
    const plain = await accessOf({ futurs: 'true' })
    expect(body).toMatchObject(plain)
    expect(plain.accesApplication).toHaveLength(2)
    expect(await (await access(requester, requester.id, 'demandes=5')).json()).not.toHaveProperty('accesFuturs')
    // Another user's requests are theirs: not even an administrator who manages them reads them here.
    await expectError(await access(nord, requester.id, 'futurs=true&demandes=5'), 400, 'VALIDATION_FAILED')
    for (const bad of ['demandes=0', 'demandes=21', 'demandes=tous'])
      await expectError(await access(requester, requester.id, bad), 400, 'VALIDATION_FAILED')
    expect((await access(requester, requester.id, 'demandes=20')).status).toBe(200)
  })

  it('a root administrator marks an application demandable (PUT application), audited; a PUT without the flag keeps it', async () => {
    const read = () => okBody(api(root.token).rest.bd.application[':id'].$get({ param: { id: 4 }, query: {} }))
    const put = (body: Record<string, unknown>) =>
      call('/rest/bd/application', { method: 'PUT', token: root.token, body: JSON.stringify(body) })
    const before = await read()
    const body = {
      id: 4,
      libelle: before.libelle,
      icone: before.icone,
      url: before.url,
      actif: true,
      protocole: 'CODE',
      fonctions: before.fonctions.map(({ id }) => ({ id })),
    }
    expect((await put({ ...body, demandable: true })).status).toBe(200)
    expect((await read()).demandable).toBe(true)
    expect((await put(body)).status).toBe(200)
    expect((await read()).demandable).toBe(true)
    expect(await entries('APPLICATION_MODIFICATION')).toContainEqual(
      expect.objectContaining({ utilisateur_id: root.id, commentaire: expect.stringContaining('demandable') }),
    )
    const listed = await okBody(api(agent.token).rest.bd.demande.applications.$get())
    expect(listed.map((item) => item.application.id)).toEqual([4, 3])
    expect((await put({ ...body, demandable: false })).status).toBe(200)
  })

  it('writes the request with its entry, tells the nearest administrators in their language, and shows it waiting', async () => {
    const requester = await callerOf({ postes: [currentPost(4, 2)] })
    const { id, etat } = await okBody(api(requester.token).rest.bd.demande.$post({ json: request() }), 201)
    expect(etat).toBe('EN_ATTENTE')
    expect(await entries('DEMANDE_CREATION')).toContainEqual({
      utilisateur_id: requester.id,
      type_log: 'DEMANDE_ACCES',
      commentaire: expect.stringContaining('Module Rendez vous'),
    })
    // Direction Nord's administrators (the nearest sub-tree over Agence Lille), not the root's nor Direction Sud's.
    const [fr] = await mailsTo(nord.id)
    expect(fr).toMatchObject({ kind: 'ACCESS_REQUEST', subject: "Demande d'accès à Module Rendez vous" })
    expect(fr?.text).toContain('Planifier les rendez-vous du quai')
    expect(fr?.text).toContain(`${ORIGIN}/pages/admin/demandes`)
    const [en] = await mailsTo(nordEn.id)
    expect(en?.subject).toBe('Access request for Module Rendez vous')
    expect(await mailsTo(root.id)).toEqual([])
    expect(await mailsTo(sud.id)).toEqual([])

    const listed = await okBody(api(requester.token).rest.bd.demande.applications.$get())
    expect(listed[0]?.demande).toMatchObject({
      id,
      etat: 'EN_ATTENTE',
      expiration: wireDate(isoDate(REQUEST_EXPIRY_DAYS)),
    })
    const mine = await call('/rest/bd/demande/miennes?page=1', { token: requester.token })
    expect(mine.headers.get('X-Total-Count')).toBe('1')
    expect(await mine.json()).toEqual([expect.objectContaining({ id, etat: 'EN_ATTENTE', motif: request().motif })])
    // The launcher's latest: that many of the newest, uncounted.
    const latest = await api(requester.token).rest.bd.demande.miennes.$get({ query: { taille: 1 } })
    expect(latest.headers.get('X-Total-Count')).toBeNull()
    expect((await okBody(latest)).map((mine) => mine.id)).toEqual([id])
  })

  it('allows one waiting request per application, none for an application already open, none not demandable', async () => {
    const requester = await callerOf({ postes: [currentPost(4, 2)] })
    expect((await ask(requester, request())).status).toBe(201)
    await expectError(await ask(requester, request()), 409, 'DEMANDE_EN_COURS')
    await expectError(await ask(requester, request(1)), 409, 'ACCES_DEJA_OUVERT')
    const refused = await expectError(await ask(requester, request(4)), 400, 'VALIDATION_FAILED')
    expect(refused.attributs).toEqual([{ field: 'application.id', message: 'validation.unknown' }])
  })

  it('two requests sent at once: the index of waiting requests keeps one', async () => {
    const requester = await callerOf({ postes: [currentPost(4, 2)] })
    const answers = await Promise.all([ask(requester, request()), ask(requester, request())])
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409])
    const rows = await db()
      .selectFrom('demande_acces')
      .select('id')
      .where('utilisateur_id', '=', requester.id)
      .execute()
    expect(rows).toHaveLength(1)
    expect((await entries('DEMANDE_CREATION')).filter((e) => e.utilisateur_id === requester.id)).toHaveLength(1)
  })

  it('bounds the period: from today, within a year, at most the settings’ days (90, then what the root sets)', async () => {
    const requester = await callerOf({ postes: [currentPost(4, 2)] })
    const field = async (body: Record<string, unknown>) =>
      ((await expectError(await ask(requester, body), 400, 'VALIDATION_FAILED')).attributs as { message: string }[])[0]
        ?.message
    expect(await field(request(3, [-1, 10]))).toBe('validation.requestStartPast')
    expect(await field(request(3, [366, 370]))).toBe('validation.requestStartFar')
    expect(await field(request(3, [0, 90]))).toBe('validation.requestTooLong')
    expect(await field(request(3, [5, 4]))).toBe('validation.dateRange')
    expect(await field({ ...request(), motif: 'a' })).toBe('validation.reasonLength')

    const settings = (body: unknown) =>
      call('/rest/bd/parametres/securite', { method: 'PUT', token: root.token, body: JSON.stringify(body) })
    expect((await settings({ mfaRequisAdministrateurs: false, demandeDureeMaxJours: 10 })).status).toBe(200)
    try {
      expect(await field(request(3, [0, 10]))).toBe('validation.requestTooLong')
      const listed = await okBody(api(requester.token).rest.bd.demande.applications.$get())
      expect(listed[0]?.dureeMaxJours).toBe(10)
      expect((await ask(requester, request(3, [0, 9]))).status).toBe(201)
      for (const days of [0, 3661, 1.5])
        expect((await settings({ demandeDureeMaxJours: days })).status, `${days} days`).toBe(400)
      // A client that sends only the second factor's setting keeps the duration.
      expect(await (await settings({ mfaRequisAdministrateurs: false })).json()).toEqual({
        mfaRequisAdministrateurs: false,
        demandeDureeMaxJours: 10,
        historiqueMoisEnLigne: 13,
      })
    } finally {
      expect((await settings({ mfaRequisAdministrateurs: false, demandeDureeMaxJours: 90 })).status).toBe(200)
    }
  })

  it('the author withdraws a waiting request (once); nobody else can', async () => {
    const { requester, id } = await waitingRequest()
    await expectError(await call(`/rest/bd/demande/${id}`, { method: 'DELETE', token: agent.token }), 404, 'NOT_FOUND')
    await expectError(await call(`/rest/bd/demande/${id}`, { method: 'DELETE', token: nord.token }), 404, 'NOT_FOUND')
    expect((await call(`/rest/bd/demande/${id}`, { method: 'DELETE', token: requester.token })).status).toBe(204)
    expect((await stateOf(id)).etat).toBe('RETIREE')
    expect(await entries('DEMANDE_RETRAIT')).toContainEqual(expect.objectContaining({ utilisateur_id: requester.id }))
    const again = await call(`/rest/bd/demande/${id}`, { method: 'DELETE', token: requester.token })
    await expectError(again, 409, 'DEMANDE_TRAITEE')
    // Withdrawn, it may be asked again.
    expect((await ask(requester, request())).status).toBe(201)
  })
})

describe('deciding', () => {
  it('lists the waiting requests of the users each administrator manages, with what they hold', async () => {
    const { requester, id } = await waitingRequest()
    const listed = async (who: Caller) => {
      const response = await api(who.token).rest.bd.demande.aTraiter.$get({
        query: { page: 1, taille: 100, q: requester.login },
      })
      return {
        total: response.headers.get('X-Total-Count'),
        ids: (await okBody(response)).map((r) => r.id),
      }
    }
    expect(await listed(nord)).toEqual({ total: '1', ids: [id] })
    expect(await listed(root)).toEqual({ total: '1', ids: [id] })
    expect(await listed(sud)).toEqual({ total: '0', ids: [] })
    await expectError(await call('/rest/bd/demande/aTraiter', { token: agent.token }), 403, 'FORBIDDEN')
    const [shown] = await okBody(api(nord.token).rest.bd.demande.aTraiter.$get({ query: { q: requester.login } }))
    expect(shown?.utilisateur.id).toBe(requester.id)
    expect(shown?.postes).toEqual([
      expect.objectContaining({
        structure: { id: 4, nom: 'Agence Lille' },
        fonction: { id: 2, libelle: 'Agent de quai' },
      }),
    ])
  })

  it('offers the functions of the scope that open the application, the requester’s structures first', async () => {
    const { id } = await waitingRequest()
    const proposals = async (who: Caller) =>
      (await okBody(api(who.token).rest.bd.demande[':id'].$get({ param: { id }, query: {} }))).propositions.map((p) => [
        p.fonction.id,
        p.actuelle,
      ])
    expect(await proposals(nord)).toEqual([[4, true]])
    expect(await proposals(root)).toEqual([
      [4, true],
      [3, false],
    ])
    await expectError(await call(`/rest/bd/demande/${id}`, { token: sud.token }), 404, 'NOT_FOUND')
  })

  it('granting creates the post (audited as any post), opens the application and tells the user', async () => {
    const { requester, id } = await waitingRequest()
    const decision = await okBody(
      api(nord.token).rest.bd.demande[':id'].decision.$post({
        param: { id },
        json: { accord: true, fonction: { id: 4 }, structure: { id: 4 }, commentaire: 'Pour la saison' },
      }),
    )
    expect(decision.etat).toBe('ACCORDEE')
    const row = await stateOf(id)
    expect(row).toMatchObject({ etat: 'ACCORDEE', decideur_id: nord.id, poste_id: decision.poste?.id })
    const poste = await db()
      .selectFrom('poste')
      .selectAll()
      .where('id', '=', decision.poste?.id ?? 0)
      .executeTakeFirstOrThrow()
    expect(poste).toMatchObject({
      utilisateur_id: requester.id,
      structure_id: 4,
      fonction_id: 4,
      date_debut: isoDate(0),
      date_fin: isoDate(29),
    })
    expect(await entries('POSTE_CREATION')).toContainEqual(
      expect.objectContaining({ utilisateur_id: nord.id, commentaire: expect.stringContaining(requester.login) }),
    )
    expect(await entries('DEMANDE_ACCORD')).toContainEqual(expect.objectContaining({ utilisateur_id: nord.id }))
    const [told] = await mailsTo(requester.id)
    expect(told).toMatchObject({ kind: 'ACCESS_DECISION', subject: 'Accès accordé : Module Rendez vous' })
    expect(told?.text).toContain('Pour la saison')
    const access = await okBody(
      api(requester.token).rest.bd.acces.utilisateur[':userId'].$get({ param: { userId: requester.id }, query: {} }),
    )
    expect(access.accesApplication.map((a) => a.application.id)).toContain(3)
    // Decided: a second decision is told so, and nothing more is written.
    await expectError(await decide(root, id, { accord: false, commentaire: 'Trop tard' }), 409, 'DEMANDE_TRAITEE')
    expect(await mailsTo(requester.id)).toHaveLength(1)
  })

  it('grants over other dates, refuses a function that does not open it or a structure out of scope', async () => {
    const { id } = await waitingRequest()
    const field = async (body: Record<string, unknown>) =>
      (
        (await expectError(await decide(nord, id, body), 400, 'VALIDATION_FAILED')).attributs as {
          field: string
          message: string
        }[]
      )[0]
    expect(await field({ accord: true, fonction: { id: 2 }, structure: { id: 4 } })).toEqual({
      field: 'fonction.id',
      message: 'validation.fonctionApplication',
    })
    expect(await field({ accord: true })).toMatchObject({ field: 'fonction' })
    await expectError(
      await decide(nord, id, { accord: true, fonction: { id: 3 }, structure: { id: 3 } }),
      403,
      'FORBIDDEN',
    )
    const { poste } = await okBody(
      api(nord.token).rest.bd.demande[':id'].decision.$post({
        param: { id },
        json: { accord: true, fonction: { id: 4 }, structure: { id: 4 }, ...period(2, 5) },
      }),
    )
    expect(
      await db()
        .selectFrom('poste')
        .select(['date_debut', 'date_fin'])
        .where('id', '=', poste?.id ?? 0)
        .executeTakeFirst(),
    ).toEqual({
      date_debut: isoDate(2),
      date_fin: isoDate(5),
    })
  })

  it('refusing takes a reason, tells the user why, and lets them ask again', async () => {
    const { requester, id } = await waitingRequest()
    const missing = await expectError(await decide(nord, id, { accord: false }), 400, 'VALIDATION_FAILED')
    expect(missing.attributs).toEqual([{ field: 'commentaire', message: 'validation.reasonLength' }])
    expect((await decide(nord, id, { accord: false, commentaire: 'Pas de besoin au quai' })).status).toBe(200)
    expect(await stateOf(id)).toMatchObject({ etat: 'REFUSEE', commentaire: 'Pas de besoin au quai', poste_id: null })
    const [told] = await mailsTo(requester.id)
    expect(told?.subject).toBe("Demande d'accès refusée : Module Rendez vous")
    expect(told?.text).toContain('Pas de besoin au quai')
    expect(await entries('DEMANDE_REFUS')).toContainEqual(expect.objectContaining({ utilisateur_id: nord.id }))
    const mine = await okBody(api(requester.token).rest.bd.demande.miennes.$get({ query: {} }))
    expect(mine).toEqual([expect.objectContaining({ id, etat: 'REFUSEE', commentaire: 'Pas de besoin au quai' })])
    expect((await ask(requester, request())).status).toBe(201)
  })

  it('nobody decides their own request', async () => {
    const adminAgent = await callerOf({ admin: true, postes: [currentPost(4, 2)] })
    const { id } = await okBody(api(adminAgent.token).rest.bd.demande.$post({ json: request() }), 201)
    await expectError(await decide(adminAgent, id, { accord: false, commentaire: 'Moi-même' }), 403, 'FORBIDDEN')
    const listed = await okBody(api(adminAgent.token).rest.bd.demande.aTraiter.$get({ query: {} }))
    expect(listed.map((r) => r.id)).not.toContain(id)
  })

  it('two administrators deciding at once: one wins, the other is told, one post', async () => {
    const { requester, id } = await waitingRequest()
    const response = await decide(
      nord,
      id,
      { accord: true, fonction: { id: 4 }, structure: { id: 4 } },
      {
        env: {
          DB: changedBeforeWrite(async () => {
            const other = await decide(root, id, { accord: false, commentaire: 'Refusé par la direction' })
            expect(other.status).toBe(200)
          }),
        },
      },
    )
    await expectError(response, 409, 'DEMANDE_TRAITEE')
    expect(await stateOf(id)).toMatchObject({ etat: 'REFUSEE', decideur_id: root.id })
    expect(
      await db().selectFrom('poste').select('id').where('utilisateur_id', '=', requester.id).execute(),
    ).toHaveLength(1)
    expect((await entries('DEMANDE_ACCORD')).filter((e) => e.commentaire?.startsWith(`#${id} `))).toEqual([])
    expect(await mailsTo(requester.id)).toHaveLength(1)
  })

  it('the requester moved out of the approver’s scope between the read and the write: nothing is written', async () => {
    const { requester, id } = await waitingRequest()
    const response = await decide(
      nord,
      id,
      { accord: true, fonction: { id: 4 }, structure: { id: 4 } },
      {
        env: {
          DB: changedBeforeWrite(() =>
            db()
              .insertInto('poste')
              .values({
                utilisateur_id: requester.id,
                structure_id: 3,
                fonction_id: 3,
                date_debut: isoDate(0),
                date_fin: isoDate(9),
              })
              .execute(),
          ),
        },
      },
    )
    await expectError(response, 404, 'NOT_FOUND')
    expect((await stateOf(id)).etat).toBe('EN_ATTENTE')
    expect(
      await db()
        .selectFrom('poste')
        .select('id')
        .where('utilisateur_id', '=', requester.id)
        .where('fonction_id', '=', 4)
        .execute(),
    ).toEqual([])
  })
})

describe('deadlines (the hourly job)', () => {
  it('are the README’s: 14 days to expire, 7 to escalate', () => {
    expect(REQUEST_EXPIRY_DAYS).toBe(14)
    expect(REQUEST_ESCALATION_DAYS).toBe(7)
  })

  it(`a request undecided for ${REQUEST_EXPIRY_DAYS} days expires and its author is told; one of ${REQUEST_ESCALATION_DAYS} days is told to the next sub-tree up, once`, async () => {
    const { requester: late, id: expiring } = await waitingRequest()
    // A requester in an agency of Direction Sud: its administrators are the nearest ring, the root's the next.
    await db()
      .insertInto('structure')
      .values({ id: 5, nom: 'Agence Marseille', type_id: 3, parent_id: 3, path: '/1/3/5/' })
      .execute()
    await db().insertInto('fonction').values({ id: 5, libelle: 'Agent', structure_id: 5 }).execute()
    const south = await callerOf({ postes: [currentPost(5, 5)] })
    const { id: waiting } = await okBody(api(south.token).rest.bd.demande.$post({ json: request() }), 201)
    // An hour short of its expiry, a request still waits (and was already escalated).
    const { id: almost } = await waitingRequest()
    await db()
      .updateTable('demande_acces')
      .set({
        created_at: new Date(Date.now() - REQUEST_EXPIRY_DAYS * 86_400_000 + 3_600_000).toISOString(),
        relance_at: new Date().toISOString(),
      })
      .where('id', '=', almost)
      .execute()
    const sudMails = (await mailsTo(sud.id)).length
    expect(sudMails).toBeGreaterThan(0)
    const ago = (days: number) => new Date(Date.now() - days * 86_400_000 - 60_000).toISOString()
    await db()
      .updateTable('demande_acces')
      .set({ created_at: ago(REQUEST_EXPIRY_DAYS) })
      .where('id', '=', expiring)
      .execute()
    await db()
      .updateTable('demande_acces')
      .set({ created_at: ago(REQUEST_ESCALATION_DAYS) })
      .where('id', '=', waiting)
      .execute()
    const rootMails = (await mailsTo(root.id)).length
    const ctx = backgroundContext(env)
    const first = await requestDeadlines(ctx)
    expect(first.expired).toBeGreaterThanOrEqual(1)
    expect(await stateOf(expiring)).toMatchObject({ etat: 'EXPIREE' })
    const [told] = await mailsTo(late.id)
    expect(told?.subject).toBe("Demande d'accès expirée : Module Rendez vous")
    expect(await entries('DEMANDE_EXPIRATION')).toContainEqual(
      expect.objectContaining({ utilisateur_id: late.id, commentaire: expect.stringContaining(`#${expiring}`) }),
    )
    expect((await stateOf(waiting)).relance_at).not.toBeNull()
    expect((await stateOf(almost)).etat).toBe('EN_ATTENTE')
    // The root's administrators: the ring above Direction Nord's.
    const reminded = (await mailsTo(root.id)).slice(rootMails)
    expect(reminded.map((mail) => mail.subject)).toContain("Demande d'accès à Module Rendez vous en attente")
    // Run again: nothing more for either.
    await requestDeadlines(ctx)
    expect(await mailsTo(late.id)).toHaveLength(1)
    expect((await mailsTo(root.id)).length).toBe(rootMails + reminded.length)
    expect((await mailsTo(sud.id)).length).toBe(sudMails)
    await expectError(await decide(nord, expiring, { accord: false, commentaire: 'Trop tard' }), 409, 'DEMANDE_TRAITEE')
  })
})
