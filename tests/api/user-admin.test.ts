import { beforeAll, describe, expect, it } from 'vitest'
import { foldSearchText } from '../../worker-api/lib/search-text'
import {
  call,
  createOrganisation,
  createUser,
  currentPost,
  db,
  expectError,
  isoDate,
  login,
  post,
  sessionFor,
  wireDate,
} from './helpers'

/**
 * User administration (spec §4–§7, DESIGN §4): creating a user with a post and an invitation, the
 * list of the users in scope, the admin's switches, delete and restore, the public mail check.
 * The organisation of the helpers: Groupe (1) → Direction Nord (2) → Agence Lille (4), Groupe →
 * Direction Sud (3); functions Directeur (of 1), Agent de quai (of 4), Responsable (of 3).
 */
type UserBody = {
  id: number
  login: string
  nom: string
  prenom: string
  mail: string
  actif: boolean
  supprime: boolean
  admin: boolean
  modification: boolean
  postesEnCours: { structure: { id: number; nom: string }; fonction: { libelle: string } }[]
  postesFutur: unknown[]
  tokenRegister: number | null
}

let rootAdmin: string
let rootAdminId: number
let nordAdmin: string
let sudAdmin: string
let agent: { id: number; token: string }

const put = (path: string, body: unknown, token: string) =>
  call(path, { method: 'PUT', body: JSON.stringify(body), token })
const del = (path: string, token: string) => call(path, { method: 'DELETE', token })

async function json<T>(response: Response, status = 200): Promise<T> {
  expect(response.status, await response.clone().text()).toBe(status)
  return (await response.json()) as T
}

let sequence = 0
/** The create payload of spec §3 for a user in Agence Lille as a dock agent. */
function payload(extra: Record<string, unknown> = {}) {
  const n = ++sequence
  return {
    login: 'ignored',
    nom: `Créé${n}`,
    prenom: 'Élodie',
    mail: `cree${n}@example.test`,
    admin: false,
    actif: true,
    domain: 'http://localhost:8787',
    poste: {
      structure: { id: 4 },
      fonction: { id: 2 },
      dateDebut: wireDate(isoDate(0)),
      dateFin: wireDate(isoDate(30)),
    },
    ...extra,
  }
}

const outboxTo = (mail: string) =>
  db().selectFrom('outbox').selectAll().where('to_address', '=', mail).orderBy('id').execute()

beforeAll(async () => {
  await createOrganisation()
  const root = await createUser({ admin: true, postes: [currentPost(1, 1)] })
  rootAdminId = root.id
  rootAdmin = (await sessionFor(root.id)).accessToken
  nordAdmin = (await sessionFor((await createUser({ admin: true, postes: [currentPost(2, 1)] })).id)).accessToken
  sudAdmin = (await sessionFor((await createUser({ admin: true, postes: [currentPost(3, 3)] })).id)).accessToken
  const agentUser = await createUser({ postes: [currentPost(4, 2)] })
  agent = { id: agentUser.id, token: (await sessionFor(agentUser.id)).accessToken }
})

describe('POST rest/bd/utilisateur', () => {
  it('creates an invited user with their post, an invitation mail and an audit entry; the link sets the password', async () => {
    const body = payload()
    const user = await json<UserBody>(await post('/rest/bd/utilisateur', body, { token: nordAdmin }), 201)
    expect(user).toMatchObject({ login: body.mail, mail: body.mail, nom: body.nom, actif: true, admin: false })
    expect(user.postesEnCours.map((p) => [p.structure.nom, p.fonction.libelle])).toEqual([
      ['Agence Lille', 'Agent de quai'],
    ])
    expect(user.tokenRegister).toBeGreaterThan(Date.now() + 6.9 * 86_400_000)
    const [mail] = await outboxTo(body.mail)
    const link = /\/renewPassword\/([A-Za-z0-9_-]+)/.exec(mail?.text ?? '')?.[1]
    expect(link).toBeTruthy()
    // Not yet: the registration is not finished.
    await expectError(await login(body.mail, 'Choisi12'), 403, 'USER_NOT_FINISH_REGISTRATION')
    const renewed = await post('/rest/public/bd/password/renew/', { token: link, password: 'Choisi12' })
    expect(renewed.status).toBe(204)
    expect((await login(body.mail, 'Choisi12')).status).toBe(200)
    const log = await db().selectFrom('log').selectAll().where('nom_log', '=', 'UTILISATEUR_CREATION').execute()
    expect(log.some((l) => l.commentaire?.startsWith(body.mail))).toBe(true)
  })

  it('refuses an address already used (any case) with MAIL_ALREADY_USED and writes nothing', async () => {
    const body = payload()
    await json(await post('/rest/bd/utilisateur', body, { token: rootAdmin }), 201)
    const again = payload({ mail: body.mail.toUpperCase() })
    const error = await expectError(
      await post('/rest/bd/utilisateur', again, { token: rootAdmin }),
      409,
      'MAIL_ALREADY_USED',
    )
    expect(error.attributs).toEqual([again.mail])
    expect(await outboxTo(again.mail)).toHaveLength(0)
  })

  it('refuses a structure outside the scope (403), a function of another structure and a past post (400)', async () => {
    await expectError(await post('/rest/bd/utilisateur', payload(), { token: sudAdmin }), 403, 'FORBIDDEN')
    const wrongFonction = payload({ poste: { ...payload().poste, fonction: { id: 3 } } })
    const error = await expectError(
      await post('/rest/bd/utilisateur', wrongFonction, { token: rootAdmin }),
      400,
      'VALIDATION_FAILED',
    )
    expect(error.attributs).toEqual([{ field: 'poste.fonction.id', message: 'validation.fonctionStructure' }])
    const past = payload({
      poste: { ...payload().poste, dateDebut: wireDate(isoDate(-10)), dateFin: wireDate(isoDate(-1)) },
    })
    await expectError(await post('/rest/bd/utilisateur', past, { token: rootAdmin }), 400, 'VALIDATION_FAILED')
    await expectError(await post('/rest/bd/utilisateur', payload(), { token: agent.token }), 403, 'FORBIDDEN')
    const elsewhere = payload({ domain: 'https://evil.example' })
    await expectError(await post('/rest/bd/utilisateur', elsewhere, { token: rootAdmin }), 400, 'VALIDATION_FAILED')
  })
})

