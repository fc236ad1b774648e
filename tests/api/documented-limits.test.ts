import { env } from 'cloudflare:test'
import { decodeBase32IgnorePadding } from '@oslojs/encoding'
import { generateTOTP } from '@oslojs/otp'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import type { ReviewDecisions } from '../../worker-api/contract/governance/access-reviews'
import type { MfaChallenge } from '../../worker-api/contract/sign-in/mfa'
import { backgroundContext } from '../../worker-api/lib/context'
import type { MailProvider } from '../../worker-api/lib/mail/providers'
import { resumeStalled } from '../../worker-api/services/bulk/run'
import { deliverOutbox, queueMail } from '../../worker-api/services/core/outbox'
import { requestDeadlines } from '../../worker-api/services/governance/request-notices'
import { reviewDeadlines } from '../../worker-api/services/governance/review-deadlines'
import { purgeExpired } from '../../worker-api/services/maintenance'
import { deliverLogouts } from '../../worker-api/services/oidc/backchannel'
import { api, okBody } from './client'
import {
  type Caller,
  call,
  callerOf,
  createOidcClient,
  createOrganisation,
  createUser,
  currentPost,
  db,
  expectError,
  isoDate,
  login,
  ORIGIN,
  post,
  sessionFor,
  solvedCaptcha,
  wireDate,
  withFrozenClock,
} from './helpers'
import { jobsQueue } from './jobs-queue'
import { manyUsers } from './many-users'
import { reviewKit } from './review-kit'

/*
 * The numbers README.md and SECURITY.md give users and integrators, each pinned by the number the document states,
 * written out: a test that took it from the code's constant would follow a change of the code instead of catching
 * it. Each test names its number and where it is documented. The numbers pinned so already are in their own files
 * (lifetimes.test.ts, bulk-file.test.ts, scim-limits.test.ts…); these are the ones that were not.
 */

const MINUTE = 60_000
const DAY = 86_400_000

let root: Caller

beforeAll(async () => {
  await createOrganisation()
  root = await callerOf({ admin: true, password: null, postes: [currentPost(1, 1, 3650)] })
})

describe('a review\'s decisions (README, "Access reviews" and the API\'s bounds)', () => {
  const { queue, campaign, itemsOf, decide, opened } = reviewKit('CONSERVER')

  it('take a body of 1 MiB: 1 048 576 bytes pass, 1 048 577 are refused 413 REQUEST_TOO_LARGE naming 1 048 576', async () => {
    // A JSON list padded with blanks to the size wanted: every byte is read before the route answers.
    const body = (bytes: number) => `[${' '.repeat(bytes - 2)}]`
    const send = (bytes: number) =>
      call('/rest/bd/revue/999999/decisions', { method: 'POST', token: root.token, body: body(bytes) })
    expect((await send(1_048_576)).status).not.toBe(413)
    const refused = await expectError(await send(1_048_577), 413, 'REQUEST_TOO_LARGE')
    expect(refused.attributs).toEqual([1_048_576])
  })

  it('go 500 to a call (README, "Access reviews"): 501 are refused 400, nothing decided; 500 are taken', async () => {
    const user = await createUser({ password: null, postes: [currentPost(4, 2)] })
    const id = await opened(root, campaign(4))
    const item = (await itemsOf(root, id)).items.find((candidate) => candidate.utilisateur.id === user.id)
    if (!item) throw new Error('no item for the user')
    // The user's item first, then ids no campaign holds (named back as already decided).
    const decisions = (count: number): ReviewDecisions =>
      [item.id, ...Array.from({ length: count - 1 }, (_, n) => 10_000_000 + n)].map((element) => ({
        element: { id: element },
        decision: 'CONFIRMER',
      }))
    await expectError(await decide(root, id, decisions(501)), 400, 'VALIDATION_FAILED')
    expect((await itemsOf(root, id)).items.find((candidate) => candidate.id === item.id)?.etat).toBe('A_REVOIR')

    const answer = await okBody(
      api(root.token).rest.bd.revue[':id'].decisions.$post({ param: { id }, json: decisions(500) }),
    )
    expect(answer.decides).toEqual([item.id])
    expect(answer.dejaDecides).toHaveLength(499)
    expect(queue.waiting).toEqual([])
  })

  it('are opened through windows of 4 000 post ids, one message each (README, "Access reviews")', async () => {
    const far = await createUser({ password: null })
    await db()
      .insertInto('poste')
      .values({
        id: 8_500,
        utilisateur_id: far.id,
        structure_id: 4,
        fonction_id: 2,
        date_debut: isoDate(-10),
        date_fin: isoDate(10),
      })
      .execute()
    const sent = queue.delivered.length
    const id = await opened(root, campaign(4))
    expect(queue.delivered.slice(sent).map((message) => message.body.depuis)).toEqual([0, 4_000, 8_000])
    expect((await itemsOf(root, id)).items.map((item) => item.utilisateur.id)).toContain(far.id)
  })

  it('of a campaign whose opening message was lost: sent again after 5 minutes without progress (README): not at 4 min 54 s, at 5 min 6 s', async () => {
    const lost = reviewKit('CONSERVER')
    const { id } = await okBody(api(root.token, lost.queue.env).rest.bd.revue.$post({ json: lost.campaign(4) }), 201)
    lost.queue.waiting.length = 0
    const { updated_at } = await lost.stateOf(id)
    const cron = async (minutes: number) => {
      await reviewDeadlines(
        backgroundContext({ ...env, ...lost.queue.env }),
        new Date(Date.parse(updated_at) + minutes * MINUTE),
      )
      return lost.queue.waiting.map((message) => message.body).filter((body) => body.revueId === id)
    }
    expect(await cron(4.9)).toEqual([])
    expect(await cron(5.1)).toEqual([{ kind: 'review-step', revueId: id, etape: 'ouverture', depuis: 0 }])
  })
})

