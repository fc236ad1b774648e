import { beforeAll, describe, expect, it } from 'vitest'
import { api, okBody } from '../client'
import {
  call,
  createOrganisation,
  createUser,
  currentPost,
  db,
  expectError,
  isoDate,
  ORIGIN,
  signedInUser,
  wireDate,
} from '../helpers'

/**
 * The functions of a structure (GET fonction/structure/{id}, POST, PUT, DELETE rest/bd/fonction):
 * every administrator manages those of their scope; what a function grants is the root
 * administrators'. The organisation of helpers.ts: Groupe (1) › Direction Nord (2) › Agence Lille
 * (4), and Direction Sud (3); fonction 2 (Agent de quai, Agence Lille) grants 1 Yard dangereux and 2
 * Pesage.
 */

let root: string
let nord: string
let sud: string
let agent: { id: number; token: string }

const send = (method: string, body: unknown, token: string) =>
  call('/rest/bd/fonction', { method, token, body: JSON.stringify(body) })
const remove = (id: number, token: string) => call(`/rest/bd/fonction/${id}`, { method: 'DELETE', token })

const fonctionsOf = (structureId: number, token = nord) =>
  okBody(api(token).rest.bd.fonction.structure[':id'].$get({ param: { id: structureId } }))

const created = (libelle: string, structureId = 4, token = nord) =>
  okBody(api(token).rest.bd.fonction.$post({ json: { libelle, structure: { id: structureId } } }), 201)

const entries = (action: string) =>
  db()
    .selectFrom('log')
    .select('commentaire')
    .where('type_log', '=', 'ADMINISTRATION')
    .where('nom_log', '=', action)
    .orderBy('id')
    .execute()

