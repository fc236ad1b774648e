import { env } from 'cloudflare:test'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { EventsPage, PortalEvent } from '../../../worker-api/contract/machines/events'
import { backgroundContext } from '../../../worker-api/lib/context'
import { tellPostDays } from '../../../worker-api/services/machines/post-days'
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
  post,
  posteBody,
  serviceAccountToken,
  sessionFor,
  wireDate,
} from '../helpers'

/**
 * `acces.accorde` and `acces.retire` (issue 65): a user gains or loses an application whatever the cause — a post
 * written, starting or ending, a function's grants, an application switched on, off, granted or deleted — told once,
 * after the change that caused it, by whoever made it, to the subscriptions of the user's sub-tree. The organisation of
 * helpers.ts: Agent de quai (2, Agence Lille, Nord) grants Yard dangereux (1) and Pesage (2); Directeur (1, Groupe)
 * grants Facturation (4); Responsable (3, Direction Sud) grants Module Rendez vous (3).
 */

let root: { id: number; token: string }
let nord: { id: number; token: string }
let sud: string

beforeAll(async () => {
  await createOrganisation()
  const rootAdmin = await createUser({ admin: true, postes: [currentPost(1, 1)] })
  root = { id: rootAdmin.id, token: (await sessionFor(rootAdmin.id)).accessToken }
  const nordAdmin = await createUser({ admin: true, postes: [currentPost(2, 2)] })
  nord = { id: nordAdmin.id, token: (await sessionFor(nordAdmin.id)).accessToken }
  sud = (await sessionFor((await createUser({ admin: true, postes: [currentPost(3, 3)] })).id)).accessToken
})

/** The events `token`'s caller pulls after `after`. */
async function pulled(after: number, token = root.token): Promise<PortalEvent[]> {
  const response = await call(`/rest/bd/evenements?depuis=${after}&limite=100`, { token })
  expect(response.status).toBe(200)
  return ((await response.json()) as EventsPage).evenements
}

type AccessData = { utilisateur: { id: number; login: string }; application: { id: number; libelle: string } }

/** What the events after `after` tell of access: [type, user, application], in order. */
async function accessTold(after: number, token = root.token) {
  return (await pulled(after, token))
    .filter((event) => event.type.startsWith('acces.'))
    .map((event) => {
      const data = event.data as AccessData
      return [event.type, data.utilisateur.id, data.application.id]
    })
}

/** The applications the user's access is told as, now. */
const toldNow = async (userId: number) =>
  (
    await db()
      .selectFrom('acces_dit')
      .select('application_id')
      .where('utilisateur_id', '=', userId)
      .orderBy('application_id')
      .execute()
  ).map((row) => row.application_id)

async function givePoste(userId: number, from: number, to: number, token = nord.token, fonction = 2, structure = 4) {
  const response = await post('/rest/bd/poste', posteBody(userId, from, to, fonction, structure), { token })
  expect(response.status).toBe(201)
  return (await response.json()) as { id: number }
}

