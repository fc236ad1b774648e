import { beforeAll, describe, expect, it } from 'vitest'
import type { TemplateFonction } from '../../../worker-api/contract/catalogue/catalogue'
import { api, okBody } from '../client'
import {
  call,
  createOrganisation,
  currentPost,
  db,
  expectError,
  isoDate,
  post,
  signedInUser,
  signIn,
  solvedCaptcha,
  wireDate,
} from '../helpers'

/**
 * The story that was a dead end: a structure created in the portal, or a carrier's company created
 * at its authorisation, starts with the functions of its type's template, so it can be staffed at
 * once; and authorising a carrier gives them a post, so they launch on first sign-in. The
 * organisation of helpers.ts: Groupe (1, type 1) › Direction Nord (2, type 2) › Agence Lille (4, type
 * 3); Direction Sud (3). Carriers (type 4, CARRIER_TYPE_ID) wait under Agence Lille (CARRIER_PARENT_ID).
 * Applications: 1 Yard dangereux, 2 Pesage, 3 Module Rendez vous, 4 Facturation.
 */

let root: string
let nord: string

const templatePath = (typeId: number) => `/rest/bd/typestructure/${typeId}/fonctions`
const putTemplate = (typeId: number, body: unknown, token = root) =>
  call(templatePath(typeId), { method: 'PUT', token, body: JSON.stringify(body) })

const fonctionsOf = (structureId: number) =>
  okBody(api(root).rest.bd.fonction.structure[':id'].$get({ param: { id: structureId } }))

async function launcherOf(token: string, id: number) {
  const body = await okBody(api(token).rest.bd.acces.utilisateur[':userId'].$get({ param: { userId: id }, query: {} }))
  return body.accesApplication.map((a) => a.application.id).sort()
}

const templateOf = (typeId: number) =>
  okBody(api(root).rest.bd.typestructure[':id'].fonctions.$get({ param: { id: typeId } }))

beforeAll(async () => {
  await createOrganisation()
  await db().insertInto('type_structure').values({ id: 4, libelle: 'Transporteur', parent_type_id: 3 }).execute()
  await db()
    .insertInto('structure')
    .values({ id: 5, nom: 'Transports Martin', type_id: 4, parent_id: 4, path: '/1/2/4/5/' })
    .execute()
  await db().insertInto('fonction').values({ id: 10, libelle: 'Chauffeur', structure_id: 5 }).execute()
  await db().insertInto('fonction_application').values({ fonction_id: 10, application_id: 3 }).execute()
  root = (await signedInUser({ admin: true, postes: [currentPost(1, 1)] })).jwt.accessToken
  nord = (await signedInUser({ admin: true, postes: [currentPost(2, 1)] })).jwt.accessToken
})