const fonctionCount = async () =>
  (await db().selectFrom('fonction').select(db().fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n

async function launcherOf(user: { id: number; token: string }) {
  const body = await okBody(
    api(user.token).rest.bd.acces.utilisateur[':userId'].$get({ param: { userId: user.id }, query: {} }),
  )
  return body.accesApplication.map((a) => a.application.id).sort()
}

beforeAll(async () => {
  await createOrganisation()
  root = (await signedInUser({ admin: true, postes: [currentPost(1, 1)] })).jwt.accessToken
  nord = (await signedInUser({ admin: true, postes: [currentPost(2, 1)] })).jwt.accessToken
  sud = (await signedInUser({ admin: true, postes: [currentPost(3, 3)] })).jwt.accessToken
  const signedIn = await signedInUser({ postes: [currentPost(4, 2)] })
  agent = { id: signedIn.id, token: signedIn.jwt.accessToken }
})

describe('GET /rest/bd/fonction/structure/{id}', () => {
  it('gives each function the applications it grants and the posts that hold it', async () => {
    const [agentDeQuai] = await fonctionsOf(4)
    expect(agentDeQuai).toEqual({
      id: 2,
      libelle: 'Agent de quai',
      applications: [
        { id: 2, libelle: 'Pesage', actif: true },
        { id: 1, libelle: 'Yard dangereux', actif: true },
      ],
      nbPostes: 1,
    })
    await expectError(await call('/rest/bd/fonction/structure/4', { token: sud }), 403, 'FORBIDDEN')
    await expectError(await call('/rest/bd/fonction/structure/4', { token: agent.token }), 403, 'FORBIDDEN')
  })
})

describe('POST /rest/bd/fonction', () => {
  it('is refused outside the caller’s scope and to a non-administrator, writing nothing', async () => {
    const before = await fonctionCount()
    const body = { libelle: 'Cariste', structure: { id: 4 } }
    await expectError(
      await call('/rest/bd/fonction', { method: 'POST', body: JSON.stringify(body) }),
      401,
      'UNAUTHORIZED',
    )
    await expectError(await send('POST', body, agent.token), 403, 'FORBIDDEN')
    await expectError(await send('POST', body, sud), 403, 'FORBIDDEN')
    const unknown = await expectError(
      await send('POST', { ...body, structure: { id: 999 } }, nord),
      400,
      'VALIDATION_FAILED',
    )
    expect(unknown.attributs).toEqual([{ field: 'structure.id', message: 'validation.unknown' }])
    await expectError(await send('POST', { ...body, libelle: ' ab ' }, nord), 400, 'VALIDATION_FAILED')
    await expectError(await send('POST', { ...body, libelle: 'x'.repeat(51) }, nord), 400, 'VALIDATION_FAILED')
    expect(await fonctionCount()).toBe(before)
  })

  it('creates a function an administrator then gives in a post, with its audit entry', async () => {
    const cariste = await created('  Cariste  ')
    expect(cariste).toEqual({ id: expect.any(Number), libelle: 'Cariste', applications: [], nbPostes: 0 })
    expect((await fonctionsOf(4)).map((f) => f.libelle)).toEqual(['Agent de quai', 'Cariste'])
    expect(await entries('FONCTION_CREATION')).toEqual([{ commentaire: 'Cariste (Agence Lille)' }])
    const invited = await call('/rest/bd/utilisateur', {
      method: 'POST',
      token: nord,
      body: JSON.stringify({
        nom: 'Cariste',
        prenom: 'Camille',
        mail: 'camille.cariste@example.test',
        admin: false,
        actif: true,
        domain: ORIGIN,
        poste: {
          structure: { id: 4 },
          fonction: { id: cariste.id },
          dateDebut: wireDate(isoDate(0)),
          dateFin: wireDate(isoDate(30)),
        },
      }),
    })
    expect(invited.status).toBe(201)
    expect((await fonctionsOf(4)).find((f) => f.id === cariste.id)?.nbPostes).toBe(1)
  })

  it('refuses a name the structure already has, whatever its case (409, the name as held)', async () => {
    const before = await fonctionCount()
    const error = await expectError(
      await send('POST', { libelle: 'AGENT DE QUAI', structure: { id: 4 } }, nord),
      409,
      'FONCTION_LIBELLE_ALREADY_USED',
    )
    expect(error.attributs).toEqual(['Agent de quai'])
    expect(await fonctionCount()).toBe(before)
    // Another structure may have one of that name.
    await created('Agent de quai', 2)
  })
})

describe('PUT /rest/bd/fonction', () => {
  it('renames a function of the caller’s scope; refuses a taken name and another scope', async () => {
    const fonction = await created('Pointeur')
    const renamed = await okBody(
      api(nord).rest.bd.fonction.$put({ json: { id: fonction.id, libelle: 'Pointeur de quai' } }),
    )
    expect(renamed.libelle).toBe('Pointeur de quai')
    await expectError(
      await send('PUT', { id: fonction.id, libelle: 'agent de quai' }, nord),
      409,
      'FONCTION_LIBELLE_ALREADY_USED',
    )
    // Its own name in another case is its own.
    expect((await send('PUT', { id: fonction.id, libelle: 'POINTEUR DE QUAI' }, nord)).status).toBe(200)
    await expectError(await send('PUT', { id: fonction.id, libelle: 'Pointeur' }, sud), 403, 'FORBIDDEN')
    await expectError(await send('PUT', { id: 999, libelle: 'Pointeur' }, nord), 404, 'NOT_FOUND')
    const [entry] = await entries('FONCTION_MODIFICATION')
    expect(entry?.commentaire).toBe('Pointeur (Agence Lille) Pointeur → Pointeur de quai')
  })

  it('what a function grants is the root administrators’ to set, and the launcher follows at once', async () => {
    const before = await launcherOf(agent)
    expect(before).toEqual([1, 2])
    const grants = { id: 2, libelle: 'Agent de quai', applications: [{ id: 2 }, { id: 4 }] }
    await expectError(await send('PUT', grants, nord), 403, 'FORBIDDEN')
    expect(await launcherOf(agent)).toEqual([1, 2])
    const granted = await okBody(api(root).rest.bd.fonction.$put({ json: grants }))
    expect(granted.applications.map((a) => a.id)).toEqual([4, 2])
    expect(await launcherOf(agent)).toEqual([2, 4])
    await expectError(
      await call('/rest/bd/acces/application?idApplication=1', { token: agent.token }),
      403,
      'FORBIDDEN',
    )
    const [entry] = (await entries('FONCTION_MODIFICATION')).slice(-1)
    expect(entry?.commentaire).toBe('Agent de quai (Agence Lille) +Facturation, -Yard dangereux')
    const unknown = await expectError(
      await send('PUT', { ...grants, applications: [{ id: 999 }] }, root),
      400,
      'VALIDATION_FAILED',
    )
    expect(unknown.attributs).toEqual([{ field: 'applications', message: 'validation.unknown' }])
    // Without `applications`, a rename leaves the grants as they are.
    expect((await send('PUT', { id: 2, libelle: 'Agent de quai' }, nord)).status).toBe(200)
    expect(await launcherOf(agent)).toEqual([2, 4])
    await send('PUT', { ...grants, applications: [{ id: 1 }, { id: 2 }] }, root)
    expect(await launcherOf(agent)).toEqual([1, 2])
  })
})

describe('DELETE /rest/bd/fonction/{id}', () => {
  it('racing a post given with it: either the post or the delete, never a server error', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    for (let round = 0; round < 6; round++) {
      const fonction = await created(`Éphémère ${round}`)
      const [given, deleted] = await Promise.all([
        call('/rest/bd/poste', {
          method: 'POST',
          token: nord,
          body: JSON.stringify({
            structure: { id: 4 },
            fonction: { id: fonction.id },
            utilisateur: { id: user.id },
            dateDebut: wireDate(isoDate(0)),
            dateFin: wireDate(isoDate(10)),
          }),
        }),
        remove(fonction.id, nord),
      ])
      expect([
        [201, 409],
        [400, 204],
      ]).toContainEqual([given.status, deleted.status])
    }
  })

  it('refuses while a post holds it, past ones included, saying how many', async () => {
    const fonction = await created('Manutentionnaire')
    await createUser({ postes: [{ structureId: 4, fonctionId: fonction.id, from: isoDate(-90), to: isoDate(-30) }] })
    await createUser({ postes: [{ structureId: 4, fonctionId: fonction.id, from: isoDate(10), to: isoDate(30) }] })
    const error = await expectError(await remove(fonction.id, nord), 409, 'FONCTION_HAS_POSTES')
    expect(error.attributs).toEqual([2])
    expect((await fonctionsOf(4)).some((f) => f.id === fonction.id)).toBe(true)
  })

  it('deletes an unused function of the caller’s scope with its grants, and writes its entry', async () => {
    const fonction = await created('Contrôleur')
    await send('PUT', { id: fonction.id, libelle: 'Contrôleur', applications: [{ id: 3 }] }, root)
    await expectError(await remove(fonction.id, sud), 403, 'FORBIDDEN')
    await expectError(await remove(fonction.id, agent.token), 403, 'FORBIDDEN')
    expect((await remove(fonction.id, nord)).status).toBe(204)
    expect((await fonctionsOf(4)).some((f) => f.id === fonction.id)).toBe(false)
    const grants = await db()
      .selectFrom('fonction_application')
      .select('application_id')
      .where('fonction_id', '=', fonction.id)
      .execute()
    expect(grants).toEqual([])
    expect((await entries('FONCTION_SUPPRESSION')).slice(-1)).toEqual([{ commentaire: 'Contrôleur (Agence Lille)' }])
    await expectError(await remove(fonction.id, nord), 404, 'NOT_FOUND')
  })
})
