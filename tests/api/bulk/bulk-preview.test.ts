import { beforeAll, describe, expect, it } from 'vitest'
import type { ImportType } from '../../../worker-api/contract/bulk/bulk'
import { api, okBody } from '../client'
import { call, createOrganisation, createUser, currentPost, db, isoDate, sessionFor, wireDate } from '../helpers'

/**
 * The import's preview (`POST rest/bd/import?essai=true`) and the export it round-trips with: what each row of a file
 * as people make them would do in the caller's scope, every problem a clear row error, and nothing written.
 */

let root: string
let nord: string
let agent: { id: number; login: string }

const USERS_HEADER = 'mail;nom;prenom;login;admin;structure;fonction;dateDebut;dateFin;actif'
const future = wireDate(isoDate(365))
const today = wireDate(isoDate(0))

beforeAll(async () => {
  await createOrganisation()
  const rootAdmin = await createUser({ admin: true, postes: [currentPost(1, 1)] })
  root = (await sessionFor(rootAdmin.id)).accessToken
  const nordAdmin = await createUser({ admin: true, postes: [currentPost(2, 2, 400)] })
  await db().insertInto('fonction').values({ id: 20, libelle: 'Chef de quai', structure_id: 4 }).execute()
  await db().insertInto('fonction').values({ id: 21, libelle: 'Directeur Nord', structure_id: 2 }).execute()
  await db().updateTable('poste').set({ fonction_id: 21 }).where('utilisateur_id', '=', nordAdmin.id).execute()
  nord = (await sessionFor(nordAdmin.id)).accessToken
  agent = await createUser({ postes: [currentPost(4, 2, 400)] })
})

/** A file's preview; the Blob's type is the request's Content-Type. */
const preview = async (
  token: string,
  type: ImportType,
  text: string | Uint8Array,
  headers: Record<string, string> = {},
) => {
  const response = await api(token).rest.bd.import.$post(
    { query: { type, essai: 'true' } },
    {
      headers,
      init: { body: new Blob([typeof text === 'string' ? text : (text.buffer as ArrayBuffer)], { type: 'text/csv' }) },
    },
  )
  return { response, body: await okBody(response) }
}

