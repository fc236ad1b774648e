import { beforeAll, describe, expect, it } from 'vitest'
import { type ImportType, STATUS_ERRORS_LISTED } from '../../worker-api/contract/bulk/bulk'
import {
  GRANTS_MAX,
  TEMPLATE_APPLICATIONS_MAX,
  TEMPLATE_FONCTIONS_MAX,
  TEMPLATE_GRANTS_MAX,
} from '../../worker-api/contract/catalogue/catalogue'
import {
  DECISIONS_MAX,
  REVIEW_PAGE_ITEMS_MAX,
  type ReviewDecisions,
} from '../../worker-api/contract/governance/access-reviews'
import { FONCTION_GRANTS_MAX } from '../../worker-api/contract/organisation/structure'
import { IMPORT_LOT_ROWS } from '../../worker-api/services/bulk/upload'
import { api, okBody } from './client'
import { type Caller, call, callerOf, createOrganisation, currentPost, db, isoDate, wireDate } from './helpers'
import { jobsQueue } from './jobs-queue'
import { manyUsers } from './many-users'
import { reviewKit } from './review-kit'

/**
 * Each call that binds a list, taken to the maximum the README documents, on the D1 that refuses what production's
 * refuses (tests/api/production-limits.test.ts): a statement past D1's limits fails the test instead of production.
 * The organisation of helpers.ts: Groupe (1) › Direction Nord (2) › Agence Lille (4), Direction Sud (3).
 */

/** More than an export reads per statement (500) and a review decides per call (500). */
const CROWD = 600

let root: Caller
let nord: Caller
const { opened, campaign } = reviewKit('CONSERVER')

beforeAll(async () => {
  await createOrganisation()
  root = await callerOf({ admin: true, postes: [currentPost(1, 1)] })
  nord = await callerOf({ admin: true, postes: [currentPost(2, 1)] })
  await manyUsers(CROWD, 4, 2)
})

const lines = (text: string) => text.trimEnd().split('\n')

describe('an access review', () => {
  it(`decides ${DECISIONS_MAX} items in one call, each ended with a reason of 500 characters; its pages and report follow`, async () => {
    const id = await opened(nord, campaign(4))
    const items = await db()
      .selectFrom('revue_element')
      .select('id')
      .where('revue_id', '=', id)
      .orderBy('id')
      .limit(DECISIONS_MAX)
      .execute()
    expect(items).toHaveLength(DECISIONS_MAX)
    const reason = 'é'.repeat(500)
    const body: ReviewDecisions = items.map((item) => ({
      element: { id: item.id },
      decision: 'TERMINER',
      dateFin: wireDate(isoDate(1)),
      commentaire: reason,
    }))
    const decided = await okBody(api(nord.token).rest.bd.revue[':id'].decisions.$post({ param: { id }, json: body }))
    expect(decided.decides).toHaveLength(DECISIONS_MAX)
    const entries = await db()
      .selectFrom('log')
      .select(db().fn.countAll<number>().as('n'))
      .where('nom_log', '=', 'REVUE_FIN_POSTE')
      .executeTakeFirstOrThrow()
    expect(entries.n).toBe(DECISIONS_MAX)
    const page = await okBody(
      api(nord.token).rest.bd.revue[':id'].$get({ param: { id }, query: { elements: REVIEW_PAGE_ITEMS_MAX, page: 1 } }),
    )
    expect(page.elements).toHaveLength(REVIEW_PAGE_ITEMS_MAX)
    const report = await call(`/rest/bd/revue/${id}/rapport.csv`, { token: nord.token })
    expect(report.status).toBe(200)
    expect(lines(await report.text()).length).toBeGreaterThan(CROWD)
  })
})

describe('an import, a lot at a time', () => {
  const USERS_HEADER = 'mail;nom;prenom;login;admin;structure;fonction;dateDebut;dateFin;actif'
  const period = `${wireDate(isoDate(0))};${wireDate(isoDate(365))}`
  const file = (rows: string[]) => [USERS_HEADER, ...rows].join('\r\n')
  const people = (nom: string, fonction = 'Agent de quai') =>
    Array.from(
      { length: IMPORT_LOT_ROWS },
      (_, n) => `lot${n}@example.test;${nom};Personne${n};;non;Agence Lille;${fonction};${period};oui`,
    )

  async function imported(type: ImportType, text: string, query: { invitation?: 'true' } = {}) {
    const queue = jobsQueue()
    // A text/csv body: the Blob's type is the request's Content-Type.
    const response = api(root.token, queue.env).rest.bd.import.$post(
      { query: { type, ...query } },
      { init: { body: new Blob([text], { type: 'text/csv' }) } },
    )
    const { id } = await okBody(response, 202)
    await queue.drain()
    expect(queue.delivered).toHaveLength(1)
    return { id, status: await okBody(api(root.token).rest.bd.import[':id'].$get({ param: { id }, query: {} })) }
  }

  it(`previews, creates with invitations, then changes ${IMPORT_LOT_ROWS} users: one lot each`, async () => {
    const preview = await call('/rest/bd/import?type=utilisateurs&essai=true', {
      method: 'POST',
      token: root.token,
      body: file(people('Lot')),
      headers: { 'Content-Type': 'text/csv' },
    })
    expect(preview.status).toBe(200)
    expect(await preview.json()).toMatchObject({ lignes: IMPORT_LOT_ROWS, creees: IMPORT_LOT_ROWS, totalErreurs: 0 })
    const created = await imported('utilisateurs', file(people('Lot')), { invitation: 'true' })
    expect(created.status).toMatchObject({ etat: 'TERMINE', creees: IMPORT_LOT_ROWS, totalErreurs: 0 })
    const changed = await imported('utilisateurs', file(people('Lotchange')))
    expect(changed.status).toMatchObject({ etat: 'TERMINE', modifiees: IMPORT_LOT_ROWS, totalErreurs: 0 })
  })

  it(`lists ${STATUS_ERRORS_LISTED} errors of a lot whose every row is wrong, and gives them all as a file`, async () => {
    const wrong = await imported('utilisateurs', file(people('Faux', 'Fonction inconnue')))
    expect(wrong.status).toMatchObject({ etat: 'TERMINE', totalErreurs: IMPORT_LOT_ROWS })
    expect(wrong.status.erreurs).toHaveLength(STATUS_ERRORS_LISTED)
    const errors = await call(`/rest/bd/import/${wrong.id}/erreurs.csv`, { token: root.token })
    expect(errors.status).toBe(200)
    expect(lines(await errors.text())).toHaveLength(IMPORT_LOT_ROWS + 1)
  })

  it(`creates ${IMPORT_LOT_ROWS} structures in one lot, each with its template's functions`, async () => {
    const rows = Array.from({ length: IMPORT_LOT_ROWS }, (_, n) => `Agence Lot ${n};Agence;Groupe / Direction Nord`)
    const { status } = await imported('structures', ['nom;type;parent', ...rows].join('\r\n'))
    expect(status).toMatchObject({ etat: 'TERMINE', creees: IMPORT_LOT_ROWS, totalErreurs: 0 })
  })
})