describe('GET and PUT rest/bd/typestructure/{id}/fonctions', () => {
  it('are the root administrators’ alone', async () => {
    await expectError(await call(templatePath(3)), 401, 'UNAUTHORIZED')
    await expectError(await call(templatePath(3), { token: nord }), 403, 'FORBIDDEN')
    await expectError(await putTemplate(3, [], nord), 403, 'FORBIDDEN')
    await expectError(await call(templatePath(99), { token: root }), 404, 'NOT_FOUND')
  })

  it('keep the functions in the order given, each with what it grants, and write the audit entry', async () => {
    const body = [
      { libelle: "Chef d'agence", applications: [{ id: 4 }, { id: 1 }, { id: 2 }] },
      { libelle: 'Agent de quai', applications: [{ id: 1 }, { id: 2 }] },
      { libelle: 'Accueil', applications: [] },
    ]
    const response = await putTemplate(3, body)
    expect(response.status).toBe(200)
    const expected: TemplateFonction[] = [
      {
        libelle: "Chef d'agence",
        applications: [
          { id: 4, libelle: 'Facturation' },
          { id: 2, libelle: 'Pesage' },
          { id: 1, libelle: 'Yard dangereux' },
        ],
      },
      {
        libelle: 'Agent de quai',
        applications: [
          { id: 2, libelle: 'Pesage' },
          { id: 1, libelle: 'Yard dangereux' },
        ],
      },
      { libelle: 'Accueil', applications: [] },
    ]
    expect(await response.json()).toEqual(expected)
    expect(await (await call(templatePath(3), { token: root })).json()).toEqual(expected)
    const entry = await db()
      .selectFrom('log')
      .select('commentaire')
      .where('nom_log', '=', 'MODELE_FONCTIONS')
      .executeTakeFirstOrThrow()
    expect(entry.commentaire).toBe("Agence : Chef d'agence, Agent de quai, Accueil")
  })

  it('refuses a name twice whatever its case, an unknown application, too many functions; keeps the template', async () => {
    const twice = await expectError(
      await putTemplate(3, [
        { libelle: 'Accueil', applications: [] },
        { libelle: 'ACCUEIL', applications: [] },
      ]),
      400,
      'VALIDATION_FAILED',
    )
    expect(twice.attributs).toEqual([{ field: '1.libelle', message: 'validation.duplicate' }])
    const unknown = await expectError(
      await putTemplate(3, [{ libelle: 'Accueil', applications: [{ id: 99 }] }]),
      400,
      'VALIDATION_FAILED',
    )
    expect(unknown.attributs).toEqual([{ field: '0.applications', message: 'validation.unknown' }])
    const many = Array.from({ length: 21 }, (_, i) => ({ libelle: `Fonction ${i}`, applications: [] }))
    await expectError(await putTemplate(3, many), 400, 'VALIDATION_FAILED')
    // More than 50 distinct applications in all: said, not a statement past D1's bound values.
    const wide = Array.from({ length: 6 }, (_, i) => ({
      libelle: `Fonction ${i}`,
      applications: Array.from({ length: 20 }, (_, j) => ({ id: 1000 + i * 20 + j })),
    }))
    await expectError(await putTemplate(3, wide), 400, 'VALIDATION_FAILED')
    expect((await templateOf(3)).length).toBe(3)
  })
})

describe('GET rest/bd/typestructure/fonctions (the templates screen)', () => {
  const all = (token?: string) => call('/rest/bd/typestructure/fonctions', token ? { token } : {})

  it('is the root administrators’ alone', async () => {
    await expectError(await all(), 401, 'UNAUTHORIZED')
    await expectError(await all(nord), 403, 'FORBIDDEN')
  })

  it('lists every type a structure may be given, top down, with its template, and the catalogue by name', async () => {
    await db().updateTable('application').set({ actif: 0 }).where('id', '=', 4).execute()
    try {
      const body = await okBody(api(root).rest.bd.typestructure.fonctions.$get())
      // The root's type is no structure's to be given; each type's template is the one its own GET answers.
      expect(body.types.map((type) => type.libelle)).toEqual(['Direction', 'Agence', 'Transporteur'])
      for (const type of body.types) {
        expect(type.fonctions).toEqual(await templateOf(type.id))
      }
      expect(body.applications).toEqual([
        { id: 4, libelle: 'Facturation', actif: false },
        { id: 3, libelle: 'Module Rendez vous', actif: true },
        { id: 2, libelle: 'Pesage', actif: true },
        { id: 1, libelle: 'Yard dangereux', actif: true },
      ])
    } finally {
      await db().updateTable('application').set({ actif: 1 }).where('id', '=', 4).execute()
    }
  })
})

describe('a structure created in the portal', () => {
  it('starts with its type’s functions and grants: a user posted there launches at once', async () => {
    const { id } = await okBody(
      api(nord).rest.bd.structure.$post({ json: { nom: 'Agence Douai', type: { id: 3 }, parent: { id: 2 } } }),
      201,
    )
    const fonctions = await fonctionsOf(id)
    expect(fonctions.map((f) => [f.libelle, f.applications.map((a) => a.id).sort()])).toEqual([
      ['Accueil', []],
      ['Agent de quai', [1, 2]],
      ["Chef d'agence", [1, 2, 4]],
    ])
    // The template changed afterwards: the structure keeps what it started with.
    expect((await putTemplate(3, [{ libelle: 'Accueil', applications: [] }])).status).toBe(200)
    expect((await fonctionsOf(id)).length).toBe(3)
    const agentDeQuai = fonctions.find((f) => f.libelle === 'Agent de quai')
    const user = await signedInUser({ postes: [currentPost(id, agentDeQuai?.id ?? 0)] })
    expect(await launcherOf(user.jwt.accessToken, user.id)).toEqual([1, 2])
  })

  it('of a type without a template starts with none, as before', async () => {
    const { id } = await okBody(
      api(root).rest.bd.structure.$post({ json: { nom: 'Direction Est', type: { id: 2 }, parent: { id: 1 } } }),
      201,
    )
    expect(await fonctionsOf(id)).toEqual([])
  })
})