describe('a post written', () => {
  it('tells what it opens after the post, named, by the administrator, to the user’s sub-tree only', async () => {
    const newcomer = await createUser({
      postes: [{ structureId: 4, fonctionId: 2, from: isoDate(-60), to: isoDate(-30) }],
    })
    const after = await lastEventId()
    await givePoste(newcomer.id, 0, 30)
    const events = (await pulled(after)).filter(
      (event) => event.sujet.id === newcomer.id || event.type === 'poste.cree',
    )
    expect(events.map((event) => event.type)).toEqual(['poste.cree', 'acces.accorde', 'acces.accorde'])
    expect(events[1]).toMatchObject({
      acteur: { type: 'utilisateur', id: nord.id },
      sujet: { type: 'utilisateur', id: newcomer.id },
      data: {
        utilisateur: { id: newcomer.id, login: newcomer.login },
        application: { id: 1, libelle: 'Yard dangereux' },
      },
    })
    expect(await toldNow(newcomer.id)).toEqual([1, 2])
    // Direction Nord hears of it; Direction Sud does not.
    expect(await accessTold(after, nord.token)).toEqual([
      ['acces.accorde', newcomer.id, 1],
      ['acces.accorde', newcomer.id, 2],
    ])
    expect(await accessTold(after, sud)).toEqual([])
  })

  it('tells nothing when the applications stay the same, and a loss only when no other post still grants it', async () => {
    const holder = await createUser({ postes: [currentPost(4, 2)] })
    const after = await lastEventId()
    // A second post of the same function: the same applications, nothing gained.
    const second = await givePoste(holder.id, 0, 5, root.token, 1, 1)
    expect(await accessTold(after)).toEqual([['acces.accorde', holder.id, 4]])
    const [first] = await db()
      .selectFrom('poste')
      .select('id')
      .where('utilisateur_id', '=', holder.id)
      .where('fonction_id', '=', 2)
      .execute()
    const middle = await lastEventId()
    // The Agent de quai post goes: Yard and Pesage with it; Facturation stays, granted by the other.
    const deleted = await call(`/rest/bd/poste/suppression/${first?.id}`, { method: 'DELETE', token: root.token })
    expect(deleted.status).toBe(204)
    const told = (await pulled(middle)).filter(
      (event) => event.sujet.id === holder.id || event.type === 'poste.supprime',
    )
    expect(told.map((event) => [event.type, (event.data as Partial<AccessData>).application?.id ?? null])).toEqual([
      ['poste.supprime', null],
      ['acces.retire', 1],
      ['acces.retire', 2],
    ])
    expect(await toldNow(holder.id)).toEqual([4])
    const last = await lastEventId()
    expect(
      (await call(`/rest/bd/poste/suppression/${second.id}`, { method: 'DELETE', token: root.token })).status,
    ).toBe(204)
    expect(await accessTold(last)).toEqual([['acces.retire', holder.id, 4]])
  })

  it('tells nothing of a change refused: another sub-tree’s administrator, a post out of reach', async () => {
    const lille = await createUser({ postes: [currentPost(4, 2)] })
    const after = await lastEventId()
    const refused = await post('/rest/bd/poste', posteBody(lille.id, 0, 10, 3, 3), { token: sud })
    expect(refused.status).toBe(403)
    const [poste] = await db().selectFrom('poste').select('id').where('utilisateur_id', '=', lille.id).execute()
    expect((await call(`/rest/bd/poste/suppression/${poste?.id}`, { method: 'DELETE', token: sud })).status).toBe(403)
    expect(await lastEventId()).toBe(after)
    expect(await toldNow(lille.id)).toEqual([1, 2])
  })

  it('deleted, tells the loss to the sub-tree whose post granted it, though the user no longer belongs there', async () => {
    // Agence Lille's post grants Yard and Pesage; Direction Sud's, Module Rendez vous.
    const leaving = await createUser({ postes: [currentPost(4, 2)] })
    const moving = await createUser({ postes: [currentPost(4, 2), currentPost(3, 3)] })
    const postOf = async (userId: number) =>
      (
        await db()
          .selectFrom('poste')
          .select('id')
          .where('utilisateur_id', '=', userId)
          .where('fonction_id', '=', 2)
          .executeTakeFirstOrThrow()
      ).id
    const after = await lastEventId()
    for (const user of [leaving, moving]) {
      const deleted = await call(`/rest/bd/poste/suppression/${await postOf(user.id)}`, {
        method: 'DELETE',
        token: root.token,
      })
      expect(deleted.status).toBe(204)
    }
    expect(await accessTold(after, nord.token)).toEqual([
      ['acces.retire', leaving.id, 1],
      ['acces.retire', leaving.id, 2],
      ['acces.retire', moving.id, 1],
      ['acces.retire', moving.id, 2],
    ])
    // Direction Sud, where the second one still works, hears of their loss too: they belong there.
    expect(await accessTold(after, sud)).toEqual([
      ['acces.retire', moving.id, 1],
      ['acces.retire', moving.id, 2],
    ])
  })

  it('refused, tells nothing, even of a difference the day’s run has yet to tell', async () => {
    const lille = await createUser({ postes: [currentPost(4, 2)] })
    // Told as holding Module Rendez vous, which nothing grants any more: the day's run would tell it.
    await db().insertInto('acces_dit').values({ utilisateur_id: lille.id, application_id: 3 }).execute()
    const [poste] = await db().selectFrom('poste').select('id').where('utilisateur_id', '=', lille.id).execute()
    const after = await lastEventId()
    // Moved to start in a week: the post stops counting.
    const later = (token: string) =>
      call('/rest/bd/poste', {
        method: 'PUT',
        token,
        body: JSON.stringify({ id: poste?.id, dateDebut: wireDate(isoDate(7)), dateFin: wireDate(isoDate(90)) }),
      })
    expect((await later(sud)).status).toBe(403)
    expect(await lastEventId()).toBe(after)
    expect(await toldNow(lille.id)).toEqual([1, 2, 3])
    // A change that is made tells it, as its writer, beside its own.
    expect((await later(nord.token)).status).toBe(200)
    expect(await accessTold(after)).toEqual([
      ['acces.retire', lille.id, 1],
      ['acces.retire', lille.id, 2],
      ['acces.retire', lille.id, 3],
    ])
  })

  it('moved, tells access only when its new dates start or stop it counting today', async () => {
    const holder = await createUser({ postes: [currentPost(4, 2)] })
    const [poste] = await db().selectFrom('poste').select('id').where('utilisateur_id', '=', holder.id).execute()
    const move = (from: number, to: number) =>
      call('/rest/bd/poste', {
        method: 'PUT',
        token: nord.token,
        body: JSON.stringify({ id: poste?.id, dateDebut: wireDate(isoDate(from)), dateFin: wireDate(isoDate(to)) }),
      })
    const after = await lastEventId()
    // Its end moved, counting still: nothing gained, nothing lost.
    expect((await move(-30, 120)).status).toBe(200)
    expect(await accessTold(after)).toEqual([])
    expect((await move(2, 120)).status).toBe(200)
    expect((await move(0, 120)).status).toBe(200)
    expect(await accessTold(after)).toEqual([
      ['acces.retire', holder.id, 1],
      ['acces.retire', holder.id, 2],
      ['acces.accorde', holder.id, 1],
      ['acces.accorde', holder.id, 2],
    ])
  })

  it('that starts later opens nothing yet', async () => {
    const future = await createUser()
    const after = await lastEventId()
    await givePoste(future.id, 3, 30, root.token)
    expect(await accessTold(after)).toEqual([])
    expect(await toldNow(future.id)).toEqual([])
  })
})

