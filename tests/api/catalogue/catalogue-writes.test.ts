import { beforeAll, describe, expect, it } from 'vitest'
import {
  type ApplicationInput,
  type ApplicationUpdate,
  LIST_GRANTS_SHOWN,
} from '../../../worker-api/contract/catalogue/catalogue'
import { api, okBody } from '../client'
import {
  call,
  createOrganisation,
  currentPost,
  db,
  expectError,
  refreshWith,
  sessionFor,
  signedInUser,
} from '../helpers'

/**
 * The catalogue's writes (POST, PUT, DELETE rest/bd/application): root administrators only, a name
 * unique whatever its case, a URL the launch can follow, grants that the launcher derives at once
 * (DESIGN §4), and an audit entry in the same batch. The organisation of helpers.ts: fonction 2
 * (Agent de quai, Agence Lille) grants 1 Yard dangereux and 2 Pesage; 3 (Responsable, Direction Sud)
 * grants 3; 1 (Directeur, the root) grants 4 Facturation.
 */

let root: string
let lilleAdmin: string
let agent: { id: number; token: string }

/** A write of the catalogue, by the root administrator unless another caller is given (null: nobody). */
const send = (method: string, body: unknown, token: string | null = root) =>
  call('/rest/bd/application', { method, token: token ?? undefined, body: JSON.stringify(body) })

const draft = (overrides: Partial<ApplicationInput> = {}): ApplicationInput => ({
  libelle: 'Suivi des expéditions',
  icone: 'truck',
  url: 'https://suivi.example.test/entree',
  actif: true,
  protocole: 'CODE',
  fonctions: [{ id: 2 }],
  ...overrides,
})

const created = (overrides: Partial<ApplicationInput> = {}) =>
  okBody(api(root).rest.bd.application.$post({ json: draft(overrides) }), 201)

/** A change of the catalogue by the root administrator, as the route declares it. */
const updated = (body: ApplicationUpdate) => api(root).rest.bd.application.$put({ json: body })

/** What the agent's launcher shows, by id. */
async function launcher() {
  const body = await okBody(
    api(agent.token).rest.bd.acces.utilisateur[':userId'].$get({ param: { userId: agent.id }, query: {} }),
  )
  return body.accesApplication.map((a) => a.application.id)
}

const launch = (id: number) => call(`/rest/bd/acces/application?idApplication=${id}`, { token: agent.token })
/** The agent's launch of the application `id`, its URL and code. */
const launchOf = (id: number) =>
  okBody(api(agent.token).rest.bd.acces.application.$get({ query: { idApplication: id } }))

async function adminEntries(action: string) {
  return db()
    .selectFrom('log')
    .select(['utilisateur_id', 'commentaire'])
    .where('type_log', '=', 'ADMINISTRATION')
    .where('nom_log', '=', action)
    .orderBy('id')
    .execute()
}

