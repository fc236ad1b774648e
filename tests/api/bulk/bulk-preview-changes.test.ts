import type { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import type { z } from 'zod'
import { type importStartQuery, PREVIEW_CHANGES_LISTED } from '../../../worker-api/contract/bulk/bulk'
import { api, okBody } from '../client'
import { call, createOrganisation, createUser, currentPost, db, isoDate, sessionFor, wireDate } from '../helpers'
import { jobsQueue } from '../jobs-queue'

/**
 * What a users file will change of existing users, listed before "Importer": who it renames, readdresses, makes an
 * administrator or removes as one, deactivates or reactivates — in the preview's answer and in a kept preview's
 * state, the first 100 of them and their count. A post added alone is no such change.
 */

const USERS_HEADER = 'mail;nom;prenom;login;admin;structure;fonction;dateDebut;dateFin;actif'
const today = wireDate(isoDate(0))
const future = wireDate(isoDate(365))

let root: string

beforeAll(async () => {
  await createOrganisation()
  const rootAdmin = await createUser({ admin: true, postes: [currentPost(1, 1, 400)] })
  root = (await sessionFor(rootAdmin.id)).accessToken
})

/** A file posted to the import by the root administrator, with `query`. */
const upload = (query: z.input<typeof importStartQuery>, text: string, overrides: Partial<typeof env> = {}) =>
  api(root, overrides).rest.bd.import.$post({ query }, { init: { body: text } })
/** An import as the root administrator reads it. */
const importOf = (id: number) => okBody(api(root).rest.bd.import[':id'].$get({ param: { id }, query: {} }))

/** A user as the export writes them, with `cells` in place of theirs. */
const rowOf = (user: { login: string }, cells: Partial<Record<'mail' | 'nom' | 'admin' | 'poste' | 'actif', string>>) =>
  [
    cells.mail ?? `${user.login}@example.test`,
    cells.nom ?? `Nom${user.login.slice(4)}`,
    `Prenom${user.login.slice(4)}`,
    user.login,
    cells.admin ?? '',
    cells.poste ?? ';;;',
    cells.actif ?? '',
  ].join(';')

describe('the changes of existing users a preview lists', () => {
  it('names who is renamed, readdressed, promoted and deactivated, not who only gets a post', async () => {
    const [renamed, promoted, deactivated, posted] = [
      await createUser({ postes: [currentPost(4, 2, 400)] }),
      await createUser({ postes: [currentPost(4, 2, 400)] }),
      await createUser({ postes: [currentPost(4, 2, 400)] }),
      await createUser({ postes: [currentPost(4, 2, 400)] }),
    ]
    const text = [
      USERS_HEADER,
      rowOf(renamed, { nom: 'Durand', mail: `nouvelle.${renamed.login}@example.test` }),
      rowOf(promoted, { admin: 'oui' }),
      rowOf(deactivated, { actif: 'non' }),
      rowOf(posted, { poste: `Direction Sud;Responsable;${today};${future}` }),
    ].join('\n')
    const expected = [
      {
        ligne: 2,
        login: renamed.login,
        nom: { avant: `Nom${renamed.login.slice(4)}`, apres: 'Durand' },
        mail: { avant: `${renamed.login}@example.test`, apres: `nouvelle.${renamed.login}@example.test` },
      },
      { ligne: 3, login: promoted.login, admin: true },
      { ligne: 4, login: deactivated.login, actif: false },
    ]

    const essai = await upload({ type: 'utilisateurs', essai: 'true' }, text)
    expect(essai.status).toBe(200)
    const preview = await okBody(essai)
    expect(preview).toMatchObject({ modifiees: 4, totalErreurs: 0, totalChangements: 3 })
    expect(preview.changements).toEqual(expected)

    const queue = jobsQueue()
    const keep = upload(
      { type: 'utilisateurs', essai: 'true', conserver: 'true', fichier: 'changements.csv' },
      text,
      queue.env,
    )
    const kept = await okBody(keep)
    expect(kept).toMatchObject({ totalChangements: 3, changements: expected, id: expect.any(Number) })
    const status = await importOf(kept.id ?? 0)
    expect(status).toMatchObject({ etat: 'APERCU', modifiees: 4, totalChangements: 3 })
    expect(status.changements).toEqual(expected)

    // Imported, the preview's changes give way to the import's own figures.
    const launch = await call(`/rest/bd/import/${kept.id}/lancement`, {
      method: 'POST',
      token: root,
      body: JSON.stringify({ invitation: false }),
      env: queue.env,
    })
    expect(launch.status).toBe(202)
    const started = await importOf(kept.id ?? 0)
    expect(started).toMatchObject({ changements: [], totalChangements: 0 })
    const rows = await db()
      .selectFrom('import_changement')
      .select('ligne')
      .where('import_id', '=', kept.id ?? 0)
      .execute()
    expect(rows).toEqual([])
  })

  it(`lists the first ${PREVIEW_CHANGES_LISTED} and counts them all`, async () => {
    expect(PREVIEW_CHANGES_LISTED).toBe(100)
    const users = []
    for (let k = 0; k < PREVIEW_CHANGES_LISTED + 1; k++) users.push(await createUser({ password: null }))
    const text = [USERS_HEADER, ...users.map((user) => rowOf(user, { nom: `Renomme${user.login.slice(4)}` }))].join(
      '\n',
    )
    const preview = await okBody(upload({ type: 'utilisateurs', essai: 'true', conserver: 'true' }, text))
    expect(preview).toMatchObject({ modifiees: 101, totalErreurs: 0, totalChangements: 101 })
    expect(preview.changements.map((change) => change.ligne)).toEqual(Array.from({ length: 100 }, (_, k) => k + 2))
    const status = await importOf(preview.id ?? 0)
    expect(status.totalChangements).toBe(101)
    expect(status.changements.map((change) => change.ligne)).toEqual(Array.from({ length: 100 }, (_, k) => k + 2))
    expect(status.changements[0]).toEqual({
      ligne: 2,
      login: users[0]?.login,
      nom: { avant: `Nom${users[0]?.login.slice(4)}`, apres: `Renomme${users[0]?.login.slice(4)}` },
    })
  })
})