describe('a campaign over 2 101 posts (README, "Access reviews")', () => {
  const { queue, campaign, opened, stateOf } = reviewKit('CONSERVER')
  let id: number
  const left = async () =>
    (
      await db()
        .selectFrom('revue_element')
        .select('id')
        .where('revue_id', '=', id)
        .where('etat', '=', 'A_REVOIR')
        .execute()
    ).length

  beforeAll(async () => {
    // 501 administrators with a post each in Agence Lille (each reviews the others'), and 1 600 agents beside them.
    const reviewers = await manyUsers(501, 4, 2)
    await env.DB.prepare('update utilisateur set admin = 1 where id in (select value from json_each(?))')
      .bind(JSON.stringify(reviewers))
      .run()
    await manyUsers(1_600, 4, 2)
    id = await opened(root, campaign(4))
    expect(await left()).toBeGreaterThan(2_101)
  })

  it('reminds 500 administrators at most: of the 501 with posts left to review halfway to the due date, 500', async () => {
    await db()
      .updateTable('revue')
      .set({ created_at: new Date(Date.now() - 40 * DAY).toISOString() })
      .where('id', '=', id)
      .execute()
    expect((await reviewDeadlines(backgroundContext({ ...env, ...queue.env }))).reminded).toBe(500)
  })

  it('applies its due date 2 000 items a message: the first leaves the rest to the next', async () => {
    const before = await left()
    await db()
      .updateTable('revue')
      .set({ echeance: isoDate(-1) })
      .where('id', '=', id)
      .execute()
    await reviewDeadlines(backgroundContext({ ...env, ...queue.env }))
    expect(queue.waiting.map((message) => message.body)).toEqual([
      { kind: 'review-step', revueId: id, etape: 'echeance', depuis: 0 },
    ])
    await queue.deliverOne()
    expect(await left()).toBe(before - 2_000)
    expect(queue.waiting.map((message) => message.body)).toEqual([
      { kind: 'review-step', revueId: id, etape: 'echeance', depuis: 0 },
    ])
    await queue.drain()
    expect(await left()).toBe(0)
    expect((await stateOf(id)).etat).toBe('ECHUE')
  })
})