const applicationCount = async () =>
  (await db().selectFrom('application').select(db().fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n

let rootId: number

beforeAll(async () => {
  await createOrganisation()
  const rootAdmin = await signedInUser({ admin: true, postes: [currentPost(1, 1)] })
  root = rootAdmin.jwt.accessToken
  rootId = rootAdmin.id
  lilleAdmin = (await signedInUser({ admin: true, postes: [currentPost(4, 2)] })).jwt.accessToken
  const signedIn = await signedInUser({ postes: [currentPost(4, 2)] })
  agent = { id: signedIn.id, token: signedIn.jwt.accessToken }
})

describe('POST /rest/bd/application', () => {
  it('is refused to anonymous callers, users and administrators of a sub-tree, writing nothing', async () => {
    const before = await applicationCount()
    await expectError(await send('POST', draft(), null), 401, 'UNAUTHORIZED')
    await expectError(await send('POST', draft(), agent.token), 403, 'FORBIDDEN')
    await expectError(await send('POST', draft(), lilleAdmin), 403, 'FORBIDDEN')
    expect(await applicationCount()).toBe(before)
  })

  it('registers an application the granted function launches at once, with its audit entry', async () => {
    const application = await created({ libelle: '  Suivi des expéditions  ' })
    expect(application).toEqual({
      id: expect.any(Number),
      libelle: 'Suivi des expéditions',
      icone: 'truck',
      url: 'https://suivi.example.test/entree',
      actif: true,
      demandable: false,
      protocole: 'CODE',
      oidc: null,
      saml: null,
      fonctions: [{ id: 2, libelle: 'Agent de quai', structure: { id: 4, nom: 'Agence Lille' } }],
      nbFonctions: 1,
      // The agent and Agence Lille's administrator hold the function.
      nbUtilisateurs: 2,
    })
    expect(await launcher()).toContain(application.id)
    const { url } = await launchOf(application.id)
    expect(url).toMatch(/^https:\/\/suivi\.example\.test\/entree\?code=/)
    // A name outside spec §9's three: the generic type.
    const entry = await db()
      .selectFrom('log')
      .select(['type_log', 'nom_log'])
      .where('utilisateur_id', '=', agent.id)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow()
    expect(entry).toEqual({ type_log: 'APPLICATION', nom_log: 'Suivi des expéditions' })
    expect(await adminEntries('APPLICATION_CREATION')).toEqual([
      { utilisateur_id: rootId, commentaire: 'Suivi des expéditions : Agent de quai (Agence Lille)' },
    ])
    await call(`/rest/bd/application/${application.id}`, { method: 'DELETE', token: root })
  })

  it('refuses a name already used whatever its case (409), naming it as held', async () => {
    const error = await expectError(
      await send('POST', draft({ libelle: 'PESAGE' })),
      409,
      'APPLICATION_LIBELLE_ALREADY_USED',
    )
    expect(error.attributs).toEqual(['Pesage'])
  })

  it('accepts an absolute http(s) URL or a path on the portal, and nothing else', async () => {
    const before = await applicationCount()
    for (const url of [
      'javascript:alert(1)',
      'ftp://files.example.test/',
      '//evil.example.test/',
      '/\\evil.example.test/',
      'suivi.example.test',
      'https://user:secret@suivi.example.test/',
      'data:text/html,<script>alert(1)</script>',
      `https://suivi.example.test/${'x'.repeat(2000)}`,
    ]) {
      const error = await expectError(await send('POST', draft({ url })), 400, 'VALIDATION_FAILED')
      expect(error.attributs, url).toEqual([expect.objectContaining({ field: 'url' })])
    }
    expect(await applicationCount()).toBe(before)
    const onThePortal = await created({ libelle: 'Quai', url: '/demo-app/quai?lang=fr' })
    const launched = await launchOf(onThePortal.id)
    expect(launched.url).toMatch(/^http:\/\/localhost:8787\/demo-app\/quai\?lang=fr&code=/)
    await call(`/rest/bd/application/${onThePortal.id}`, { method: 'DELETE', token: root })
  })

  it('refuses an icon the launcher does not draw, a function that does not exist, a missing field', async () => {
    const before = await applicationCount()
    const icon = await expectError(await send('POST', { ...draft(), icone: 'rocket' }), 400, 'VALIDATION_FAILED')
    expect(icon.attributs).toEqual([expect.objectContaining({ field: 'icone' })])
    const unknown = await expectError(
      await send('POST', draft({ fonctions: [{ id: 2 }, { id: 999 }] })),
      400,
      'VALIDATION_FAILED',
    )
    expect(unknown.attributs).toEqual([{ field: 'fonctions', message: 'validation.unknown' }])
    const tooMany = Array.from({ length: 51 }, (_, i) => ({ id: i + 1 }))
    await expectError(await send('POST', draft({ fonctions: tooMany })), 400, 'VALIDATION_FAILED')
    const { actif: _, ...withoutState } = draft()
    await expectError(await send('POST', withoutState), 400, 'VALIDATION_FAILED')
    await expectError(await send('POST', draft({ libelle: 'ab' })), 400, 'VALIDATION_FAILED')
    expect(await applicationCount()).toBe(before)
  })
})

describe('PUT /rest/bd/application', () => {
  it('a grant removed: the launch answers 403 at once; added again: the launcher shows it', async () => {
    const application = await created({ libelle: 'Inventaire' })
    const body = await okBody(
      updated({ ...draft({ libelle: 'Inventaire', fonctions: [{ id: 3 }] }), id: application.id }),
    )
    expect([body.fonctions.map((f) => f.id), body.nbUtilisateurs]).toEqual([[3], 0])
    expect(await launcher()).not.toContain(application.id)
    await expectError(await launch(application.id), 403, 'FORBIDDEN')
    const regranted = await okBody(
      updated({
        ...draft({ libelle: 'Inventaire', fonctions: [{ id: 2 }, { id: 3 }, { id: 2 }] }),
        id: application.id,
      }),
    )
    // By structure, in the tree's order: Agence Lille (/1/2/4/) before Direction Sud (/1/3/).
    expect(regranted.fonctions.map((f) => f.id)).toEqual([2, 3])
    expect(await launcher()).toContain(application.id)
    const [, second] = await adminEntries('APPLICATION_MODIFICATION')
    expect(second?.commentaire).toBe(`Inventaire (#${application.id}) +Agent de quai (Agence Lille)`)
  })

  it('renames: the launch is logged under the new name, as spec §9 types it', async () => {
    const application = await created({ libelle: 'Pesée' })
    await expectError(
      await send('PUT', { ...draft({ libelle: 'yard DANGEREUX' }), id: application.id }),
      409,
      'APPLICATION_LIBELLE_ALREADY_USED',
    )
    // Its own name in another case is no conflict (the ASCII letters' case: SQLite's NOCASE).
    expect((await send('PUT', { ...draft({ libelle: 'PESéE' }), id: application.id })).status).toBe(200)
    await db().deleteFrom('application').where('id', '=', 2).execute()
    expect((await send('PUT', { ...draft({ libelle: 'Pesage' }), id: application.id })).status).toBe(200)
    expect((await launch(application.id)).status).toBe(200)
    const entry = await db()
      .selectFrom('log')
      .select(['type_log', 'nom_log'])
      .where('utilisateur_id', '=', agent.id)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow()
    expect(entry).toEqual({ type_log: 'APPLI_PESAGE', nom_log: 'Pesage' })
  })

  it('switched off: out of the launcher, its open launch code and its sessions revoked, its grants kept', async () => {
    const application = await created({ libelle: 'Quais' })
    const code = (await launchOf(application.id)).refreshToken
    const opened = await sessionFor(agent.id, { application: application.id })
    const off = await okBody(updated({ ...draft({ libelle: 'Quais', actif: false }), id: application.id }))
    expect(off.fonctions.map((f) => f.id)).toEqual([2])
    expect(await launcher()).not.toContain(application.id)
    await expectError(await launch(application.id), 404, 'NOT_FOUND')
    await expectError(await refreshWith(code), 401, 'INVALID_REFRESH_TOKEN')
    await expectError(await refreshWith(opened.refreshToken), 401, 'INVALID_REFRESH_TOKEN')
    // The application's own session is over at once.
    await expectError(
      await call(`/rest/bd/utilisateur/${agent.id}`, { token: opened.accessToken }),
      401,
      'INVALID_TOKEN',
    )
    const [entry] = (await adminEntries('APPLICATION_MODIFICATION')).slice(-1)
    expect(entry?.commentaire).toBe(`Quais (#${application.id}) actif → inactif`)
    await send('PUT', { ...draft({ libelle: 'Quais' }), id: application.id })
    expect(await launcher()).toContain(application.id)
  })

  it('answers 404 for an unknown application and 403 before it to anyone else', async () => {
    await expectError(await send('PUT', { ...draft({ libelle: 'Nulle part' }), id: 999 }), 404, 'NOT_FOUND')
    await expectError(await send('PUT', { ...draft({ libelle: 'Nulle part' }), id: 999 }, lilleAdmin), 403, 'FORBIDDEN')
    await expectError(await send('PUT', { ...draft({ libelle: 'Nulle part' }), id: 1 }, lilleAdmin), 403, 'FORBIDDEN')
    await expectError(await send('PUT', draft({ libelle: 'Sans id' })), 400, 'VALIDATION_FAILED')
  })
})

describe('an application granted by more functions than one call may name', () => {
  // A catalogue copied into every structure by the templates: here 60 functions of Agence Lille
  // grant it, more than the 50 a PUT may list.
  const MANY = 60

  async function grantedByMany(libelle: string) {
    const application = await created({ libelle, fonctions: [] })
    const ids = Array.from({ length: MANY }, (_, i) => 1000 + application.id * 100 + i)
    // A row at a time: D1 binds at most 100 values per statement.
    for (const [i, id] of ids.entries()) {
      await db()
        .insertInto('fonction')
        .values({ id, libelle: `Quai ${application.id}-${String(i).padStart(2, '0')}`, structure_id: 4 })
        .execute()
      await db()
        .insertInto('fonction_application')
        .values({ fonction_id: id, application_id: application.id })
        .execute()
    }
    return { application, ids }
  }

  const grantsOf = async (id: number) =>
    (await db().selectFrom('fonction_application').select('fonction_id').where('application_id', '=', id).execute())
      .length

  it('is switched off and on by a PUT without fonctions, which keeps every grant and logs only the switch', async () => {
    const { application } = await grantedByMany('Quais partagés')
    // The whole list is more than a call may send.
    const refused = await send('PUT', {
      ...draft({ libelle: 'Quais partagés', fonctions: Array.from({ length: 51 }, (_, i) => ({ id: i + 1 })) }),
      id: application.id,
    })
    await expectError(refused, 400, 'VALIDATION_FAILED')
    const { fonctions: _omitted, ...withoutGrants } = draft({ libelle: 'Quais partagés', actif: false })
    const body = await okBody(updated({ ...withoutGrants, id: application.id }))
    expect([body.actif, body.nbFonctions, body.fonctions.length]).toEqual([false, MANY, MANY])
    expect(await grantsOf(application.id)).toBe(MANY)
    const [entry] = (await adminEntries('APPLICATION_MODIFICATION')).slice(-1)
    expect(entry?.commentaire).toBe(`Quais partagés (#${application.id}) actif → inactif`)
    const on = await okBody(updated({ ...withoutGrants, actif: true, id: application.id }))
    expect(on.actif).toBe(true)
    expect(await grantsOf(application.id)).toBe(MANY)
  })

  it('is named by its first functions when a read asks for fewer, with how many grant it', async () => {
    const { application, ids } = await grantedByMany('Quais du nord')
    const read = await okBody(
      api(root).rest.bd.application[':id'].$get({ param: { id: application.id }, query: { fonctionsMax: 3 } }),
    )
    // By structure, then name: the first three of Agence Lille's.
    expect([read.nbFonctions, read.fonctions.map((f) => f.id)]).toEqual([MANY, ids.slice(0, 3)])
    const [listed] = await okBody(
      api(root).rest.bd.application.$get({ query: { q: 'Quais du nord', fonctionsMax: 0 } }),
    )
    expect([listed?.nbFonctions, listed?.fonctions]).toEqual([MANY, []])
    // The list names the first 10 unless asked otherwise (README), the whole list and a page alike.
    expect(LIST_GRANTS_SHOWN).toBe(10)
    for (const query of [{}, { page: 1 }]) {
      const [first] = await okBody(api(root).rest.bd.application.$get({ query: { q: 'Quais du nord', ...query } }))
      expect([first?.nbFonctions, first?.fonctions.map((f) => f.id)]).toEqual([MANY, ids.slice(0, 10)])
    }
    const whole = await okBody(api(root).rest.bd.application[':id'].$get({ param: { id: application.id }, query: {} }))
    expect(whole.fonctions).toHaveLength(MANY)
    for (const wrong of ['-1', '51', 'deux']) {
      await expectError(
        await call(`/rest/bd/application/${application.id}?fonctionsMax=${wrong}`, { token: root }),
        400,
        'VALIDATION_FAILED',
      )
    }
  })
})

describe('DELETE /rest/bd/application/{id}', () => {
  it('takes its grants and launch codes with it, keeps its log entries, and writes its own', async () => {
    const application = await created({ libelle: 'Archives' })
    expect((await launch(application.id)).status).toBe(200)
    await expectError(
      await call(`/rest/bd/application/${application.id}`, { method: 'DELETE', token: lilleAdmin }),
      403,
      'FORBIDDEN',
    )
    const deleted = await call(`/rest/bd/application/${application.id}`, { method: 'DELETE', token: root })
    expect(deleted.status).toBe(204)
    expect(await launcher()).not.toContain(application.id)
    await expectError(await launch(application.id), 404, 'NOT_FOUND')
    const left = await Promise.all([
      db()
        .selectFrom('fonction_application')
        .select('fonction_id')
        .where('application_id', '=', application.id)
        .execute(),
      db().selectFrom('refresh_token').select('id').where('application_id', '=', application.id).execute(),
      db().selectFrom('log').select('nom_log').where('nom_log', '=', 'Archives').execute(),
    ])
    expect(left).toEqual([[], [], [{ nom_log: 'Archives' }]])
    const [entry] = (await adminEntries('APPLICATION_SUPPRESSION')).slice(-1)
    expect(entry?.commentaire).toBe(`Archives (#${application.id})`)
    await expectError(
      await call(`/rest/bd/application/${application.id}`, { method: 'DELETE', token: root }),
      404,
      'NOT_FOUND',
    )
  })
})
