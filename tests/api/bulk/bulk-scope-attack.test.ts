import { beforeAll, describe, expect, it } from 'vitest'
import { api, okBody } from '../client'
import { createOrganisation, createUser, currentPost, db, isoDate, sessionFor, wireDate } from '../helpers'

/**
 * A delegated administrator probing outside their sub-tree with previews: whatever account or structure a row names
 * outside it, the row gets one answer, naming nothing they did not write — no login, no path, no sign of whether the
 * names, flags, type or parent they guessed are right.
 */

const USERS_HEADER = 'mail;nom;prenom;login;admin;structure;fonction;dateDebut;dateFin;actif'
const today = wireDate(isoDate(0))
const future = wireDate(isoDate(365))
const POST = `Agence Lille;Agent de quai;${today};${future}`

let nord: string
let sud: { login: string; mail: string }
let others: { login: string; mail: string }[] = []
let astride: { login: string }

beforeAll(async () => {
  await createOrganisation()
  await db()
    .insertInto('structure')
    .values({ id: 5, nom: 'Agence Marseille', type_id: 3, parent_id: 3, path: '/1/3/5/' })
    .execute()
  await db().insertInto('fonction').values({ id: 21, libelle: 'Directeur Nord', structure_id: 2 }).execute()
  const nordAdmin = await createUser({ admin: true, postes: [currentPost(2, 21, 400)] })
  nord = (await sessionFor(nordAdmin.id)).accessToken
  // Direction Sud's people: one whose login is not their address, one deleted, a registration, an administrator.
  const active = await createUser({ postes: [currentPost(3, 3, 400)] })
  await db().updateTable('utilisateur').set({ login: 'secret.sud' }).where('id', '=', active.id).execute()
  sud = { login: 'secret.sud', mail: `${active.login}@example.test` }
  await createUser({ postes: [currentPost(3, 3, 400)] }).then((taken) =>
    db().updateTable('utilisateur').set({ login: 'pris.sud@example.test' }).where('id', '=', taken.id).execute(),
  )
  const deleted = await createUser({ supprime: true, postes: [currentPost(3, 3, 400)] })
  const pending = await createUser({ registration: 'PENDING', registrationStructure: 3 })
  const admin = await createUser({ admin: true, postes: [currentPost(3, 3, 400)] })
  others = [deleted, pending, admin].map((user) => ({ login: user.login, mail: `${user.login}@example.test` }))
  // A post in the sub-tree and one outside: seen by Direction Nord's administrator, not theirs to change.
  astride = await createUser({ postes: [currentPost(4, 2, 400), currentPost(3, 3, 400)] })
})

const preview = async (type: 'utilisateurs' | 'structures', row: string) => {
  const header = type === 'utilisateurs' ? USERS_HEADER : 'nom;type;parent'
  // A text/csv body: the Blob's type is the request's Content-Type.
  const response = api(nord).rest.bd.import.$post(
    { query: { type, essai: 'true' } },
    { headers: { 'Accept-Language': 'fr' }, init: { body: new Blob([`${header}\n${row}\n`], { type: 'text/csv' }) } },
  )
  return okBody(response)
}

/** A one-row file's errors, the row doing nothing. */
async function errorsOf(type: 'utilisateurs' | 'structures', row: string) {
  const body = await preview(type, row)
  expect(body).toMatchObject({ lignes: 1, creees: 0, modifiees: 0, inchangees: 0 })
  return body.erreurs
}

describe('a row naming an account outside the sub-tree', () => {
  it('gets one answer whatever the account, its names, flags, login or state', async () => {
    const nom = `Nom${sud.mail.slice(4, sud.mail.indexOf('@'))}`
    const prenom = `Prenom${sud.mail.slice(4, sud.mail.indexOf('@'))}`
    const rows = [
      // Its own names and flags, without a post: nothing would change.
      `${sud.mail};${nom};${prenom};;non;;;;;oui`,
      `${sud.mail};${nom};${prenom};secret.sud;;;;;;`,
      // Other names, a wrong login, a post in the sub-tree.
      `${sud.mail};Autre;Nom;;;;;;;`,
      `${sud.mail};${nom};${prenom};devine;;;;;;`,
      `${sud.mail};${nom};${prenom};;;${POST};`,
      // Found by its login, or its login given as a new address.
      `nouvelle.sud@example.test;${nom};${prenom};secret.sud;;${POST};`,
      `pris.sud@example.test;Nouveau;Compte;;;${POST};`,
      // A deleted account, a registration waiting, an administrator.
      ...others.map((other) => `${other.mail};Nom;Prenom;;;${POST};`),
      ...others.map((other) => `${other.mail};Nom;Prenom;${other.login};oui;;;;;non`),
    ]
    const answers = []
    for (const row of rows) answers.push(await errorsOf('utilisateurs', row))
    const one = {
      ligne: 2,
      colonne: 'mail',
      message:
        'Un compte hors de votre périmètre porte cette adresse ou cet identifiant : un administrateur de sa branche peut le changer.',
    }
    for (const [n, errors] of answers.entries()) expect([rows[n], errors]).toEqual([rows[n], [one]])
  })
})

describe('a row naming an account the administrator sees but does not manage', () => {
  it('reads as it is when it changes nothing, and is refused when it would', async () => {
    const n = astride.login.slice(4)
    const same = `${astride.login}@example.test;Nom${n};Prenom${n};${astride.login};non;;;;;oui`
    expect(await preview('utilisateurs', same)).toMatchObject({ lignes: 1, inchangees: 1, totalErreurs: 0 })
    const changed = `${astride.login}@example.test;Autre;Prenom${n};;;;;;;`
    expect((await errorsOf('utilisateurs', changed)).map(({ colonne }) => colonne)).toEqual(['mail'])
  })
})

describe('a row naming a structure outside the sub-tree', () => {
  const outside = (valeur: string, colonne: string) => ({
    ligne: 2,
    colonne,
    message: `« ${valeur} » est hors de votre périmètre : seul un administrateur de cette branche peut l’importer.`,
  })

  it('in a users file is said to be outside, as written, never by its path', async () => {
    for (const written of [
      'Direction Sud',
      '3',
      '5',
      'Agence Marseille',
      'Direction Sud / Agence Marseille',
      'Nulle / Part / Agence Marseille',
    ]) {
      const errors = await errorsOf(
        'utilisateurs',
        `probe@example.test;Nom;Prenom;;;${written};Inconnue;${today};${future};`,
      )
      expect([written, errors]).toEqual([written, [outside(written, 'structure')]])
    }
  })

  it('in a structures file is said to be outside, whatever its type and parent, and never where it is', async () => {
    for (const row of [
      'Agence Marseille;Agence;Direction Sud',
      'Agence Marseille;Agence;Direction Nord',
      'Agence Marseille;Direction;Groupe',
      'Agence Marseille;Agence;Groupe / Direction Sud',
    ]) {
      expect([row, await errorsOf('structures', row)]).toEqual([row, [outside('Agence Marseille', 'nom')]])
    }
    for (const parent of ['Direction Sud', '3', 'Groupe / Direction Sud', 'Ailleurs / Direction Sud']) {
      const row = `Agence Neuve;Agence;${parent}`
      expect([row, await errorsOf('structures', row)]).toEqual([row, [outside(parent, 'parent')]])
    }
  })
})