describe('a function grants 50 applications at most (README, `PUT rest/bd/fonction`)', () => {
  it('takes 50 and refuses 51 with 400, the grants unchanged', async () => {
    // Ten rows a statement: D1 binds 100 values at most.
    for (let first = 0; first < 51; first += 10) {
      await db()
        .insertInto('application')
        .values(
          Array.from({ length: Math.min(10, 51 - first) }, (_, n) => ({
            id: 1_000 + first + n,
            libelle: `Application documentée ${first + n}`,
            icone: 'truck' as const,
            url: 'https://documentee.example.test/',
          })),
        )
        .execute()
    }
    const grant = (count: number) =>
      call('/rest/bd/fonction', {
        method: 'PUT',
        token: root.token,
        body: JSON.stringify({
          id: 3,
          libelle: 'Responsable',
          applications: Array.from({ length: count }, (_, n) => ({ id: 1_000 + n })),
        }),
      })
    const grants = async () =>
      (await db().selectFrom('fonction_application').select('application_id').where('fonction_id', '=', 3).execute())
        .length
    await expectError(await grant(51), 400, 'VALIDATION_FAILED')
    expect(await grants()).toBe(1)
    expect((await grant(50)).status).toBe(200)
    expect(await grants()).toBe(50)
    await db().deleteFrom('fonction_application').where('fonction_id', '=', 3).execute()
    await db().insertInto('fonction_application').values({ fonction_id: 3, application_id: 3 }).execute()
    await db().deleteFrom('application').where('id', '>=', 1_000).execute()
  })
})

describe("an application's address (README, `POST rest/bd/application`)", () => {
  it('is 2000 characters at most: 2000 are taken, 2001 refused on `url`', async () => {
    const address = (length: number) => {
      const start = 'https://suivi.example.test/'
      return start + 'x'.repeat(length - start.length)
    }
    const create = (libelle: string, url: string) =>
      post(
        '/rest/bd/application',
        { libelle, icone: 'truck', url, actif: true, protocole: 'CODE', fonctions: [] },
        {
          token: root.token,
        },
      )
    const refused = await expectError(await create('Adresse trop longue', address(2001)), 400, 'VALIDATION_FAILED')
    expect(refused.attributs).toEqual([expect.objectContaining({ field: 'url' })])
    expect((await create('Adresse la plus longue', address(2000))).status).toBe(201)
  })
})