describe('a date passing', () => {
  afterEach(async () => {
    await db().deleteFrom('evenement_jour').execute()
  })

  it('tells, by the day’s run, the access a starting post opens and an ended one closes, by the portal', async () => {
    const starting = await createUser()
    const ending = await createUser({ postes: [{ structureId: 4, fonctionId: 2, from: isoDate(-30), to: isoDate(0) }] })
    await givePoste(starting.id, 1, 30, root.token)
    await db()
      .insertInto('evenement_jour')
      .values({ jour: isoDate(0), fait_le: 'today' })
      .execute()
    const after = await lastEventId()
    const tomorrow = new Date(Date.now() + 86_400_000)
    expect(await tellPostDays(backgroundContext(env), tomorrow)).toEqual([isoDate(1)])
    const events = (await pulled(after)).filter((event) => event.type.startsWith('acces.'))
    expect(events.map((event) => [event.type, (event.data as AccessData).utilisateur.id, event.acteur])).toEqual([
      ['acces.retire', ending.id, { type: 'systeme' }],
      ['acces.retire', ending.id, { type: 'systeme' }],
      ['acces.accorde', starting.id, { type: 'systeme' }],
      ['acces.accorde', starting.id, { type: 'systeme' }],
    ])
    // The next run of that day tells nothing more.
    const last = await lastEventId()
    await tellPostDays(backgroundContext(env), tomorrow)
    expect(await lastEventId()).toBe(last)
    // Back to today for the other tests: these two are told as of tomorrow.
    await db().deleteFrom('poste').where('utilisateur_id', 'in', [starting.id, ending.id]).execute()
    await db().deleteFrom('acces_dit').where('utilisateur_id', 'in', [starting.id, ending.id]).execute()
  })
})

