import { env } from 'cloudflare:test'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { EventsPage, PortalEvent } from '../../../worker-api/contract/machines/events'
import type { WebhookCreated, WebhookDelivery } from '../../../worker-api/contract/machines/webhooks'
import { backgroundContext } from '../../../worker-api/lib/context'
import { FREE_FAILURES } from '../../../worker-api/services/core/attempt-counter'
import { reviewDeadlines } from '../../../worker-api/services/governance/review-deadlines'
import { POST_DAYS_CAUGHT_UP, tellPostDays } from '../../../worker-api/services/machines/post-days'
import {
  deliverWebhooks,
  WEBHOOK_ATTEMPTS,
  WEBHOOK_RETRY_DELAYS_SECONDS,
  WEBHOOK_TIMEOUT_MS,
} from '../../../worker-api/services/machines/webhook-delivery'
import { WEBHOOK_LOG_PAGE } from '../../../worker-api/services/machines/webhook-log'
import { purgeExpired } from '../../../worker-api/services/maintenance'
import {
  call,
  createOrganisation,
  createUser,
  currentPost,
  db,
  insertServiceAccount,
  isoDate,
  lastEventId,
  loginWith,
  ORIGIN,
  post,
  serviceAccountToken,
  sessionFor,
  signIn,
  solvedCaptcha,
  wireDate,
} from '../helpers'
import { type JobOf, jobsQueue } from '../jobs-queue'
import { reviewKit } from '../review-kit'

/**
 * Events and their webhooks (issue 65): a change to a person is told, in the batch that makes it, to the subscriptions
 * whose sub-tree holds them; each delivery goes by the jobs queue to a receiver this run started
 * (tests/webhook-receiver.mjs), which verifies it with the Standard Webhooks library as an integrator would. A
 * receiver that is down, slow or failing is tried again; one that is gone stops its subscription.
 */

const RECEIVER = env.TEST_WEBHOOK_RECEIVER
let root: string
let nord: string
let sud: string
let nordId: number

beforeAll(async () => {
  await createOrganisation()
  root = (await sessionFor((await createUser({ admin: true, postes: [currentPost(1, 1)] })).id)).accessToken
  const nordAdmin = await createUser({ admin: true, postes: [currentPost(2, 2)] })
  nordId = nordAdmin.id
  nord = (await sessionFor(nordAdmin.id)).accessToken
  sud = (await sessionFor((await createUser({ admin: true, postes: [currentPost(3, 3)] })).id)).accessToken
})

type Received = {
  path: string
  headers: Record<string, string>
  body: string
  answered: number
  verified: boolean
  payload: PortalEvent | null
  error?: string
}

let sequence = 0
/** A receiver's address that answers as `scenario` says, and the secret it verifies with once subscribed. */
async function subscribed(
  token: string,
  scenario: string,
  body: Record<string, unknown> = {},
): Promise<{ id: number; key: string; url: string }> {
  const key = `k${++sequence}-${Date.now()}`
  const url = `${RECEIVER}/${scenario}/${key}`
  const response = await post(
    '/rest/bd/webhook',
    { url, evenements: ['utilisateur.*', 'poste.*'], structure: { id: 2 }, ...body },
    { token },
  )
  expect(response.status).toBe(201)
  const made = (await response.json()) as WebhookCreated
  await fetch(`${RECEIVER}/__secret/${key}`, { method: 'PUT', body: made.secret })
  return { id: made.id, key, url }
}

const received = async (key: string) => (await (await fetch(`${RECEIVER}/__received/${key}`)).json()) as Received[]

/** A user created by an administrator (POST rest/bd/utilisateur), posted in Agence Lille (Nord). */
async function hire(token: string, queue: ReturnType<typeof jobsQueue<JobOf<'webhook-delivery'>>>) {
  const n = ++sequence
  const response = await post(
    '/rest/bd/utilisateur',
    {
      login: 'ignored',
      nom: `Embauché${n}`,
      prenom: 'Inès',
      mail: `embauche${n}@example.test`,
      admin: false,
      actif: true,
      domain: ORIGIN,
      poste: {
        structure: { id: 4 },
        fonction: { id: 2 },
        dateDebut: wireDate(isoDate(0)),
        dateFin: wireDate(isoDate(30)),
      },
    },
    { token, env: queue.env },
  )
  expect(response.status).toBe(201)
  return (await response.json()) as { id: number; login: string; postesEnCours: { id: number }[] }
}

/** The events `token`'s caller pulls after `after` (a page of 50). */
const pulledSince = async (after: number, token: string) =>
  (await (await call(`/rest/bd/evenements?depuis=${after}`, { token })).json()) as EventsPage