describe('an import (README, "Moving an organisation in")', () => {
  const header = 'mail;nom;prenom;login;admin;structure;fonction;dateDebut;dateFin;actif'
  const row = (mail: string) =>
    `${mail};Documenté;Import;;non;Agence Lille;Agent de quai;${wireDate(isoDate(0))};${wireDate(isoDate(365))};non`
  async function started(rows: string[], queue: ReturnType<typeof jobsQueue>) {
    // The file is the request's body as it is (the client's `init`): the route reads it raw, as text/csv.
    const response = api(root.token, queue.env).rest.bd.import.$post(
      { query: { type: 'utilisateurs' } },
      { headers: { 'Content-Type': 'text/csv' }, init: { body: [header, ...rows].join('\n') } },
    )
    return (await okBody(response, 202)).id
  }
  const statusOf = (id: number) => okBody(api(root.token).rest.bd.import[':id'].$get({ param: { id }, query: {} }))

  it('goes in lots of 100 rows: 101 rows are a lot of 100, then one of 1', async () => {
    const queue = jobsQueue()
    const id = await started(
      Array.from({ length: 101 }, (_, n) => row(`lot-${n}@example.test`)),
      queue,
    )
    expect(await queue.deliverOne()).toBe(true)
    expect(await statusOf(id)).toMatchObject({ etat: 'EN_COURS', lignes: 101, traitees: 100 })
    expect(await queue.deliverOne()).toBe(true)
    expect(await statusOf(id)).toMatchObject({ etat: 'TERMINE', lignes: 101, traitees: 101 })
  })

  it('lists 100 errors in its state (README, "Decisions and why"): of 101 wrong rows, 100 listed, 101 counted', async () => {
    const queue = jobsQueue()
    const wrong = (mail: string) => row(mail).replace('Agent de quai', 'Fonction inconnue')
    const id = await started(
      Array.from({ length: 101 }, (_, n) => wrong(`faux-${n}@example.test`)),
      queue,
    )
    await queue.drain()
    const status = await statusOf(id)
    expect(status).toMatchObject({ etat: 'TERMINE', totalErreurs: 101 })
    expect(status.erreurs).toHaveLength(100)
  })

  it('that stops moving for 5 minutes is sent on by the cron: not at 4 min 54 s, at 5 min 6 s', async () => {
    const queue = jobsQueue()
    const id = await started([row('cale@example.test')], queue)
    queue.waiting.length = 0
    const { updated_at } = await db()
      .selectFrom('import')
      .select('updated_at')
      .where('id', '=', id)
      .executeTakeFirstOrThrow()
    const cron = async (minutes: number) => {
      await resumeStalled(
        backgroundContext({ ...env, ...queue.env }),
        new Date(Date.parse(updated_at) + minutes * MINUTE),
      )
      return queue.waiting.filter((message) => message.body.importId === id).length
    }
    expect(await cron(4.9)).toBe(0)
    expect(await cron(5.1)).toBe(1)
    await queue.drain()
    expect(await statusOf(id)).toMatchObject({ etat: 'TERMINE', traitees: 1 })
  })

  it('whose lot fails 5 times stops (ECHEC); after 4 failures it is still tried', async () => {
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => {})
    const queue = jobsQueue()
    const id = await started([row('echec-documente@example.test')], queue)
    // D1 refuses every batch of the lot's writes; its reads go through.
    const refusing = {
      ...env.DB,
      prepare: (query: string) => env.DB.prepare(query),
      batch: async (statements: D1PreparedStatement[]) => {
        await scheduler.wait(1)
        if (statements.length > 5) throw new Error('D1 is unavailable')
        return env.DB.batch(statements)
      },
    } as D1Database
    for (let attempt = 1; attempt <= 4; attempt++) await queue.deliverOne({ DB: refusing })
    expect(queue.delivered.map((delivery) => delivery.outcome)).toEqual(['retry', 'retry', 'retry', 'retry'])
    expect((await statusOf(id)).etat).not.toBe('ECHEC')
    await queue.deliverOne({ DB: refusing })
    expect(queue.delivered.at(-1)?.outcome).toBe('ack')
    expect(queue.waiting).toEqual([])
    expect((await statusOf(id)).etat).toBe('ECHEC')
    quiet.mockRestore()
  })

  it('is kept 30 days after it ends: one ended 30 days and an hour ago goes, one ended 30 days less an hour stays', async () => {
    const ago = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString()
    const job = (finished: string, fichier: string) => ({
      type: 'utilisateurs' as const,
      etat: 'TERMINE' as const,
      auteur_id: root.id,
      fichier,
      domaine: ORIGIN,
      origine: ORIGIN,
      created_at: ago(24 * 40),
      updated_at: ago(0),
      finished_at: finished,
    })
    await db()
      .insertInto('import')
      .values([job(ago(30 * 24 + 1), 'documente-ancien.csv'), job(ago(30 * 24 - 1), 'documente-recent.csv')])
      .execute()
    await purgeExpired(backgroundContext(env))
    const kept = await db().selectFrom('import').select('fichier').where('fichier', 'like', 'documente-%').execute()
    expect(kept.map((job) => job.fichier)).toEqual(['documente-recent.csv'])
  })

  it("'s invitations go at the mail provider's pace, 25 a minute: the minute's delivery sends 25 of 26", async () => {
    const user = await createUser({ password: null })
    const queuedAt = new Date(Date.now() - MINUTE)
    for (let n = 0; n < 26; n++) {
      await queueMail(
        db(),
        {
          to: `rythme-${n}@example.test`,
          subject: 'S',
          html: '<p>T</p>',
          text: 'T',
          userId: user.id,
          kind: 'MAIL_CHANGED',
        },
        queuedAt,
      ).execute()
    }
    const sent: string[] = []
    const provider: MailProvider = {
      name: 'counting',
      async send(mail) {
        sent.push(mail.to)
        return { messageId: null }
      },
    }
    expect(await deliverOutbox(backgroundContext(env), { provider })).toMatchObject({ sent: 25 })
    expect(sent).toHaveLength(25)
    // The next minutes send the rest (mail queued by other tests of the file included).
    for (let minute = 0; minute < 40 && sent.filter((to) => to.startsWith('rythme-')).length < 26; minute++) {
      await deliverOutbox(backgroundContext(env), { provider })
    }
    expect(sent.filter((to) => to.startsWith('rythme-'))).toHaveLength(26)
  })
})