describe('a cron stopped for long', () => {
  afterEach(async () => {
    await db().deleteFrom('evenement_jour').execute()
  })

  it('tells, as it resumes, the access lost on a day older than the week whose posts’ days it tells', async () => {
    const gone = await createUser({ postes: [{ structureId: 4, fonctionId: 2, from: isoDate(-60), to: isoDate(-9) }] })
    // Told while it was held; the cron stopped forty days ago.
    await db()
      .insertInto('acces_dit')
      .values([
        { utilisateur_id: gone.id, application_id: 1, chemins: '["/1/2/4/"]' },
        { utilisateur_id: gone.id, application_id: 2, chemins: '["/1/2/4/"]' },
      ])
      .execute()
    await db().deleteFrom('evenement_jour').execute()
    await db()
      .insertInto('evenement_jour')
      .values({ jour: isoDate(-40), fait_le: 'long ago' })
      .execute()
    // The purge keeps the last day told, however old: it is where the next run resumes.
    await purgeExpired(backgroundContext(env))
    expect(await db().selectFrom('evenement_jour').select('jour').execute()).toEqual([{ jour: isoDate(-40) }])
    const after = await lastEventId()
    expect(await tellPostDays(backgroundContext(env))).toHaveLength(7)
    const told = (await pulled(after, nord.token)).filter((event) => event.type.startsWith('acces.'))
    expect(told.map((event) => [event.type, event.sujet.id, event.acteur])).toEqual([
      ['acces.retire', gone.id, { type: 'systeme' }],
      ['acces.retire', gone.id, { type: 'systeme' }],
    ])
    expect(await toldNow(gone.id)).toEqual([])
  })
})

describe('a function’s grants', () => {
  it('moves the access of its current posts’ holders, told by the root administrator; future holders hear later', async () => {
    const current = await createUser({ postes: [currentPost(3, 3)] })
    const later = await createUser({ postes: [{ structureId: 3, fonctionId: 3, from: isoDate(5), to: isoDate(30) }] })
    const after = await lastEventId()
    const put = (applications: number[]) =>
      call('/rest/bd/fonction', {
        method: 'PUT',
        token: root.token,
        body: JSON.stringify({ id: 3, libelle: 'Responsable', applications: applications.map((id) => ({ id })) }),
      })
    expect((await put([3, 2])).status).toBe(200)
    const holders = await db()
      .selectFrom('poste')
      .select('utilisateur_id')
      .distinct()
      .where('fonction_id', '=', 3)
      .where('date_debut', '<=', isoDate(0))
      .where('date_fin', '>=', isoDate(0))
      .orderBy('utilisateur_id')
      .execute()
    const gained = (await accessTold(after)).filter(([, user]) => user !== later.id)
    expect(gained).toEqual(holders.map(({ utilisateur_id }) => ['acces.accorde', utilisateur_id, 2]))
    expect(gained).toContainEqual(['acces.accorde', current.id, 2])
    expect((await accessTold(after)).some(([, user]) => user === later.id)).toBe(false)
    const middle = await lastEventId()
    expect((await put([3])).status).toBe(200)
    expect(await accessTold(middle)).toEqual(holders.map(({ utilisateur_id }) => ['acces.retire', utilisateur_id, 2]))
    const events = (await pulled(middle)).filter((event) => event.type === 'acces.retire')
    expect(events[0]?.acteur).toMatchObject({ type: 'utilisateur', id: root.id })
    // A rename alone moves nothing.
    const last = await lastEventId()
    expect(
      (
        await call('/rest/bd/fonction', {
          method: 'PUT',
          token: root.token,
          body: JSON.stringify({ id: 3, libelle: 'Responsable' }),
        })
      ).status,
    ).toBe(200)
    expect(await accessTold(last)).toEqual([])
  })
})