let sequence = 0
async function registration(structure: { id: number } | { nom: string }) {
  const mail = `carrier-${++sequence}@transport.example.test`
  const response = await post('/rest/public/bd/transporteur/inscription', {
    user: { mail, nom: 'Martin', prenom: 'Jeanne' },
    structure,
    captcha: await solvedCaptcha(),
  })
  expect(response.status).toBe(201)
  const row = await db().selectFrom('utilisateur').select('id').where('mail', '=', mail).executeTakeFirstOrThrow()
  return { id: row.id, mail }
}

const authorize = (body: Record<string, unknown>) => post('/rest/bd/authorize/user', body, { token: nord })
const aYear = { dateDebut: wireDate(isoDate(0)), dateFin: wireDate(isoDate(365)) }

/** The carrier chooses a password with the link mailed to them, then signs in. */
async function firstSignIn(mail: string) {
  const sent = await db()
    .selectFrom('outbox')
    .select('text')
    .where('to_address', '=', mail)
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow()
  const token = /\/renewPassword\/([A-Za-z0-9_-]+)/.exec(sent.text)?.[1]
  const renewed = await post('/rest/public/bd/password/renew/', { token, password: 'Carrier12' })
  expect(renewed.status).toBe(204)
  const login = await db().selectFrom('utilisateur').select('login').where('mail', '=', mail).executeTakeFirstOrThrow()
  return signIn(login.login, 'Carrier12')
}

describe('GET rest/bd/authorize/user/{id}/fonctions (what "Valider" offers)', () => {
  const offered = (id: number, token = nord) => call(`/rest/bd/authorize/user/${id}/fonctions`, { token })

  it('names the template’s functions in its order for a company to create, its own for an existing one', async () => {
    expect(
      (
        await putTemplate(4, [
          { libelle: 'Chauffeur', applications: [{ id: 3 }] },
          { libelle: 'Affréteur', applications: [] },
        ])
      ).status,
    ).toBe(200)
    const typed = await registration({ nom: 'Fret Offert' })
    const toCreate = await offered(typed.id)
    expect(toCreate.status).toBe(200)
    expect(await toCreate.json()).toEqual([
      { id: null, libelle: 'Chauffeur' },
      { id: null, libelle: 'Affréteur' },
    ])
    const existing = await registration({ id: 5 })
    expect(await (await offered(existing.id)).json()).toEqual([{ id: 10, libelle: 'Chauffeur' }])
  })

  it('answers 404 outside the caller’s scope and once the registration is no longer pending', async () => {
    const sud = (await signedInUser({ admin: true, postes: [currentPost(3, 1)] })).jwt.accessToken
    const waiting = await registration({ id: 5 })
    expect((await offered(waiting.id, sud)).status).toBe(404)
    expect((await authorize({ user: { id: waiting.id }, authorize: false })).status).toBe(200)
    expect((await offered(waiting.id)).status).toBe(404)
  })
})