describe('a change to a person', () => {
  it('reaches the subscriptions of their sub-tree signed, in order, by the jobs queue, and nobody else’s', async () => {
    const queue = jobsQueue<JobOf<'webhook-delivery'>>()
    const nordHook = await subscribed(nord, 'ok')
    const sudHook = await subscribed(sud, 'ok', { structure: { id: 3 } })
    const user = await hire(nord, queue)
    const poste = user.postesEnCours[0]?.id as number
    // The write queued its deliveries' message once answered.
    expect(queue.waiting.map((message) => message.body)).toEqual([{ kind: 'webhook-delivery' }])
    const extended = await call('/rest/bd/poste', {
      method: 'PUT',
      token: nord,
      env: queue.env,
      body: JSON.stringify({ id: poste, dateDebut: wireDate(isoDate(0)), dateFin: wireDate(isoDate(60)) }),
    })
    expect(extended.status).toBe(200)
    const state = await call('/rest/bd/utilisateur/state', {
      method: 'PUT',
      token: nord,
      env: queue.env,
      body: JSON.stringify({ id: user.id, actif: false }),
    })
    expect(state.status).toBe(200)
    await queue.drain()

    const got = await received(nordHook.key)
    expect(got.map((delivery) => [delivery.verified, delivery.error, delivery.answered])).toEqual(
      got.map(() => [true, undefined, 204]),
    )
    expect(got.map((delivery) => delivery.payload?.type)).toEqual([
      'utilisateur.cree',
      'poste.cree',
      'poste.modifie',
      'utilisateur.desactive',
    ])
    const [created, posted, modified, disabled] = got.map((delivery) => delivery.payload as PortalEvent)
    expect(created).toMatchObject({
      type: 'utilisateur.cree',
      acteur: { type: 'utilisateur', id: nordId },
      sujet: { type: 'utilisateur', id: user.id },
      data: { id: user.id, login: user.login, nom: expect.stringMatching(/^Embauché/), actif: true, supprime: false },
    })
    expect(posted).toMatchObject({
      sujet: { type: 'poste', id: poste },
      data: {
        structure: { id: 4, nom: 'Agence Lille' },
        fonction: { id: 2, libelle: 'Agent de quai' },
        utilisateur: { id: user.id, login: user.login },
        dateFin: wireDate(isoDate(30)),
      },
    })
    expect(modified?.data).toMatchObject({ dateFin: wireDate(isoDate(60)) })
    expect(disabled?.data).toMatchObject({ actif: false })
    // The Standard Webhooks headers: the id names the event (the same at every attempt), the time is the attempt's.
    for (const delivery of got) {
      expect(delivery.headers['webhook-id']).toBe(`evt_${delivery.payload?.id}`)
      expect(delivery.headers['content-type']).toBe('application/json')
      expect(Math.abs(Number(delivery.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60)
    }
    // Ids increase with the order of the changes; no secret, no password's hash in a body.
    expect(got.map((delivery) => delivery.payload?.id)).toEqual(
      got.map((delivery) => delivery.payload?.id).sort((a, b) => (a ?? 0) - (b ?? 0)),
    )
    expect(got.map((delivery) => delivery.body).join('')).not.toMatch(/password|hash|secret/i)
    // Direction Sud's subscription heard nothing of a person of Direction Nord.
    expect(await received(sudHook.key)).toEqual([])
  })

  it('is told of a deletion, a restoration and a post removed, with the actor a service account when a program acts', async () => {
    const queue = jobsQueue<JobOf<'webhook-delivery'>>()
    const hook = await subscribed(root, 'ok', {
      structure: { id: 1 },
      evenements: ['utilisateur.supprime', 'utilisateur.restaure', 'poste.supprime'],
    })
    const user = await hire(nord, queue)
    const poste = user.postesEnCours[0]?.id as number
    for (const path of [`/rest/bd/utilisateur/suppression/${user.id}`, `/rest/bd/utilisateur/retablir/${user.id}`]) {
      expect((await call(path, { method: 'DELETE', token: nord, env: queue.env })).status).toBe(204)
    }
    // A program removes the post, as the administrator it acts for may.
    const account = await insertServiceAccount({ structure: 1, scopes: 'api' })
    const program = await serviceAccountToken(account)
    expect(
      (await call(`/rest/bd/poste/suppression/${poste}`, { method: 'DELETE', token: program, env: queue.env })).status,
    ).toBe(204)
    await queue.drain()
    const got = await received(hook.key)
    // Only the types it names: not the creation.
    expect(got.map((delivery) => [delivery.verified, delivery.payload?.type])).toEqual([
      [true, 'utilisateur.supprime'],
      [true, 'utilisateur.restaure'],
      [true, 'poste.supprime'],
    ])
    expect(got[0]?.payload?.data).toMatchObject({ supprime: true })
    expect(got[1]?.payload?.data).toMatchObject({ supprime: false })
    expect(got[0]?.payload?.acteur).toEqual({ type: 'utilisateur', id: nordId, login: expect.any(String) })
    expect(got[2]?.payload).toMatchObject({
      sujet: { type: 'poste', id: poste },
      data: { id: poste },
      acteur: { type: 'compte_service', id: account.id, nom: expect.stringMatching(/^Compte de test/) },
    })
    // The program pulls the same event, as delivered.
    const pulled = (await (
      await call(`/rest/bd/evenements?depuis=${(got[2]?.payload?.id ?? 1) - 1}&limite=1`, { token: program })
    ).json()) as EventsPage
    expect(JSON.stringify(pulled.evenements[0])).toBe(got[2]?.body)
  })

  it('is told of a rename once: the same form sent again is no change', async () => {
    const queue = jobsQueue<JobOf<'webhook-delivery'>>()
    const user = await hire(nord, queue)
    const before = await lastEventId()
    const rename = () =>
      call(`/rest/bd/utilisateur/${user.id}`, {
        method: 'PUT',
        token: nord,
        body: JSON.stringify({ nom: 'Renommé', prenom: 'Inès', mail: user.login }),
      })
    expect((await rename()).status).toBe(200)
    expect((await rename()).status).toBe(200)
    const told = await pulledSince(before, nord)
    expect(told.evenements.map((event) => [event.type, event.data.nom])).toEqual([['utilisateur.modifie', 'Renommé']])
  })

  it('tells nothing when nothing changed, nor when the change was refused', async () => {
    const queue = jobsQueue<JobOf<'webhook-delivery'>>()
    const hook = await subscribed(nord, 'ok')
    const user = await hire(nord, queue)
    await queue.drain()
    const before = await db()
      .selectFrom('evenement')
      .select(({ fn }) => fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    // Sud may not deactivate a person of Nord: refused, untold.
    const refused = await call('/rest/bd/utilisateur/state', {
      method: 'PUT',
      token: sud,
      env: queue.env,
      body: JSON.stringify({ id: user.id, actif: false }),
    })
    expect(refused.status).toBe(403)
    // Active already: no change, no event.
    const same = await call('/rest/bd/utilisateur/state', {
      method: 'PUT',
      token: nord,
      env: queue.env,
      body: JSON.stringify({ id: user.id, actif: true }),
    })
    expect(same.status).toBe(200)
    const after = await db()
      .selectFrom('evenement')
      .select(({ fn }) => fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    expect(after.n).toBe(before.n)
    expect(queue.waiting).toEqual([])
    expect((await received(hook.key)).map((delivery) => delivery.payload?.type)).toEqual([
      'utilisateur.cree',
      'poste.cree',
    ])
  })
})

describe('a sign-in and a session’s end', () => {
  it('are told: connexion.reussie with how the user proved it, session.terminee once per session, why it ended', async () => {
    const before = await lastEventId()
    const agent = await createUser({ postes: [currentPost(4, 2)] })
    const signedIn = await signIn(agent.login, agent.password as string)
    // A refresh rotates the session's token: still one session.
    const refreshed = await post('/rest/public/bd/login/refreshToken', { refreshToken: signedIn.jwt.refreshToken })
    expect(refreshed.status).toBe(200)
    const { accessToken } = (await refreshed.json()) as { accessToken: string }
    expect((await call('/rest/bd/logout', { method: 'POST', token: accessToken })).status).toBe(204)
    const nordPull = await pulledSince(before, nord)
    const mine = nordPull.evenements.filter((event) => event.sujet.id === agent.id)
    expect(mine.map((event) => [event.type, event.acteur])).toEqual([
      ['connexion.reussie', { type: 'utilisateur', id: agent.id, login: agent.login }],
      ['session.terminee', { type: 'utilisateur', id: agent.id, login: agent.login }],
    ])
    expect(mine[0]?.data).toMatchObject({ login: agent.login, methode: 'MOT_DE_PASSE' })
    expect(mine[1]?.data).toMatchObject({ login: agent.login, motif: null, session: expect.any(String) })
    // Direction Sud pulls none of it.
    const sudPull = await pulledSince(before, sud)
    expect(sudPull.evenements.filter((event) => event.sujet.id === agent.id)).toEqual([])
  })

  it('names the administrator who ended a session, as the one who acted', async () => {
    const before = await lastEventId()
    const agent = await createUser({ postes: [currentPost(4, 2)] })
    await signIn(agent.login, agent.password as string)
    expect((await call(`/rest/bd/utilisateur/${agent.id}/sessions`, { method: 'DELETE', token: nord })).status).toBe(
      204,
    )
    const pulled = await pulledSince(before, nord)
    const ended = pulled.evenements.filter((event) => event.type === 'session.terminee' && event.sujet.id === agent.id)
    expect(ended).toHaveLength(1)
    expect(ended[0]?.acteur).toMatchObject({ type: 'utilisateur', id: nordId })
    expect(ended[0]?.data).toMatchObject({ motif: 'ADMINISTRATEUR' })
  })

  it('concerns the sub-trees of the posts that count on that day in Paris, not in UTC', async () => {
    // Left Direction Sud on 14 July, in Agence Lille since: Paris' 15 July starts at 22:00 UTC in summer, and its
    // 15 January at 23:00 UTC in winter.
    const mover = await createUser({
      postes: [
        { structureId: 3, fonctionId: 3, from: '2026-01-01', to: '2026-07-14' },
        { structureId: 4, fonctionId: 2, from: '2026-07-15', to: '2099-12-31' },
      ],
    })
    const winter = await createUser({
      postes: [
        { structureId: 3, fonctionId: 3, from: '2025-01-01', to: '2026-01-14' },
        { structureId: 4, fonctionId: 2, from: '2026-01-15', to: '2099-12-31' },
      ],
    })
    const endedAt = async (userId: number, at: string) => {
      const family = crypto.randomUUID()
      await db()
        .insertInto('refresh_token')
        .values({
          token_hash: crypto.randomUUID(),
          family_id: family,
          utilisateur_id: userId,
          kind: 'SESSION',
          application_id: null,
          created_at: '2026-01-01T00:00:00.000Z',
          expires_at: '2099-01-01T00:00:00.000Z',
          family_expires_at: '2099-01-01T00:00:00.000Z',
          rotated_at: null,
          revoked_at: null,
          parent_family_id: null,
        })
        .execute()
      await db().updateTable('refresh_token').set({ revoked_at: at }).where('family_id', '=', family).execute()
      const event = await db()
        .selectFrom('evenement')
        .select('chemins')
        .where('type', '=', 'session.terminee')
        .where('sujet_cle', '=', `utilisateur:${userId}`)
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow()
      return JSON.parse(event.chemins) as string[]
    }
    // 23:30 on 14 July in Paris: both posts count.
    expect((await endedAt(mover.id, '2026-07-14T21:30:00.000Z')).sort()).toEqual(['/1/2/4/', '/1/3/'])
    // 00:30 on 15 July in Paris, still 14 July in UTC: Direction Sud's post no longer does.
    expect(await endedAt(mover.id, '2026-07-14T22:30:00.000Z')).toEqual(['/1/2/4/'])
    expect((await endedAt(winter.id, '2026-01-14T22:30:00.000Z')).sort()).toEqual(['/1/2/4/', '/1/3/'])
    expect(await endedAt(winter.id, '2026-01-14T23:30:00.000Z')).toEqual(['/1/2/4/'])
  })
})

describe('a locked sign-in', () => {
  it('is told once, by the failure that starts the lockout: until when, after how many failures', async () => {
    const before = await lastEventId()
    const agent = await createUser({ postes: [currentPost(4, 2)] })
    const locked = (token: string) =>
      pulledSince(before, token).then((page) =>
        page.evenements.filter((event) => event.type === 'connexion.verrouillee'),
      )
    for (let n = 1; n <= FREE_FAILURES; n++) {
      expect((await loginWith({ identifiant: agent.login, motDePasse: 'Mauvais1234' })).status).toBe(401)
    }
    // The free failures tell nothing; nor does a login nobody has, however often.
    expect(await locked(root)).toEqual([])
    for (let n = 0; n <= FREE_FAILURES; n++) await loginWith({ identifiant: 'personne', motDePasse: 'Mauvais1234' })
    expect(await locked(root)).toEqual([])
    expect((await loginWith({ identifiant: agent.login, motDePasse: 'Mauvais1234' })).status).toBe(401)
    // Locked now: refused without counting, and told no more.
    expect((await loginWith({ identifiant: agent.login, motDePasse: agent.password as string })).status).toBe(429)
    const told = await locked(nord)
    expect(told).toHaveLength(1)
    expect(told[0]).toMatchObject({
      acteur: { type: 'systeme' },
      sujet: { type: 'utilisateur', id: agent.id },
      data: { login: agent.login, echecs: FREE_FAILURES + 1 },
    })
    const until = String((told[0]?.data as { verrouilleJusqua?: string } | undefined)?.verrouilleJusqua)
    const lock = await db()
      .selectFrom('login_attempt')
      .select('locked_until')
      .where('counter', '=', 'login')
      .where('identifier', '=', agent.login.toLowerCase())
      .executeTakeFirstOrThrow()
    expect(until).toBe(lock.locked_until)
    expect(Date.parse(until)).toBeGreaterThan(Date.now())
    // Direction Sud hears nothing of Direction Nord's people.
    expect(await locked(sud)).toEqual([])
  })
})

describe('a carrier’s registration', () => {
  it('is told as it is received, approved once and refused, to the sub-tree it waits in', async () => {
    const before = await lastEventId()
    // A carrier company in Agence Lille (Direction Nord), of the carriers' type the tests' settings name.
    await db()
      .insertInto('type_structure')
      .values({ id: 4, libelle: 'Transporteur', parent_type_id: 3 })
      .onConflict((oc) => oc.doNothing())
      .execute()
    await db()
      .insertInto('structure')
      .values({ id: 5, nom: 'Transports Martin', type_id: 4, parent_id: 4, path: '/1/2/4/5/' })
      .onConflict((oc) => oc.doNothing())
      .execute()
    const registrations = (token: string) =>
      pulledSince(before, token).then((page) =>
        page.evenements.filter((event) => event.type.startsWith('inscription.')),
      )
    const signUp = async (mail: string) => {
      const response = await post('/rest/public/bd/transporteur/inscription', {
        user: { mail, nom: 'Martin', prenom: 'Jeanne' },
        structure: { id: 5 },
        captcha: await solvedCaptcha(),
      })
      expect(response.status).toBe(201)
      const row = await db().selectFrom('utilisateur').select('id').where('mail', '=', mail).executeTakeFirstOrThrow()
      return row.id
    }
    const accepted = await signUp(`accepte${++sequence}@transport.example.test`)
    const refused = await signUp(`refuse${++sequence}@transport.example.test`)
    const decide = (id: number, authorize: boolean) =>
      post('/rest/bd/authorize/user', { user: { id }, authorize }, { token: nord })
    expect((await decide(accepted, true)).status).toBe(200)
    // The link sent again is no new decision.
    expect((await decide(accepted, true)).status).toBe(200)
    expect((await decide(refused, false)).status).toBe(200)
    const told = await registrations(nord)
    expect(told.map((event) => [event.type, event.sujet.id, event.acteur.type])).toEqual([
      ['inscription.creee', accepted, 'systeme'],
      ['inscription.creee', refused, 'systeme'],
      ['inscription.validee', accepted, 'utilisateur'],
      ['inscription.refusee', refused, 'utilisateur'],
    ])
    expect(told[0]).toMatchObject({
      sujet: { type: 'inscription', id: accepted },
      data: { id: accepted, nom: 'Martin', prenom: 'Jeanne', entreprise: 'Transports Martin', structure: { id: 5 } },
    })
    expect(JSON.stringify(told)).not.toMatch(/password|token/i)
    // Direction Sud hears nothing of a registration waiting in the Direction Nord.
    expect(await registrations(sud)).toEqual([])
  })
})

describe('an access review campaign', () => {
  it('is told as it opens, as its due date is applied and as it closes, with its counts, to its sub-tree', async () => {
    const before = await lastEventId()
    const reviews = (token: string) =>
      pulledSince(before, token).then((page) => page.evenements.filter((event) => event.type.startsWith('revue.')))
    await createUser({ postes: [currentPost(4, 2)] })
    const kit = reviewKit('CONSERVER')
    const id = await kit.opened({ token: nord }, kit.campaign(4))
    // Its due date passes: the cron applies it (nothing reviewed, every post kept).
    await db()
      .updateTable('revue')
      .set({ echeance: isoDate(-1) })
      .where('id', '=', id)
      .execute()
    await reviewDeadlines(backgroundContext({ ...env, ...kit.queue.env }))
    await kit.queue.drain()
    expect((await kit.stateOf(id)).etat).toBe('ECHUE')
    expect((await post(`/rest/bd/revue/${id}/cloture`, {}, { token: nord })).status).toBe(204)
    const told = await reviews(nord)
    expect(told.map((event) => [event.type, event.acteur.type])).toEqual([
      ['revue.ouverte', 'utilisateur'],
      ['revue.echue', 'systeme'],
      ['revue.cloturee', 'utilisateur'],
    ])
    expect(told.every((event) => event.sujet.type === 'revue' && event.sujet.id === id)).toBe(true)
    const closed = told[2]?.data as { etat: string; postes: number; confirmes: number; structure: { id: number } }
    expect(closed).toMatchObject({ etat: 'CLOTUREE', structure: { id: 4 }, siNonRevu: 'CONSERVER' })
    expect(closed.postes).toBeGreaterThan(0)
    expect(closed.confirmes).toBe(closed.postes)
    // Direction Sud hears nothing of the Direction Nord's campaign.
    expect(await reviews(sud)).toEqual([])
  })
})

describe('a review that ends posts', () => {
  it('tells the posts whose end it moved, not one that had already ended sooner', async () => {
    const before = await lastEventId()
    const moved = await createUser({ postes: [currentPost(4, 2)] })
    const sooner = await createUser({ postes: [currentPost(4, 2)] })
    const postOf = async (userId: number) =>
      (await db().selectFrom('poste').select('id').where('utilisateur_id', '=', userId).executeTakeFirstOrThrow()).id
    const [movedPost, soonerPost] = [await postOf(moved.id), await postOf(sooner.id)]
    const kit = reviewKit('TERMINER')
    const id = await kit.opened({ token: nord }, kit.campaign(4))
    await db()
      .updateTable('poste')
      .set({ date_fin: isoDate(-3) })
      .where('id', '=', soonerPost)
      .execute()
    await db()
      .updateTable('revue')
      .set({ echeance: isoDate(-1) })
      .where('id', '=', id)
      .execute()
    await reviewDeadlines(backgroundContext({ ...env, ...kit.queue.env }))
    await kit.queue.drain()
    expect(await kit.endOf(movedPost)).toBe(isoDate(-1))
    expect(await kit.endOf(soonerPost)).toBe(isoDate(-3))
    const pulled = await pulledSince(before, nord)
    const modified = pulled.evenements.filter((event) => event.type === 'poste.modifie')
    expect(modified.filter((event) => event.sujet.id === movedPost).map((event) => event.data)).toEqual([
      expect.objectContaining({ dateFin: wireDate(isoDate(-1)) }),
    ])
    expect(modified.filter((event) => event.sujet.id === soonerPost)).toEqual([])
    // Ended yesterday: what the post opened is lost, told after its end, by the end's actor.
    const lost = pulled.evenements.filter((event) => event.type === 'acces.retire' && event.sujet.id === moved.id)
    const [end] = modified.filter((event) => event.sujet.id === movedPost)
    expect(lost.map((event) => [(event.data.application as { id: number }).id, event.acteur])).toEqual([
      [1, end?.acteur],
      [2, end?.acteur],
    ])
    expect(lost.every((event) => event.id > (end?.id ?? Number.POSITIVE_INFINITY))).toBe(true)
  })
})

describe('an access request', () => {
  it('is told when asked, granted (with its post), refused, withdrawn', async () => {
    await db().insertInto('fonction').values({ id: 40, libelle: 'Planificateur', structure_id: 4 }).execute()
    await db().insertInto('fonction_application').values({ fonction_id: 40, application_id: 3 }).execute()
    await db().updateTable('application').set({ demandable: 1 }).where('id', 'in', [1, 3]).execute()
    const since = await lastEventId()
    const requester = await createUser({ postes: [currentPost(4, 2)] })
    const other = await createUser({ postes: [currentPost(4, 2)] })
    const ask = async (who: { id: number }) => {
      const response = await post(
        '/rest/bd/demande',
        {
          application: { id: 3 },
          motif: 'Planifier les rendez-vous du quai',
          dateDebut: wireDate(isoDate(0)),
          dateFin: wireDate(isoDate(29)),
        },
        { token: (await sessionFor(who.id)).accessToken },
      )
      expect(response.status).toBe(201)
      return ((await response.json()) as { id: number }).id
    }
    const granted = await ask(requester)
    const decided = await post(
      `/rest/bd/demande/${granted}/decision`,
      { accord: true, fonction: { id: 40 }, structure: { id: 4 } },
      { token: nord },
    )
    expect(decided.status).toBe(200)
    const refused = await ask(other)
    expect(
      (await post(`/rest/bd/demande/${refused}/decision`, { accord: false, commentaire: 'Non' }, { token: nord }))
        .status,
    ).toBe(200)
    const withdrawn = await ask(other)
    const otherToken = (await sessionFor(other.id)).accessToken
    expect((await call(`/rest/bd/demande/${withdrawn}`, { method: 'DELETE', token: otherToken })).status).toBe(204)
    const page = (await (await call(`/rest/bd/evenements?depuis=${since}`, { token: nord })).json()) as EventsPage
    const mine = page.evenements.filter((event) => event.type.startsWith('demande.') || event.type === 'poste.cree')
    expect(mine.map((event) => [event.type, event.sujet.type, event.sujet.id])).toEqual([
      ['demande.creee', 'demande', granted],
      ['poste.cree', 'poste', expect.any(Number)],
      ['demande.accordee', 'demande', granted],
      ['demande.creee', 'demande', refused],
      ['demande.refusee', 'demande', refused],
      ['demande.creee', 'demande', withdrawn],
      ['demande.retiree', 'demande', withdrawn],
    ])
    expect(mine[2]?.data).toMatchObject({
      etat: 'ACCORDEE',
      utilisateur: { id: requester.id },
      application: { id: 3 },
      poste: mine[1]?.sujet.id,
    })
    expect(mine[2]?.acteur).toMatchObject({ type: 'utilisateur', id: nordId })
    expect(mine[4]?.data).toMatchObject({ etat: 'REFUSEE', commentaire: 'Non' })
    expect(mine[6]?.acteur).toMatchObject({ type: 'utilisateur', id: other.id })
    // The post it opened gives the requester the application, told after the post by the decider.
    const access = page.evenements.filter((event) => event.type.startsWith('acces.'))
    expect(
      access.map((event) => [event.type, event.data.utilisateur, event.data.application, event.acteur.id]),
    ).toEqual([
      ['acces.accorde', { id: requester.id, login: requester.login }, { id: 3, libelle: 'Module Rendez vous' }, nordId],
    ])
  })
})

describe('a date passing', () => {
  // The other tests write posts as before the day's run: none of their starts is told by its write.
  afterEach(async () => {
    await db().deleteFrom('evenement_jour').execute()
  })

  it('tells, once, by the minute’s cron, the posts that start today and those whose last day was yesterday', async () => {
    const queue = jobsQueue<JobOf<'webhook-delivery'>>()
    const hook = await subscribed(nord, 'ok', { evenements: ['poste.debut', 'poste.fin'] })
    const mover = await createUser({
      postes: [
        { structureId: 4, fonctionId: 2, from: isoDate(-20), to: isoDate(-1) },
        { structureId: 4, fonctionId: 2, from: isoDate(0), to: isoDate(20) },
      ],
    })
    // Direction Sud's post starting today is not Direction Nord's to hear of.
    await createUser({ postes: [{ structureId: 3, fonctionId: 3, from: isoDate(0), to: isoDate(5) }] })
    const posts = await db()
      .selectFrom('poste')
      .select(['id', 'date_debut'])
      .where('utilisateur_id', '=', mover.id)
      .orderBy('date_debut')
      .execute()
    await db().deleteFrom('evenement_jour').execute()
    await queue.cron()
    await queue.drain()
    const got = await received(hook.key)
    const mine = got.filter(
      (delivery) =>
        (delivery.payload?.data as { utilisateur?: { id: number } } | undefined)?.utilisateur?.id === mover.id,
    )
    expect(mine.map((delivery) => [delivery.verified, delivery.payload?.type, delivery.payload?.sujet.id])).toEqual([
      [true, 'poste.fin', posts[0]?.id],
      [true, 'poste.debut', posts[1]?.id],
    ])
    expect(mine[0]?.payload).toMatchObject({ acteur: { type: 'systeme' }, data: { dateFin: wireDate(isoDate(-1)) } })
    expect(
      got.every(
        (delivery) => (delivery.payload?.data as { structure?: { id: number } } | undefined)?.structure?.id === 4,
      ),
    ).toBe(true)
    // The next minute's run tells the day no more.
    const count = async () =>
      (
        await db()
          .selectFrom('evenement')
          .select(({ fn }) => fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n
    const before = await count()
    await queue.cron()
    expect(await count()).toBe(before)
    expect(await db().selectFrom('evenement_jour').select('jour').execute()).toEqual([{ jour: isoDate(0) }])
  })

  it('tells a post written after its day’s run, once, right after its own event', async () => {
    // Today's run is over.
    await db().deleteFrom('evenement_jour').execute()
    await tellPostDays(backgroundContext(env))
    const queue = jobsQueue<JobOf<'webhook-delivery'>>()
    const user = await hire(nord, queue)
    const poste = user.postesEnCours[0]?.id as number
    const typesOf = async () =>
      (
        await db()
          .selectFrom('evenement')
          .select(['type', 'acteur'])
          .where('sujet_cle', '=', `utilisateur:${user.id}`)
          .orderBy('id')
          .execute()
      ).map((event) => [event.type, JSON.parse(event.acteur).type])
    // Created to start today: its start is told by the portal, after its creation.
    expect(await typesOf()).toEqual([
      ['utilisateur.cree', 'utilisateur'],
      ['poste.cree', 'utilisateur'],
      ['poste.debut', 'systeme'],
      // What it opens, by the post's writer.
      ['acces.accorde', 'utilisateur'],
      ['acces.accorde', 'utilisateur'],
    ])
    // Changed later the same day, its start is not told again; nor by a run of the same day, nor of the next.
    const changed = await call('/rest/bd/poste', {
      method: 'PUT',
      token: nord,
      env: queue.env,
      body: JSON.stringify({ id: poste, dateDebut: wireDate(isoDate(0)), dateFin: wireDate(isoDate(45)) }),
    })
    expect(changed.status).toBe(200)
    await tellPostDays(backgroundContext(env))
    await tellPostDays(backgroundContext(env), new Date(Date.now() + 86_400_000))
    expect((await typesOf()).map(([type]) => type)).toEqual([
      'utilisateur.cree',
      'poste.cree',
      'poste.debut',
      'acces.accorde',
      'acces.accorde',
      'poste.modifie',
    ])
  })

  it('catches up the days a stopped cron missed, a week at most, each once', async () => {
    await db().deleteFrom('evenement_jour').execute()
    await db()
      .insertInto('evenement_jour')
      .values({ jour: isoDate(-3), fait_le: 'earlier' })
      .execute()
    const ended = await createUser({ postes: [{ structureId: 4, fonctionId: 2, from: isoDate(-30), to: isoDate(-3) }] })
    const told = await tellPostDays(backgroundContext(env))
    expect(told).toEqual([isoDate(-2), isoDate(-1), isoDate(0)])
    const events = await db()
      .selectFrom('evenement')
      .select(['type', 'data'])
      .where('sujet_cle', '=', `utilisateur:${ended.id}`)
      .execute()
    // Its last day was three days ago: told on the day after it, when the cron caught it up.
    expect(events.map((event) => event.type)).toEqual(['poste.fin'])
    await db().deleteFrom('evenement_jour').execute()
    await db()
      .insertInto('evenement_jour')
      .values({ jour: isoDate(-30), fait_le: 'long ago' })
      .execute()
    expect((await tellPostDays(backgroundContext(env))).length).toBe(POST_DAYS_CAUGHT_UP)
    expect(POST_DAYS_CAUGHT_UP).toBe(7)
  })
})

describe('a receiver that fails', () => {
  const ctx = () => backgroundContext(env)
  const later = (seconds: number) => new Date(Date.now() + seconds * 1000)
  // Each test counts its own subscription's deliveries: the others stop.
  beforeEach(async () => {
    await db().updateTable('webhook').set({ actif: 0 }).execute()
  })

  it('is tried again on the schedule, in order: nothing is lost, nothing overtakes', async () => {
    const queue = jobsQueue<JobOf<'webhook-delivery'>>()
    const hook = await subscribed(nord, 'fail-2')
    const user = await hire(nord, queue)
    // Attempt 1: the creation fails (500); the post's event waits behind it, untried.
    expect(await deliverWebhooks(ctx())).toMatchObject({ sent: 0, failed: 1 })
    expect((await received(hook.key)).map((d) => [d.payload?.type, d.answered])).toEqual([['utilisateur.cree', 500]])
    // Not due again before its delay.
    expect(await deliverWebhooks(ctx(), { now: later((WEBHOOK_RETRY_DELAYS_SECONDS[0] as number) - 2) })).toMatchObject(
      { sent: 0, failed: 0 },
    )
    expect(await deliverWebhooks(ctx(), { now: later(10) })).toMatchObject({ sent: 0, failed: 1 })
    // Delivered at last, and the post's event, freed, goes right after it.
    expect(await deliverWebhooks(ctx(), { now: later(400) })).toMatchObject({ sent: 2, failed: 0 })
    const got = await received(hook.key)
    expect(got.map((d) => [d.payload?.type, d.answered, d.verified])).toEqual([
      ['utilisateur.cree', 500, true],
      ['utilisateur.cree', 500, true],
      ['utilisateur.cree', 204, true],
      ['poste.cree', 204, true],
    ])
    // The same id at each attempt: the receiver's key to take it once.
    expect(new Set(got.slice(0, 3).map((d) => d.headers['webhook-id'])).size).toBe(1)
    const log = await db()
      .selectFrom('webhook_livraison')
      .select(['attempts', 'last_status', 'sent_at', 'abandoned_at'])
      .where('webhook_id', '=', hook.id)
      .orderBy('evenement_id')
      .execute()
    expect(log.map((row) => [row.attempts, row.last_status, row.sent_at !== null, row.abandoned_at])).toEqual([
      [3, 204, true, null],
      [1, 204, true, null],
    ])
    expect(user.id).toBeGreaterThan(0)
  })

  it('that is too slow counts as failed, and is tried again', async () => {
    const queue = jobsQueue<JobOf<'webhook-delivery'>>()
    const hook = await subscribed(nord, 'slow-1500', { evenements: ['utilisateur.cree'] })
    await hire(nord, queue)
    expect(await deliverWebhooks(ctx(), { timeoutMs: 300 })).toMatchObject({ sent: 0, failed: 1 })
    const [row] = await db().selectFrom('webhook_livraison').selectAll().where('webhook_id', '=', hook.id).execute()
    expect(row).toMatchObject({ attempts: 1, sent_at: null, last_status: null, last_error: 'No answer within 0.3 s' })
    expect(await deliverWebhooks(ctx(), { now: later(10), timeoutMs: 5000 })).toMatchObject({ sent: 1, failed: 0 })
  })

  it('that keeps failing a whole day stops its subscription, and its administrator is told', async () => {
    const queue = jobsQueue<JobOf<'webhook-delivery'>>()
    const hook = await subscribed(nord, 'fail-100', { evenements: ['utilisateur.cree'] })
    await hire(nord, queue)
    let seconds = 0
    for (let attempt = 1; attempt <= WEBHOOK_ATTEMPTS; attempt++) {
      expect(await deliverWebhooks(ctx(), { now: later(seconds) })).toMatchObject({ failed: 1 })
      seconds += (WEBHOOK_RETRY_DELAYS_SECONDS[attempt - 1] ?? 0) + 1
    }
    // 8 attempts over more than a day.
    expect(WEBHOOK_RETRY_DELAYS_SECONDS.reduce((a, b) => a + b, 0)).toBeGreaterThan(86_400)
    expect((await received(hook.key)).length).toBe(WEBHOOK_ATTEMPTS)
    const row = await db().selectFrom('webhook').selectAll().where('id', '=', hook.id).executeTakeFirstOrThrow()
    expect(row).toMatchObject({ actif: 0, desactive_motif: 'ECHECS' })
    const mail = await db()
      .selectFrom('outbox')
      .select(['to_address', 'subject', 'text'])
      .where('kind', '=', 'WEBHOOK_DISABLED')
      .where('text', 'like', `%${hook.key}%`)
      .executeTakeFirstOrThrow()
    expect(mail.subject).toBe('Un webhook du portail a été désactivé')
    // Shown so in the API, until switched on again.
    const shown = await (await call(`/rest/bd/webhook/${hook.id}`, { token: nord })).json()
    expect(shown).toMatchObject({ actif: false, desactivation: { motif: 'ECHECS' } })
    const on = await call(`/rest/bd/webhook/${hook.id}`, {
      method: 'PATCH',
      token: nord,
      body: JSON.stringify({ actif: true }),
    })
    expect(await on.json()).toMatchObject({ actif: true, desactivation: null })
  })

  it('that answers 410 Gone stops its subscription at once', async () => {
    const queue = jobsQueue<JobOf<'webhook-delivery'>>()
    const hook = await subscribed(nord, 'gone', { evenements: ['utilisateur.cree'] })
    await hire(nord, queue)
    await queue.drain()
    const row = await db().selectFrom('webhook').selectAll().where('id', '=', hook.id).executeTakeFirstOrThrow()
    expect(row).toMatchObject({ actif: 0, desactive_motif: 'GONE' })
    // Stopped: the next change queues nothing for it.
    await hire(nord, queue)
    const pending = await db().selectFrom('webhook_livraison').selectAll().where('webhook_id', '=', hook.id).execute()
    expect(pending.length).toBe(1)
  })

  it('that answers a huge body is read no further than what the log keeps', async () => {
    const queue = jobsQueue<JobOf<'webhook-delivery'>>()
    const hook = await subscribed(nord, 'huge', { evenements: ['utilisateur.cree'] })
    await hire(nord, queue)
    expect(await deliverWebhooks(ctx())).toMatchObject({ sent: 0, failed: 1 })
    const [row] = await db().selectFrom('webhook_livraison').selectAll().where('webhook_id', '=', hook.id).execute()
    expect(row).toMatchObject({ last_status: 500, locked_until: null, attempts: 1 })
    expect(row?.last_error?.length).toBeLessThanOrEqual(220)
  })

  it('whose administrator no longer administers its structure waits, untried and uncounted, for an hour', async () => {
    const queue = jobsQueue<JobOf<'webhook-delivery'>>()
    const owner = await createUser({ admin: true, postes: [currentPost(2, 2)] })
    const token = (await sessionFor(owner.id)).accessToken
    const hook = await subscribed(token, 'ok', { evenements: ['utilisateur.cree'] })
    await hire(nord, queue)
    // Their post ends: they administer nothing.
    await db()
      .updateTable('poste')
      .set({ date_fin: isoDate(-1) })
      .where('utilisateur_id', '=', owner.id)
      .execute()
    expect(await deliverWebhooks(ctx())).toMatchObject({ sent: 0, failed: 1 })
    const [row] = await db().selectFrom('webhook_livraison').selectAll().where('webhook_id', '=', hook.id).execute()
    expect(row).toMatchObject({ attempts: 0, sent_at: null, abandoned_at: null })
    expect(Date.parse(row?.next_attempt_at ?? '')).toBeGreaterThan(Date.now() + 3500_000)
    expect(await received(hook.key)).toEqual([])
    // Given a post again, it delivers.
    await db()
      .updateTable('poste')
      .set({ date_fin: isoDate(30) })
      .where('utilisateur_id', '=', owner.id)
      .execute()
    expect(await deliverWebhooks(ctx(), { now: later(3700) })).toMatchObject({ sent: 1, failed: 0 })
  })

  it('that redirects has not answered: a 3xx is a failure', async () => {
    const queue = jobsQueue<JobOf<'webhook-delivery'>>()
    const hook = await subscribed(nord, 'redirect', { evenements: ['utilisateur.cree'] })
    await hire(nord, queue)
    await queue.drain()
    const [row] = await db().selectFrom('webhook_livraison').selectAll().where('webhook_id', '=', hook.id).execute()
    expect(row).toMatchObject({ sent_at: null, last_status: 302 })
  })
})

describe('a subscription’s delivery log', () => {
  beforeEach(async () => {
    await db().updateTable('webhook').set({ actif: 0 }).execute()
  })

  it('says each delivery’s state and the receiver’s answer; “send again” makes one due at once, in the history', async () => {
    const queue = jobsQueue<JobOf<'webhook-delivery'>>()
    const hook = await subscribed(nord, 'fail-1', { evenements: ['utilisateur.cree'] })
    await hire(nord, queue)
    await queue.drain()
    const log = async (query = '', token = nord) => call(`/rest/bd/webhook/${hook.id}/livraisons${query}`, { token })
    const waiting = await log('?etat=EN_ATTENTE')
    expect(waiting.headers.get('X-Total-Count')).toBe('1')
    const [first] = (await waiting.json()) as WebhookDelivery[]
    expect(first).toMatchObject({
      etat: 'EN_ATTENTE',
      tentatives: 1,
      dernierCode: 500,
      derniereErreur: 'HTTP 500: answer 500',
      evenement: { type: 'utilisateur.cree' },
      livreeLe: null,
    })
    expect(Date.parse(first?.prochaineTentative ?? '')).toBeGreaterThan(Date.now())
    // Another sub-tree's administrator knows nothing of it.
    expect((await log('', sud)).status).toBe(404)
    // Sent again: due now, and gone at once by the queue.
    const again = await call(`/rest/bd/webhook/${hook.id}/livraisons/${first?.id}/renvoi`, {
      method: 'POST',
      token: nord,
      env: queue.env,
    })
    expect(again.status).toBe(202)
    expect(await again.json()).toMatchObject({ etat: 'EN_ATTENTE', tentatives: 0 })
    await queue.drain()
    const [delivered] = (await (await log()).json()) as WebhookDelivery[]
    expect(delivered).toMatchObject({ etat: 'LIVREE', tentatives: 1, dernierCode: 204, derniereErreur: null })
    expect((await received(hook.key)).map((d) => d.answered)).toEqual([500, 204])
    const entry = await db()
      .selectFrom('log')
      .select('commentaire')
      .where('nom_log', '=', 'WEBHOOK_RENVOI')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow()
    expect(entry.commentaire).toContain(hook.url)
    // A delivery of another subscription is not this one's to send again.
    const other = await subscribed(nord, 'ok', { evenements: ['utilisateur.cree'] })
    const stranger = await call(`/rest/bd/webhook/${other.id}/livraisons/${first?.id}/renvoi`, {
      method: 'POST',
      token: nord,
    })
    expect(stranger.status).toBe(404)
  })
})

describe('GET rest/bd/evenements', () => {
  it('pages the events of the caller’s scope after depuis, the same objects as delivered', async () => {
    const queue = jobsQueue<JobOf<'webhook-delivery'>>()
    const depuis = await lastEventId()
    const user = await hire(nord, queue)
    const nordPage = (await (await call(`/rest/bd/evenements?depuis=${depuis}`, { token: nord })).json()) as EventsPage
    expect(nordPage.evenements.map((e) => [e.type, e.sujet.type])).toEqual([
      ['utilisateur.cree', 'utilisateur'],
      ['poste.cree', 'poste'],
      ['acces.accorde', 'utilisateur'],
      ['acces.accorde', 'utilisateur'],
    ])
    expect(nordPage.evenements[0]).toMatchObject({ acteur: { type: 'utilisateur', id: nordId }, data: { id: user.id } })
    expect(nordPage.fin).toBe(true)
    // One at a time: suivant resumes after it.
    const first = (await (
      await call(`/rest/bd/evenements?depuis=${depuis}&limite=1`, { token: nord })
    ).json()) as EventsPage
    expect(first).toMatchObject({ fin: false, suivant: nordPage.evenements[0]?.id })
    // Another sub-tree reads past them, none shown.
    const sudPage = (await (await call(`/rest/bd/evenements?depuis=${depuis}`, { token: sud })).json()) as EventsPage
    expect(sudPage.evenements).toEqual([])
    expect(sudPage.suivant).toBeGreaterThanOrEqual(nordPage.suivant)
  })

  it('of someone of no structure goes to the whole tree’s administrators of their domain only', async () => {
    const newest = await lastEventId()
    const hook = await subscribed(root, 'ok', { structure: { id: 1 }, evenements: ['utilisateur.modifie'] })
    const event = (domain: string, id: number) => ({
      type: 'utilisateur.modifie',
      date: new Date().toISOString(),
      acteur: '{"type":"systeme"}',
      sujet: JSON.stringify({ type: 'utilisateur', id }),
      sujet_cle: `utilisateur:${id}`,
      data: '{}',
      chemins: '[]',
      domain,
    })
    await db()
      .insertInto('evenement')
      .values([event('https://ailleurs.example', 900_001), event(ORIGIN, 900_002)])
      .execute()
    const due = await db()
      .selectFrom('webhook_livraison')
      .innerJoin('evenement', 'evenement.id', 'webhook_livraison.evenement_id')
      .select('evenement.sujet_cle')
      .where('webhook_id', '=', hook.id)
      .execute()
    expect(due.map((row) => row.sujet_cle)).toEqual(['utilisateur:900002'])
    const page = (await (await call(`/rest/bd/evenements?depuis=${newest}`, { token: root })).json()) as EventsPage
    expect(page.evenements.map((e) => e.sujet.id)).toEqual([900_002])
    // A delegated administrator's scope holds neither.
    const nordPage = (await (await call(`/rest/bd/evenements?depuis=${newest}`, { token: nord })).json()) as EventsPage
    expect(nordPage.evenements).toEqual([])
  })

  it('is bounded: a page of 100 at most, a clear 400 beyond', async () => {
    for (const query of ['limite=101', 'limite=0', 'depuis=-1', 'depuis=abc']) {
      const response = await call(`/rest/bd/evenements?${query}`, { token: root })
      expect(response.status).toBe(400)
    }
  })
})

describe('the documented limits (README, "Webhooks")', () => {
  it('tries 8 times over 27 h 35 min, on Standard Webhooks’ schedule, each receiver given 15 s', () => {
    expect(WEBHOOK_RETRY_DELAYS_SECONDS).toEqual([5, 300, 1800, 7200, 18_000, 36_000, 36_000])
    expect(WEBHOOK_ATTEMPTS).toBe(8)
    expect(WEBHOOK_RETRY_DELAYS_SECONDS.reduce((a, b) => a + b, 0)).toBe(27 * 3600 + 35 * 60 + 5)
    expect(WEBHOOK_TIMEOUT_MS).toBe(15_000)
    // A page of the delivery log.
    expect(WEBHOOK_LOG_PAGE).toBe(20)
  })

  it('keeps events 30 days, and their deliveries with them', async () => {
    await db().deleteFrom('evenement').execute()
    const day = 86_400_000
    const event = (date: number) => ({
      type: 'utilisateur.modifie',
      date: new Date(date).toISOString(),
      acteur: '{"type":"systeme"}',
      sujet: '{"type":"utilisateur","id":1}',
      sujet_cle: 'utilisateur:1',
      data: '{}',
    })
    const [old, kept] = await db()
      .insertInto('evenement')
      .values([event(Date.now() - 30 * day - 60_000), event(Date.now() - 30 * day + 60_000)])
      .returning('id')
      .execute()
    await purgeExpired(backgroundContext(env))
    const left = await db().selectFrom('evenement').select('id').execute()
    expect(left.map((row) => row.id)).toEqual([kept?.id])
    expect(old?.id).toBeLessThan(kept?.id ?? 0)
  })

  it('reads at most 1 000 events a pull: a sub-tree among many others’ events goes on with suivant', async () => {
    const depuis = await lastEventId()
    // 1 000 events of Direction Sud, then one of Direction Nord.
    await env.DB.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
       INSERT INTO evenement (type, date, acteur, sujet, sujet_cle, data, chemins)
       SELECT 'utilisateur.modifie', ?1, '{"type":"systeme"}', '{"type":"utilisateur","id":1}', 'utilisateur:1', '{}',
         '["/1/3/"]' FROM n`,
    )
      .bind(new Date().toISOString())
      .run()
    await env.DB.prepare(
      `INSERT INTO evenement (type, date, acteur, sujet, sujet_cle, data, chemins)
       VALUES ('utilisateur.modifie', ?1, '{"type":"systeme"}', '{"type":"utilisateur","id":2}', 'utilisateur:2', '{}',
         '["/1/2/4/"]')`,
    )
      .bind(new Date().toISOString())
      .run()
    const first = (await (await call(`/rest/bd/evenements?depuis=${depuis}`, { token: nord })).json()) as EventsPage
    expect(first).toEqual({ evenements: [], suivant: depuis + 1000, fin: false })
    const second = (await (
      await call(`/rest/bd/evenements?depuis=${first.suivant}`, { token: nord })
    ).json()) as EventsPage
    expect(second.evenements.map((e) => e.sujet)).toEqual([{ type: 'utilisateur', id: 2 }])
    expect(second.fin).toBe(true)
  })
})

describe('what programs and imports change', () => {
  const PORTAIL = 'urn:ietf:params:scim:schemas:extension:portail:2.0:User'
  const pulled = async (after: number) =>
    ((await (await call(`/rest/bd/evenements?depuis=${after}&limite=100`, { token: root })).json()) as EventsPage)
      .evenements

  it('is told as the screens’ changes are: an HR system’s over SCIM, an import’s', async () => {
    const after = await lastEventId()
    const account = await insertServiceAccount({ structure: 2, scopes: 'scim' })
    const token = await serviceAccountToken(account)
    const mail = `scim.${Date.now()}@example.test`
    const scim = (method: string, path: string, body: unknown) =>
      call(`/scim/v2${path}`, {
        method,
        token,
        headers: { 'Content-Type': 'application/scim+json' },
        body: JSON.stringify(body),
      })
    const created = await scim('POST', '/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', PORTAIL],
      userName: mail,
      name: { givenName: 'Jeanne', familyName: 'Martin' },
      emails: [{ value: mail, type: 'work', primary: true }],
      active: true,
      [PORTAIL]: {
        postes: [{ structure: { value: '4' }, fonction: { value: '2' }, dateDebut: isoDate(-1), dateFin: isoDate(60) }],
      },
    })
    expect(created.status).toBe(201)
    const { id } = (await created.json()) as { id: string }
    const patched = await scim('PATCH', `/Users/${id}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', path: 'active', value: false }],
    })
    expect(patched.status).toBe(200)
    const scimEvents = await pulled(after)
    expect(scimEvents.map((event) => [event.type, event.sujet.type, event.acteur.type])).toEqual([
      ['utilisateur.cree', 'utilisateur', 'compte_service'],
      ['poste.cree', 'poste', 'compte_service'],
      ['acces.accorde', 'utilisateur', 'compte_service'],
      ['acces.accorde', 'utilisateur', 'compte_service'],
      ['utilisateur.desactive', 'utilisateur', 'compte_service'],
    ])
    expect(scimEvents[0]?.acteur).toMatchObject({ id: account.id })

    const middle = await lastEventId()
    const queue = jobsQueue()
    const imported = `import.${Date.now()}@example.test`
    const file = `mail;nom;prenom;login;admin;structure;fonction;dateDebut;dateFin;actif\n${imported};Dupont;Marc;;non;Agence Lille;Agent de quai;${wireDate(isoDate(0))};${wireDate(isoDate(90))};oui\n`
    const started = await call('/rest/bd/import?type=utilisateurs', {
      method: 'POST',
      token: nord,
      env: queue.env,
      headers: { 'Content-Type': 'text/csv' },
      body: file,
    })
    expect(started.status).toBe(202)
    await queue.drain()
    const importEvents = await pulled(middle)
    expect(importEvents.map((event) => [event.type, event.acteur])).toEqual([
      ['utilisateur.cree', { type: 'utilisateur', id: nordId, login: expect.any(String) }],
      ['poste.cree', { type: 'utilisateur', id: nordId, login: expect.any(String) }],
      ['acces.accorde', { type: 'utilisateur', id: nordId, login: expect.any(String) }],
      ['acces.accorde', { type: 'utilisateur', id: nordId, login: expect.any(String) }],
      ['import.termine', { type: 'utilisateur', id: nordId, login: expect.any(String) }],
    ])
    expect(importEvents[2]?.data).toMatchObject({
      application: { id: 1 },
      utilisateur: { id: importEvents[0]?.sujet.id },
    })
    expect(importEvents[4]).toMatchObject({
      sujet: { type: 'import' },
      data: { type: 'utilisateurs', etat: 'TERMINE', lignes: 1, creees: 1, erreurs: 0 },
    })
    // Delivered in its own order, not behind some person's events.
    const stored = await db()
      .selectFrom('evenement')
      .select('sujet_cle')
      .where('id', '=', importEvents[4]?.id ?? 0)
      .executeTakeFirstOrThrow()
    expect(stored.sujet_cle).toBe(`import:${importEvents[4]?.sujet.id}`)
    expect(importEvents[0]?.data).toMatchObject({ mail: imported, nom: 'Dupont' })
    expect(importEvents[1]?.data).toMatchObject({ structure: { id: 4 }, dateFin: wireDate(isoDate(90)) })
    // The same file again changes nothing: it tells nothing.
    const again = await call('/rest/bd/import?type=utilisateurs', {
      method: 'POST',
      token: nord,
      env: queue.env,
      headers: { 'Content-Type': 'text/csv' },
      body: file,
    })
    expect(again.status).toBe(202)
    await queue.drain()
    // Its end, and nothing of its people.
    const second = await pulled(importEvents.at(-1)?.id ?? 0)
    expect(second.map((event) => [event.type, event.data.inchangees])).toEqual([['import.termine', 1]])
    // Direction Sud's administrator hears nothing of Direction Nord's import.
    const sudPull = (await (await call(`/rest/bd/evenements?depuis=${middle}`, { token: sud })).json()) as EventsPage
    expect(sudPull.evenements).toEqual([])
  })
})