const domainRows = async () => {
  const [users, postes, structures, logs] = await Promise.all(
    (['utilisateur', 'poste', 'structure', 'log'] as const).map(async (table) =>
      Number(
        (
          await db()
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      ),
    ),
  )
  return { users, postes, structures, logs }
}

describe('the preview of a users file', () => {
  it('counts what each row would do and writes nothing', async () => {
    const before = await domainRows()
    const { response, body } = await preview(
      root,
      'utilisateurs',
      [
        `\uFEFF${USERS_HEADER}`,
        `nouveau.un@example.test;Dupont;Jeanne;;non;Groupe / Direction Nord / Agence Lille;Agent de quai;${today};${future};oui`,
        // The same person with a second post: a change of the user the row above creates.
        `nouveau.un@example.test;Dupont;Jeanne;;non;Agence Lille;Chef de quai;${today};${future};oui`,
        // An existing user as they are: unchanged (their post already held on these days).
        `${agent.login}@example.test;Nom${agent.login.slice(4)};Prenom${agent.login.slice(4)};${agent.login};non;Agence Lille;Agent de quai;${today};${future};oui`,
        '',
        // A new name for the same existing user would change them, but a person has one identity in a file.
        `${agent.login}@example.test;Autre;Prenom${agent.login.slice(4)};${agent.login};non;;;;;oui`,
      ].join('\r\n'),
    )
    expect(response.status).toBe(200)
    expect(body).toMatchObject({ lignes: 4, creees: 1, modifiees: 1, inchangees: 1, totalErreurs: 1 })
    expect(body.erreurs).toEqual([{ ligne: 6, colonne: 'mail', message: expect.stringContaining('ligne 4') }])
    expect(await domainRows()).toEqual(before)
  })

  it('reads commas, quoted separators and line breaks, and tells the line each row starts on', async () => {
    const { body } = await preview(
      root,
      'utilisateurs',
      [
        USERS_HEADER.replaceAll(';', ','),
        `"quote@example.test","Du, Pont","Jean""ne",,non,Agence Lille,"Agent de quai",${today},${future},oui`,
        `"multi@example.test","Nom sur`,
        `deux lignes",Prenom,,,Agence Lille,Inconnue,${today},${future},`,
        `bad@example.test,Nom,Prenom,,peut-être,Agence Lille,Agent de quai,31/02/2026,${future},oui`,
      ].join('\n'),
    )
    expect(body).toMatchObject({ lignes: 3, creees: 1, totalErreurs: 3 })
    expect(body.erreurs.map(({ ligne, colonne }) => [ligne, colonne])).toEqual([
      [3, 'fonction'],
      [5, 'admin'],
      [5, 'dateDebut'],
    ])
    expect(body.erreurs[0]?.message).toBe(
      'Pas de fonction « Inconnue » dans « Agence Lille ». Ses fonctions : Agent de quai, Chef de quai.',
    )
  })

  it('answers in English for an English caller', async () => {
    const { body } = await preview(
      root,
      'utilisateurs',
      `${USERS_HEADER}\nx@example.test;Nom;Prenom;;;Nowhere;Agent;${today};${future};`,
      { 'Accept-Language': 'en-GB' },
    )
    expect(body.erreurs[0]?.message).toBe('No structure “Nowhere”: check its name, or import the structures first.')
  })

  it('tells a file that is not UTF-8 to be saved as such, row by row', async () => {
    const latin1 = new Uint8Array([
      ...new TextEncoder().encode(`${USERS_HEADER}\nlatin@example.test;`),
      0x48,
      0xe9,
      0x6c,
      0xe8,
      0x6e,
      0x65,
      ...new TextEncoder().encode(`;Prenom;;;Agence Lille;Agent de quai;${today};${future};oui\n`),
    ])
    const { body } = await preview(root, 'utilisateurs', latin1)
    expect(body.erreurs).toEqual([{ ligne: 2, colonne: 'nom', message: expect.stringContaining('CSV UTF-8') }])
  })

  it('names the expected header when the first line is not it, and reads no row', async () => {
    const { body } = await preview(root, 'utilisateurs', 'nom;type;parent\nA;B;C\n')
    expect(body).toMatchObject({ lignes: 0, totalErreurs: 1 })
    expect(body.erreurs[0]).toMatchObject({ ligne: 1, colonne: null })
    expect(body.erreurs[0]?.message).toContain(USERS_HEADER)
  })

  it('an unclosed quote is the error of its row, and the rows before it are read', async () => {
    const { body } = await preview(
      root,
      'utilisateurs',
      `${USERS_HEADER}\nok@example.test;Nom;Prenom;;;Agence Lille;Agent de quai;${today};${future};\n"open@example.test;Nom`,
    )
    expect(body).toMatchObject({ lignes: 2, creees: 1, totalErreurs: 1 })
    expect(body.erreurs[0]).toMatchObject({ ligne: 3, colonne: null })
  })

  it("keeps a delegated administrator's rows inside their sub-tree", async () => {
    const { body } = await preview(
      nord,
      'utilisateurs',
      [
        USERS_HEADER,
        `sud@example.test;Nom;Prenom;;;Direction Sud;Responsable;${today};${future};`,
        `nord@example.test;Nom;Prenom;;;Agence Lille;Agent de quai;${today};${future};`,
        'sanposte@example.test;Nom;Prenom;;;;;;;',
      ].join('\n'),
    )
    expect(body).toMatchObject({ lignes: 3, creees: 1, totalErreurs: 2 })
    expect(body.erreurs.map(({ ligne, colonne }) => [ligne, colonne])).toEqual([
      [2, 'structure'],
      [4, 'structure'],
    ])
    expect(body.erreurs[0]?.message).toContain('hors de votre périmètre')
  })
})

describe('the preview of a structures file', () => {
  it('creates under a parent of the file or of the tree, and tells why a row cannot be', async () => {
    const before = await domainRows()
    const { body } = await preview(
      root,
      'structures',
      [
        'nom;type;parent',
        'Groupe;Racine;',
        'Direction Est;Direction;Groupe',
        'Agence Metz;Agence;Groupe / Direction Est',
        'Agence Nancy;Agence;Direction Sud / Direction Est',
        'Agence Lille;Agence;Direction Sud',
        'Agence Reims;Direction;Direction Est',
        'Agence Dijon;Plateforme;Direction Est',
      ].join('\n'),
    )
    expect(body).toMatchObject({ lignes: 7, creees: 2, inchangees: 1, modifiees: 0, totalErreurs: 4 })
    expect(body.erreurs.map(({ ligne, colonne }) => [ligne, colonne])).toEqual([
      [5, 'parent'],
      [6, 'parent'],
      [7, 'type'],
      [8, 'type'],
    ])
    expect(body.erreurs[1]?.message).toContain('un import ne déplace pas une structure')
    expect(await domainRows()).toEqual(before)
  })
})

describe('the export', () => {
  it('is a file the preview finds unchanged (a round trip)', async () => {
    for (const type of ['structures', 'utilisateurs'] as const) {
      const exported = await call(`/rest/bd/export/${type}.csv`, { token: root })
      expect(exported.status).toBe(200)
      expect(exported.headers.get('Content-Type')).toBe('text/csv; charset=utf-8')
      const text = await exported.text()
      expect(text.startsWith('\uFEFF')).toBe(true)
      const { body } = await preview(root, type, text)
      expect(body.totalErreurs).toBe(0)
      expect(body.lignes).toBeGreaterThan(0)
      expect(body).toMatchObject({ creees: 0, modifiees: 0, inchangees: body.lignes })
    }
  })

  it("holds a delegated administrator's sub-tree only", async () => {
    const structures = await (await call('/rest/bd/export/structures.csv', { token: nord })).text()
    expect(structures.split('\r\n').filter(Boolean)).toEqual([
      '\uFEFFnom;type;parent',
      'Direction Nord;Direction;Groupe',
      'Agence Lille;Agence;Groupe / Direction Nord',
    ])
    const users = await (await call('/rest/bd/export/utilisateurs.csv', { token: nord })).text()
    expect(users).toContain(`${agent.login}@example.test`)
    expect(users).not.toContain('Direction Sud')
  })
})