describe('authorising a carrier', () => {
  it('creates the company it typed with the carrier type’s functions, gives the post asked for, and the carrier launches', async () => {
    expect((await putTemplate(4, [{ libelle: 'Chauffeur', applications: [{ id: 3 }] }])).status).toBe(200)
    const carrier = await registration({ nom: 'Fret Nouveau' })
    const authorized = await authorize({
      user: { id: carrier.id },
      authorize: true,
      poste: { fonction: { libelle: 'chauffeur' }, ...aYear },
    })
    expect(authorized.status).toBe(200)
    const company = await db()
      .selectFrom('structure')
      .select('id')
      .where('nom', '=', 'Fret Nouveau')
      .executeTakeFirstOrThrow()
    const [chauffeur] = await fonctionsOf(company.id)
    expect([chauffeur?.libelle, chauffeur?.applications.map((a) => a.id)]).toEqual(['Chauffeur', [3]])
    const postes = await db()
      .selectFrom('poste')
      .select(['structure_id', 'fonction_id', 'date_debut', 'date_fin'])
      .where('utilisateur_id', '=', carrier.id)
      .execute()
    expect(postes).toEqual([
      { structure_id: company.id, fonction_id: chauffeur?.id, date_debut: isoDate(0), date_fin: isoDate(365) },
    ])
    const entry = await db()
      .selectFrom('log')
      .select('commentaire')
      .where('nom_log', '=', 'POSTE_CREATION')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow()
    expect(entry.commentaire).toBe(`#${carrier.id} ${carrier.mail} : Chauffeur, ${aYear.dateDebut} → ${aYear.dateFin}`)
    const signedIn = await firstSignIn(carrier.mail)
    expect(await launcherOf(signedIn.jwt.accessToken, carrier.id)).toEqual([3])
  })

  it('of an existing company: a post of one of its functions, by id; another structure’s function is refused, nothing written', async () => {
    const carrier = await registration({ id: 5 })
    const elsewhere = await expectError(
      await authorize({ user: { id: carrier.id }, authorize: true, poste: { fonction: { id: 2 }, ...aYear } }),
      400,
      'VALIDATION_FAILED',
    )
    expect(elsewhere.attributs).toEqual([{ field: 'poste.fonction.id', message: 'validation.fonctionStructure' }])
    const past = await expectError(
      await authorize({
        user: { id: carrier.id },
        authorize: true,
        poste: { fonction: { id: 10 }, dateDebut: wireDate(isoDate(-10)), dateFin: wireDate(isoDate(-1)) },
      }),
      400,
      'VALIDATION_FAILED',
    )
    expect(past.attributs).toEqual([{ field: 'poste.dateFin', message: 'validation.datePast' }])
    await expectError(
      await authorize({ user: { id: carrier.id }, authorize: false, poste: { fonction: { id: 10 }, ...aYear } }),
      400,
      'VALIDATION_FAILED',
    )
    const untouched = await db()
      .selectFrom('utilisateur')
      .select(['actif', 'registration_state'])
      .where('id', '=', carrier.id)
      .executeTakeFirstOrThrow()
    expect(untouched).toEqual({ actif: 0, registration_state: 'PENDING' })
    const authorized = await authorize({
      user: { id: carrier.id },
      authorize: true,
      poste: { fonction: { id: 10 }, ...aYear },
    })
    expect(authorized.status).toBe(200)
    // A resend with the same post gives no second one.
    expect(
      (await authorize({ user: { id: carrier.id }, authorize: true, poste: { fonction: { id: 10 }, ...aYear } }))
        .status,
    ).toBe(200)
    const postes = await db()
      .selectFrom('poste')
      .select('fonction_id')
      .where('utilisateur_id', '=', carrier.id)
      .execute()
    expect(postes).toEqual([{ fonction_id: 10 }])
    const signedIn = await firstSignIn(carrier.mail)
    expect(await launcherOf(signedIn.jwt.accessToken, carrier.id)).toEqual([3])
  })

  it('gives no post in a company outside the caller’s scope, nor by a name that only folds outside ASCII; nothing written', async () => {
    // A registration waiting in Agence Lille typed a company; Direction Sud then created a carrier
    // company of that name.
    const elsewhere = await registration({ nom: 'Fret Sud' })
    await db()
      .insertInto('structure')
      .values({ id: 60, nom: 'Agence Marseille', type_id: 3, parent_id: 3, path: '/1/3/60/' })
      .execute()
    await db()
      .insertInto('structure')
      .values({ id: 70, nom: 'Fret Sud', type_id: 4, parent_id: 60, path: '/1/3/60/70/' })
      .execute()
    await db().insertInto('fonction').values({ id: 110, libelle: 'Chauffeur', structure_id: 70 }).execute()
    const refused = await expectError(
      await authorize({
        user: { id: elsewhere.id },
        authorize: true,
        poste: { fonction: { libelle: 'Chauffeur' }, ...aYear },
      }),
      400,
      'VALIDATION_FAILED',
    )
    expect(refused.attributs).toEqual([{ field: 'poste.fonction.libelle', message: 'validation.fonctionStructure' }])
    await expectError(
      await authorize({ user: { id: elsewhere.id }, authorize: true, poste: { fonction: { id: 110 }, ...aYear } }),
      400,
      'VALIDATION_FAILED',
    )
    expect((await putTemplate(4, [{ libelle: 'Équipier', applications: [{ id: 3 }] }])).status).toBe(200)
    const typed = await registration({ nom: 'Fret Unicode' })
    await expectError(
      await authorize({
        user: { id: typed.id },
        authorize: true,
        poste: { fonction: { libelle: 'équipier' }, ...aYear },
      }),
      400,
      'VALIDATION_FAILED',
    )
    for (const carrier of [elsewhere, typed]) {
      const row = await db()
        .selectFrom('utilisateur')
        .select(['actif', 'registration_structure_id'])
        .where('id', '=', carrier.id)
        .executeTakeFirstOrThrow()
      expect(row).toEqual({ actif: 0, registration_structure_id: null })
      expect(await db().selectFrom('poste').select('id').where('utilisateur_id', '=', carrier.id).execute()).toEqual([])
    }
    expect(await db().selectFrom('structure').select('id').where('nom', '=', 'Fret Unicode').execute()).toEqual([])
    // The name as the template writes it.
    const accepted = await authorize({
      user: { id: typed.id },
      authorize: true,
      poste: { fonction: { libelle: 'Équipier' }, ...aYear },
    })
    expect(accepted.status).toBe(200)
  })

  it('refused after its authorisation, before its password: the post goes with it, said in the history as its own deletion', async () => {
    const carrier = await registration({ id: 5 })
    expect(
      (await authorize({ user: { id: carrier.id }, authorize: true, poste: { fonction: { id: 10 }, ...aYear } }))
        .status,
    ).toBe(200)
    expect((await authorize({ user: { id: carrier.id }, authorize: false })).status).toBe(200)
    const left = await db().selectFrom('poste').select('id').where('utilisateur_id', '=', carrier.id).execute()
    expect(left).toEqual([])
    const entries = await db()
      .selectFrom('log')
      .select(['nom_log', 'commentaire'])
      .where('commentaire', 'like', `#${carrier.id} ${carrier.mail}%`)
      .orderBy('id')
      .execute()
    const said = `#${carrier.id} ${carrier.mail} : Chauffeur, ${aYear.dateDebut} → ${aYear.dateFin}`
    expect(entries).toEqual([
      { nom_log: 'POSTE_CREATION', commentaire: said },
      { nom_log: 'INSCRIPTION_VALIDATION', commentaire: `#${carrier.id} ${carrier.mail}` },
      { nom_log: 'INSCRIPTION_REFUS', commentaire: `#${carrier.id} ${carrier.mail}` },
      { nom_log: 'POSTE_SUPPRESSION', commentaire: said },
    ])
  })

  it('without a post, as before: the carrier signs in to no application', async () => {
    const carrier = await registration({ id: 5 })
    expect((await authorize({ user: { id: carrier.id }, authorize: true })).status).toBe(200)
    const signedIn = await firstSignIn(carrier.mail)
    expect(await launcherOf(signedIn.jwt.accessToken, carrier.id)).toEqual([])
  })
})

