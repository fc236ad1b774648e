import { beforeAll, describe, expect, it } from 'vitest'
import type { ImportType } from '../../../worker-api/contract/bulk/bulk'
import { api, okBody } from '../client'
import { call, createOrganisation, createUser, currentPost, db, isoDate, sessionFor } from '../helpers'
import { jobsQueue } from '../jobs-queue'

/**
 * Cells a spreadsheet would run as formulas, in the organisation's exports and back through the import: each export
 * neutralises them, and the import reads them as they were, so that export → import → export changes nothing.
 */

let root: string

/** Names starting as formulas do: ASCII, full-width and small forms, a control character, a quote before them. */
const STRUCTURES = ['=Agence Egal', '+Agence Plus', '\uFF20Agence Pleine', '\uFE62Agence Petite', "'-Agence Quote"]
const NAMES = ['=Dupont', '-Jeanne', '@Martin', '\uFF1DDurand', '\u0001Controle', "'+Quote"]

beforeAll(async () => {
  await createOrganisation()
  const admin = await createUser({ admin: true, postes: [currentPost(1, 1, 400)] })
  root = (await sessionFor(admin.id)).accessToken
  await db()
    .insertInto('structure')
    .values(STRUCTURES.map((nom, n) => ({ id: 10 + n, nom, type_id: 3, parent_id: 2, path: `/1/2/${10 + n}/` })))
    .execute()
  await db()
    .insertInto('fonction')
    .values(STRUCTURES.map((_, n) => ({ id: 10 + n, libelle: '=Chef', structure_id: 10 + n })))
    .execute()
  for (const [n, nom] of NAMES.entries()) {
    const user = await createUser({ postes: [currentPost(10 + (n % STRUCTURES.length), 10 + (n % STRUCTURES.length))] })
    await db()
      .updateTable('utilisateur')
      .set({ nom, prenom: NAMES[(n + 1) % NAMES.length] })
      .where('id', '=', user.id)
      .execute()
  }
})

const exported = async (type: string) => (await call(`/rest/bd/export/${type}.csv`, { token: root })).text()

async function imported(type: ImportType, text: string) {
  const queue = jobsQueue()
  // The file is the request's body as it is (the client's `init`): the route reads it raw, as text/csv.
  const response = api(root, queue.env).rest.bd.import.$post(
    { query: { type } },
    { headers: { 'Content-Type': 'text/csv' }, init: { body: text } },
  )
  const { id } = await okBody(response, 202)
  await queue.drain()
  return { id, status: await okBody(api(root).rest.bd.import[':id'].$get({ param: { id }, query: {} })) }
}

describe('an export of formula-looking cells', () => {
  it('neutralises them, in the structures’ file and the users’', async () => {
    const structures = await exported('structures')
    for (const nom of STRUCTURES) expect(structures).toContain(`\r\n'${nom};Agence;Groupe / Direction Nord\r\n`)
    const users = await exported('utilisateurs')
    for (const nom of NAMES) expect(users).toContain(`;'${nom};`)
    // A path starts with the tree's root: only the function's cell is neutralised.
    expect(users).toContain(";Groupe / Direction Nord / =Agence Egal;'=Chef;")
  })

  it('is imported back as it was: export, import, export is the same file', async () => {
    for (const type of ['structures', 'utilisateurs'] as const) {
      const before = await exported(type)
      const { status } = await imported(type, before)
      expect(status).toMatchObject({ etat: 'TERMINE', creees: 0, modifiees: 0, totalErreurs: 0 })
      expect(status.inchangees).toBe(status.lignes)
      expect(await exported(type)).toBe(before)
    }
  })
})

describe('an import’s errors file', () => {
  it('starts no cell with a formula, whatever the rows held', async () => {
    const future = isoDate(365).split('-').reverse().join('/')
    const { id } = await imported(
      'utilisateurs',
      [
        'mail;nom;prenom;login;admin;structure;fonction;dateDebut;dateFin;actif',
        '=1+2;Nom;Prenom;;;;;;;',
        `-x@example.test;=N;Prenom;;@oui;+Nulle part;=Chef;${future};${future};`,
      ].join('\n'),
    )
    const text = await (await call(`/rest/bd/import/${id}/erreurs.csv`, { token: root })).text()
    const cells = text
      .replace('\uFEFF', '')
      .trim()
      .split('\r\n')
      .slice(1)
      .flatMap((line) => line.split(/;(?=(?:[^"]*"[^"]*")*[^"]*$)/))
      .map((cell) => cell.replace(/^"/, ''))
    expect(cells.length).toBeGreaterThan(6)
    expect(text).toContain('=1+2')
    for (const cell of cells) expect(cell).not.toMatch(/^[=+\-@\t\r]/)
  })
})