describe('the exports, read a chunk at a time', () => {
  it('gives every user of the scope and every history entry, past a chunk', async () => {
    const users = await call('/rest/bd/export/utilisateurs.csv', { token: root.token })
    expect(users.status).toBe(200)
    expect(lines(await users.text()).length).toBeGreaterThan(CROWD)
    // The crowd's review decisions and imports wrote more entries than a chunk.
    const history = await call('/rest/bd/logs/export', { token: root.token })
    expect(history.status).toBe(200)
    expect(lines(await history.text()).length).toBeGreaterThan(CROWD)
  })
})

describe('the catalogue’s lists of grants', () => {
  const many = async (count: number, make: (n: number) => { id: number; libelle: string }) => {
    const rows = Array.from({ length: count }, (_, n) => make(n))
    for (let start = 0; start < count; start += 25)
      await db()
        .insertInto('fonction')
        .values(rows.slice(start, start + 25).map((row) => ({ ...row, structure_id: 4 })))
        .execute()
    return rows.map((row) => ({ id: row.id }))
  }

  it(`an application granted by ${GRANTS_MAX} functions, then by ${GRANTS_MAX} others`, async () => {
    const first = await many(GRANTS_MAX, (n) => ({ id: 5000 + n, libelle: `Grant A${n}` }))
    const second = await many(GRANTS_MAX, (n) => ({ id: 6000 + n, libelle: `Grant B${n}` }))
    const draft = {
      libelle: 'Suivi des quais',
      icone: 'truck' as const,
      url: 'https://quais.example.test/',
      actif: true,
    }
    const send = (method: string, body: object) =>
      call('/rest/bd/application', { method, token: root.token, body: JSON.stringify(body) })
    const { id } = await okBody(
      api(root.token).rest.bd.application.$post({ json: { ...draft, protocole: 'CODE', fonctions: first } }),
      201,
    )
    const updated = await send('PUT', { ...draft, id, fonctions: second })
    expect(updated.status).toBe(200)
    const grants = await db().selectFrom('fonction_application').select('fonction_id').where('application_id', '=', id)
    expect((await grants.execute()).map((grant) => grant.fonction_id).sort()).toEqual(second.map((f) => f.id))
  })

  it(`a function granting ${FONCTION_GRANTS_MAX} applications, and a template of ${TEMPLATE_FONCTIONS_MAX} functions granting ${TEMPLATE_GRANTS_MAX} each, ${TEMPLATE_APPLICATIONS_MAX} in all`, async () => {
    const count = Math.max(FONCTION_GRANTS_MAX, TEMPLATE_APPLICATIONS_MAX)
    const applications = Array.from({ length: count }, (_, n) => ({
      id: 7000 + n,
      libelle: `Application ${n}`,
      icone: 'apps',
      url: `https://app${n}.example.test/`,
    }))
    for (let start = 0; start < count; start += 10)
      await db()
        .insertInto('application')
        .values(applications.slice(start, start + 10))
        .execute()
    const ids = applications.map((application) => ({ id: application.id }))
    const fonction = await call('/rest/bd/fonction', {
      method: 'PUT',
      token: root.token,
      body: JSON.stringify({ id: 2, libelle: 'Agent de quai', applications: ids.slice(0, FONCTION_GRANTS_MAX) }),
    })
    expect(fonction.status).toBe(200)
    const template = Array.from({ length: TEMPLATE_FONCTIONS_MAX }, (_, n) => ({
      libelle: `Modèle ${n}`,
      applications: Array.from({ length: TEMPLATE_GRANTS_MAX }, (_, k) => ids[(n * 7 + k) % TEMPLATE_APPLICATIONS_MAX]),
    }))
    expect(new Set(template.flatMap((f) => f.applications.map((a) => a?.id))).size).toBe(TEMPLATE_APPLICATIONS_MAX)
    const put = await call('/rest/bd/typestructure/3/fonctions', {
      method: 'PUT',
      token: root.token,
      body: JSON.stringify(template),
    })
    expect(put.status).toBe(200)
  })
})