describe('access requests (README, "Access requests")', () => {
  it('expire 100 a run of the hourly job: of 101 past their 14 days, 100 expire, the next run takes the last', async () => {
    const requesters = await Promise.all(Array.from({ length: 26 }, () => createUser({ password: null })))
    const created = new Date(Date.now() - 15 * DAY).toISOString()
    const rows = requesters
      .flatMap((requester) =>
        [1, 2, 3, 4].map((application) => ({
          utilisateur_id: requester.id,
          application_id: application,
          motif: 'Pour le document',
          date_debut: isoDate(1),
          date_fin: isoDate(30),
          created_at: created,
        })),
      )
      .slice(0, 101)
    // Ten rows a statement: D1 binds 100 values at most.
    for (let start = 0; start < rows.length; start += 10) {
      await db()
        .insertInto('demande_acces')
        .values(rows.slice(start, start + 10))
        .execute()
    }
    const mine = db()
      .selectFrom('demande_acces')
      .select('etat')
      .where(
        'utilisateur_id',
        'in',
        requesters.map((requester) => requester.id),
      )
    expect((await requestDeadlines(backgroundContext(env))).expired).toBe(100)
    expect((await mine.where('etat', '=', 'EXPIREE').execute()).length).toBe(100)
    expect((await requestDeadlines(backgroundContext(env))).expired).toBe(1)
    expect((await mine.where('etat', '=', 'EXPIREE').execute()).length).toBe(101)
  })

  it('escalate 25 a run of the hourly job: of 26 waiting past their 7 days, 25 go up, the next run takes the last', async () => {
    const requesters = await Promise.all(Array.from({ length: 7 }, () => createUser({ password: null })))
    const created = new Date(Date.now() - 8 * DAY).toISOString()
    const rows = requesters
      .flatMap((requester) =>
        [1, 2, 3, 4].map((application) => ({
          utilisateur_id: requester.id,
          application_id: application,
          motif: 'Pour la relance',
          date_debut: isoDate(1),
          date_fin: isoDate(30),
          created_at: created,
        })),
      )
      .slice(0, 26)
    for (let start = 0; start < rows.length; start += 10) {
      await db()
        .insertInto('demande_acces')
        .values(rows.slice(start, start + 10))
        .execute()
    }
    expect((await requestDeadlines(backgroundContext(env))).escalated).toBe(25)
    expect((await requestDeadlines(backgroundContext(env))).escalated).toBe(1)
    expect((await requestDeadlines(backgroundContext(env))).escalated).toBe(0)
  })
})

describe('an access request\'s reason (README, "Access requests")', () => {
  it('is 3 to 500 characters: 2 and 501 are refused, 3 and 500 taken', async () => {
    await db().updateTable('application').set({ demandable: 1 }).where('id', '=', 3).execute()
    const ask = async (motif: string) => {
      const requester = await callerOf({ password: null, postes: [currentPost(4, 2)] })
      return post(
        '/rest/bd/demande',
        { application: { id: 3 }, motif, dateDebut: wireDate(isoDate(0)), dateFin: wireDate(isoDate(29)) },
        { token: requester.token },
      )
    }
    for (const motif of ['ab', 'x'.repeat(501)]) {
      const refused = await expectError(await ask(motif), 400, 'VALIDATION_FAILED')
      expect(refused.attributs).toEqual([expect.objectContaining({ message: 'validation.reasonLength' })])
    }
    for (const motif of ['abc', 'x'.repeat(500)]) expect((await ask(motif)).status).toBe(201)
  })
})