describe('the applications of a template’s function', () => {
  it('are 20 at most: 20 in one function are kept, 21 refused on that function’s field, the 20 staying', async () => {
    const added = await db()
      .insertInto('application')
      .values(
        Array.from({ length: 17 }, (_, i) => ({
          libelle: `Outil ${i + 1}`,
          icone: 'scale',
          url: `https://outil-${i + 1}.example.test/`,
        })),
      )
      .returning('id')
      .execute()
    const catalogue = [1, 2, 3, 4, ...added.map((row) => row.id)].map((id) => ({ id }))
    const before = await templateOf(2)
    try {
      const twenty = await okBody(
        api(root).rest.bd.typestructure[':id'].fonctions.$put({
          param: { id: 2 },
          json: [{ libelle: 'Directeur', applications: catalogue.slice(0, 20) }],
        }),
      )
      const kept = twenty.map((f) => f.applications.length)
      expect(kept).toEqual([20])
      const refused = await expectError(
        await putTemplate(2, [{ libelle: 'Directeur', applications: catalogue }]),
        400,
        'VALIDATION_FAILED',
      )
      expect(refused.attributs).toEqual([{ field: '0.applications', message: 'validation.tooMany' }])
      const after = await templateOf(2)
      expect(after.map((f) => f.applications.length)).toEqual([20])
    } finally {
      const restore = before.map((f) => ({
        libelle: f.libelle,
        applications: f.applications.map(({ id }) => ({ id })),
      }))
      expect((await putTemplate(2, restore)).status).toBe(200)
      await db()
        .deleteFrom('application')
        .where(
          'id',
          'in',
          added.map((row) => row.id),
        )
        .execute()
    }
  })
})