describe('GET rest/bd/utilisateur/liste', () => {
  it('answers the users of the scope only, with X-Total-Count, filters, accent-insensitive search and sort', async () => {
    const accented = await json<UserBody>(
      await post('/rest/bd/utilisateur', payload({ nom: 'Lefèvre', prenom: 'Zoé' }), { token: rootAdmin }),
      201,
    )
    const response = await call('/rest/bd/utilisateur/liste?page=1&taille=100&q=lefevre%20ZOE', { token: nordAdmin })
    const found = await json<UserBody[]>(response)
    expect(found.map((u) => u.id)).toEqual([accented.id])
    expect(response.headers.get('X-Total-Count')).toBe('1')
    // Direction Sud's admin does not see Lille's users.
    const sud = await json<UserBody[]>(await call('/rest/bd/utilisateur/liste?q=lefevre', { token: sudAdmin }))
    expect(sud).toEqual([])
    const sorted = await json<UserBody[]>(
      await call('/rest/bd/utilisateur/liste?page=1&taille=100', { token: rootAdmin }),
    )
    const noms = sorted.map((u) => u.nom.toLowerCase())
    expect(noms).toEqual([...noms].sort((a, b) => a.localeCompare(b, 'en')))
    await expectError(await call('/rest/bd/utilisateur/liste', { token: agent.token }), 403, 'FORBIDDEN')
  })
})

describe('switches, delete and restore', () => {
  it('deactivates (sessions end), deletes and restores a user, keeping posts and logs; never oneself', async () => {
    const target = await createUser({ postes: [currentPost(4, 2)] })
    const session = await sessionFor(target.id)
    const off = await json<UserBody>(
      await put('/rest/bd/utilisateur/state', { id: target.id, actif: false }, nordAdmin),
    )
    expect(off.actif).toBe(false)
    expect((await call('/rest/bd/session', { token: session.accessToken })).status).toBe(401)
    await json(await put('/rest/bd/utilisateur/state', { id: target.id, actif: true }, nordAdmin))
    expect((await del(`/rest/bd/utilisateur/suppression/${target.id}`, nordAdmin)).status).toBe(204)
    await expectError(await login(target.login, target.password), 403, 'USER_DISABLED')
    expect((await del(`/rest/bd/utilisateur/retablir/${target.id}`, nordAdmin)).status).toBe(204)
    const back = await json<UserBody>(await call(`/rest/bd/utilisateur/${target.id}`, { token: nordAdmin }))
    expect(back).toMatchObject({ supprime: false, actif: true })
    expect(back.postesEnCours).toHaveLength(1)
    await expectError(await del(`/rest/bd/utilisateur/suppression/${rootAdminId}`, rootAdmin), 403, 'FORBIDDEN')
    await expectError(await del(`/rest/bd/utilisateur/suppression/${target.id}`, sudAdmin), 403, 'FORBIDDEN')
    const admin = await json<UserBody>(
      await put('/rest/bd/utilisateur/admin', { id: target.id, admin: true }, nordAdmin),
    )
    expect(admin.admin).toBe(true)
    await expectError(
      await put('/rest/bd/utilisateur/state', { id: target.id, actif: false }, nordAdmin),
      403,
      'FORBIDDEN',
    )
  })
})

describe('GET rest/public/bd/utilisateur/mail', () => {
  it('answers used, inactive and free', async () => {
    const active = await createUser()
    const inactive = await createUser({ actif: false })
    const answer = async (mail: string) =>
      (await call(`/rest/public/bd/utilisateur/mail?mail=${encodeURIComponent(mail)}`)).json()
    expect(await answer(`${active.login.toUpperCase()}@example.test`)).toEqual({
      mail: `${active.login}@example.test`,
      actif: true,
    })
    expect(await answer(`${inactive.login}@example.test`)).toEqual({
      mail: `${inactive.login}@example.test`,
      actif: false,
    })
    expect(await answer('nobody@example.test')).toEqual({ mail: null, actif: null })
  })

  it('folds names in SQL exactly as the search folds words', async () => {
    const names = ['ÉLODIE', 'Œdipe', 'Ærøskøbing', 'Straße', 'Çà et là', 'Ÿves', 'Núñez']
    for (const nom of names) {
      const { id } = await db()
        .insertInto('utilisateur')
        .values({
          login: `fold-${nom}`,
          nom,
          prenom: 'Ångström',
          mail: `fold-${encodeURIComponent(nom)}@example.test`,
          password_hash: null,
          domain: 'http://localhost:8787',
        })
        .returning('id')
        .executeTakeFirstOrThrow()
      const row = await db()
        .selectFrom('utilisateur')
        .select('recherche')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
      expect(row.recherche).toBe(foldSearchText(`${nom} Ångström`))
    }
  })
})