describe('the per-client limits left at their defaults (README, "Configuration")', () => {
  it('FORGOT_RATE_PER_MINUTE: 5 forgotten-password requests a client address and minute, the 6th answered 429', async () => {
    const from = { headers: { 'CF-Connecting-IP': '198.51.100.21' }, env: { FORGOT_RATE_PER_MINUTE: undefined } }
    const captchas = await Promise.all(Array.from({ length: 6 }, () => solvedCaptcha()))
    const ask = (captcha: string) =>
      post('/rest/public/bd/password/forgot/', { mail: 'personne@example.test', domain: ORIGIN, captcha }, from)
    await withFrozenClock(async () => {
      for (const captcha of captchas.slice(0, 5)) expect((await ask(captcha)).status).toBe(204)
      await expectError(await ask(captchas[5] as string), 429, 'TOO_MANY_ATTEMPTS')
    })
  })

  it('QUESTION_RATE_PER_MINUTE: 5 no-JavaScript captcha answers a client address and minute, the 6th answered 429', async () => {
    const user = await createUser()
    const from = { headers: { 'CF-Connecting-IP': '198.51.100.22' }, env: { QUESTION_RATE_PER_MINUTE: undefined } }
    const answered = async () => {
      const q = await okBody(api().rest.public.bd.captcha.question.$get())
      return btoa(JSON.stringify({ question: q.question, answer: String(q.a + q.b) }))
    }
    const signIn = async () =>
      post(
        '/rest/public/bd/login',
        { identifiant: user.login, motDePasse: user.password, captcha: await answered() },
        from,
      )
    await withFrozenClock(async () => {
      for (let n = 0; n < 5; n++) expect((await signIn()).status).toBe(200)
      await expectError(await signIn(), 429, 'TOO_MANY_ATTEMPTS')
    })
  })

  it('CAPTCHA_MAX_NUMBER: a challenge of work factor 50 000', async () => {
    const challenge = await okBody(
      api(undefined, { CAPTCHA_MAX_NUMBER: undefined }).rest.public.bd.captcha.challenge.$get(),
    )
    expect(challenge.maxnumber).toBe(50_000)
  })
})

describe('the organisation\'s lists (README, "The organisation")', () => {
  let named: { id: number }[]

  beforeAll(async () => {
    named = []
    for (let n = 0; n < 21; n++) {
      named.push(
        await db()
          .insertInto('utilisateur')
          .values({
            login: `documente${n}`,
            nom: 'Paginé',
            prenom: `Numéro${n}`,
            mail: `documente${n}@example.test`,
            password_hash: null,
            actif: 1,
            supprime: 0,
            admin: 0,
            domain: ORIGIN,
            registration_state: 'COMPLETE',
            registration_structure_id: null,
          })
          .returning('id')
          .executeTakeFirstOrThrow(),
      )
    }
  })

  it('answer pages of 10 by default (`taille`): 10 of 21 users', async () => {
    const response = await call('/rest/bd/utilisateur/liste?page=1&q=Pagine', { token: root.token })
    expect(response.status).toBe(200)
    expect(response.headers.get('X-Total-Count')).toBe('21')
    expect(await response.json()).toHaveLength(10)
  })

  it("offer the 20 first users the caller may manage as a structure's candidates: 20 of 21", async () => {
    const body = await okBody(
      api(root.token).rest.bd.utilisateur.structure[':idStructure'].$get({
        param: { idStructure: 4 },
        query: { recherche: 'Pagin' },
      }),
    )
    expect(body.rechercheUtilisateur.utilisateurs).toHaveLength(20)
    expect(named).toHaveLength(21)
  })
})

describe('the administration home (README, `GET rest/bd/accueil`)', () => {
  it('counts the registrations whose link expires within 48 hours: one in 47 h is, one in 49 h is not', async () => {
    for (const hours of [47, 49]) {
      const pending = await createUser({
        registration: 'PENDING',
        password: null,
        actif: false,
        registrationStructure: 4,
      })
      await db()
        .updateTable('utilisateur')
        .set({ token_register_expires_at: new Date(Date.now() + hours * 3_600_000).toISOString() })
        .where('id', '=', pending.id)
        .execute()
    }
    const home = await okBody(api(root.token).rest.bd.accueil.$get({ query: {} }))
    expect(home.inscriptions).toEqual({
      enAttente: 2,
      liensExpirant: 1,
    })
  })
})