describe('an application', () => {
  const read = async (id: number) =>
    (await (await call(`/rest/bd/application/${id}`, { token: root.token })).json()) as {
      libelle: string
      icone: string
      url: string
      fonctions: { id: number }[]
    }
  const put = async (id: number, change: Record<string, unknown>) => {
    const before = await read(id)
    return call('/rest/bd/application', {
      method: 'PUT',
      token: root.token,
      body: JSON.stringify({
        id,
        libelle: before.libelle,
        icone: before.icone,
        url: before.url,
        actif: true,
        protocole: 'CODE',
        fonctions: before.fonctions.map(({ id: fonction }) => ({ id: fonction })),
        ...change,
      }),
    })
  }
  const grantedUsers = async (application: number) =>
    (
      await db()
        .selectFrom('acces_dit')
        .select('utilisateur_id')
        .where('application_id', '=', application)
        .orderBy('utilisateur_id')
        .execute()
    ).map((row) => row.utilisateur_id)

  it('switched off is lost by every holder, once; switched on again, gained', async () => {
    await createUser({ postes: [currentPost(4, 2)] })
    const holders = await grantedUsers(2)
    expect(holders.length).toBeGreaterThan(1)
    const after = await lastEventId()
    expect((await put(2, { actif: false })).status).toBe(200)
    expect(await accessTold(after)).toEqual(holders.map((user) => ['acces.retire', user, 2]))
    expect(await grantedUsers(2)).toEqual([])
    // Sent again, switched off still: nothing more.
    const middle = await lastEventId()
    expect((await put(2, { actif: false })).status).toBe(200)
    expect(await accessTold(middle)).toEqual([])
    expect((await put(2, { actif: true })).status).toBe(200)
    expect(await accessTold(middle)).toEqual(holders.map((user) => ['acces.accorde', user, 2]))
  })

  it('granted to a function when created gives it to that function’s holders; deleted, takes it back, named', async () => {
    const after = await lastEventId()
    const created = await post(
      '/rest/bd/application',
      {
        libelle: 'Quai numérique',
        icone: 'truck',
        url: 'https://quai.example.test/',
        actif: true,
        protocole: 'CODE',
        fonctions: [{ id: 3 }],
      },
      { token: root.token },
    )
    const body = await created.json()
    expect([created.status, body]).toMatchObject([201, {}])
    const { id } = body as { id: number }
    const holders = await grantedUsers(id)
    expect(holders.length).toBeGreaterThan(0)
    expect(await accessTold(after)).toEqual(holders.map((user) => ['acces.accorde', user, id]))
    const middle = await lastEventId()
    expect((await call(`/rest/bd/application/${id}`, { method: 'DELETE', token: root.token })).status).toBe(204)
    const lost = (await pulled(middle)).filter((event) => event.type.startsWith('acces.'))
    expect(lost.map((event) => [event.type, (event.data as AccessData).utilisateur.id])).toEqual(
      holders.map((user) => ['acces.retire', user]),
    )
    expect(lost[0]?.data).toMatchObject({ application: { id, libelle: 'Quai numérique' } })
    expect(
      await db().selectFrom('acces_dit').select('utilisateur_id').where('application_id', '=', id).execute(),
    ).toEqual([])
  })
})

describe('what programs change', () => {
  it('is told with the program as the actor: an HR system’s posts over SCIM', async () => {
    const account = await insertServiceAccount({ structure: 2, scopes: 'scim' })
    const token = await serviceAccountToken(account)
    const person = await createUser({ postes: [currentPost(4, 2)] })
    const after = await lastEventId()
    const patched = await call(`/scim/v2/Users/${person.id}`, {
      method: 'PATCH',
      token,
      headers: { 'Content-Type': 'application/scim+json' },
      body: JSON.stringify({
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        // The post moved to start in five days: nothing open until then.
        Operations: [
          {
            op: 'replace',
            path: 'urn:ietf:params:scim:schemas:extension:portail:2.0:User:postes',
            value: [
              { structure: { value: '4' }, fonction: { value: '2' }, dateDebut: isoDate(5), dateFin: isoDate(60) },
            ],
          },
        ],
      }),
    })
    expect(patched.status).toBe(200)
    const events = (await pulled(after)).filter((event) => event.type.startsWith('acces.'))
    expect(events.map((event) => [event.type, (event.data as AccessData).application.id])).toEqual([
      ['acces.retire', 1],
      ['acces.retire', 2],
    ])
    expect(events[0]?.acteur).toMatchObject({ type: 'compte_service', id: account.id })
  })
})