describe('a back-channel logout that keeps failing (SECURITY.md, "The OpenID Connect provider")', () => {
  it('is tried 11 times over 27.9 hours: after 1, 2, 5, 15 and 30 min, then 1, 2, 4, 8 and 12 h', async () => {
    const application = await createOidcClient({
      libelle: 'Déconnexion documentée',
      clientId: 'deconnexion-documentee',
      secret: null,
      redirectUri: 'https://rp.example.test/cb',
      fonctionId: 2,
    })
    await db()
      .updateTable('oidc_client')
      .set({ backchannel_logout_uri: 'http://127.0.0.1:9/logout' })
      .where('application_id', '=', application)
      .execute()
    const { id } = await db()
      .insertInto('logout_delivery')
      .values({ family_id: crypto.randomUUID(), application_id: application, utilisateur_id: root.id, issuer: ORIGIN })
      .returning('id')
      .executeTakeFirstOrThrow()
    const row = () =>
      db()
        .selectFrom('logout_delivery')
        .select(['attempts', 'next_attempt_at'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    const failing = (async () => new Response('down', { status: 503 })) as unknown as typeof fetch
    let now = new Date(Date.parse((await row()).next_attempt_at) + 1000)
    const first = now
    const delays: number[] = []
    while ((await deliverLogouts(backgroundContext(env), { fetcher: failing, now })).failed === 1) {
      const next = new Date((await row()).next_attempt_at)
      delays.push((next.getTime() - now.getTime()) / MINUTE)
      if ((await row()).attempts === 11 || delays.length > 20) break
      now = next
    }
    expect(delays.slice(0, 10)).toEqual([1, 2, 5, 15, 30, 60, 120, 240, 480, 720])
    expect((await row()).attempts).toBe(11)
    // From the first attempt to the last: 27.9 hours.
    expect(Math.round((now.getTime() - first.getTime()) / 360_000) / 10).toBe(27.9)
    const later = new Date(now.getTime() + 365 * DAY)
    expect(await deliverLogouts(backgroundContext(env), { fetcher: failing, now: later })).toEqual({
      sent: 0,
      failed: 0,
    })
  })
})

describe('failed sign-ins (SECURITY.md, "Online guessing", and README, "Second factor")', () => {
  it('are forgotten after 12 hours: 4 of 11 h 54 min ago and one now wait, 4 of 12 h 6 min ago and one now do not', async () => {
    const after = async (hoursAgo: number) => {
      const user = await createUser()
      const then = new Date(Date.now() - hoursAgo * 3_600_000).toISOString()
      await db()
        .insertInto('login_attempt')
        .values({ identifier: user.login, failures: 4, last_failure_at: then, locked_until: null })
        .execute()
      await expectError(await login(user.login, 'Wrong123'), 401, 'BAD_CREDENTIAL')
      return (await login(user.login, user.password)).status
    }
    expect(await after(11.9)).toBe(429)
    expect(await after(12.1)).toBe(200)
  })
})

describe('a second factor\'s sign-in challenge (README, "Second factor", and SECURITY.md)', () => {
  it('is valid 5 minutes: it expires 300 s after the password, and a code 4 min 55 s after still signs in', async () => {
    const user = await createUser()
    const { accessToken } = await sessionFor(user.id)
    await withFrozenClock(async (clock) => {
      const { secret } = await okBody(api(accessToken).rest.bd.mfa.totp.$post({ json: { motDePasse: user.password } }))
      const code = generateTOTP(decodeBase32IgnorePadding(secret), 30, 6)
      const [recovery] = (await okBody(api(accessToken).rest.bd.mfa.totp.confirm.$post({ json: { code } })))
        .codesSecours
      const passwordAt = Date.now()
      const body = await expectError(await login(user.login, user.password), 403, 'MFA_REQUIRED')
      const challenge = body.attributs[0] as MfaChallenge
      expect(Date.parse(challenge.expiration) - passwordAt).toBe(300_000)
      clock.advance(295)
      const signedIn = await post('/rest/public/bd/login/mfa', { challenge: challenge.challenge, code: recovery })
      expect(signedIn.status).toBe(200)
    })
  })
})
