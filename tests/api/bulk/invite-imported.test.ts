import { beforeAll, describe, expect, it } from 'vitest'
import { api, okBody } from '../client'
import { createOrganisation, createUser, currentPost, db, isoDate, post, sessionFor, wireDate } from '../helpers'
import { jobsQueue } from '../jobs-queue'

/**
 * A user imported without an invitation waits for their password with no link under way: their record says so
 * (`motDePasseChoisi` false, `tokenRegister` null), which the user's page shows with an invitation button, and
 * `POST rest/bd/utilisateur/{id}/invitation` invites them then.
 */

let root: { token: string }

beforeAll(async () => {
  await createOrganisation()
  const admin = await createUser({ admin: true, postes: [currentPost(1, 1, 400)] })
  root = { token: (await sessionFor(admin.id)).accessToken }
})

const userOf = (id: number) => okBody(api(root.token).rest.bd.utilisateur[':id'].$get({ param: { id }, query: {} }))

/** Imports a users file (`query`: the import's options, e.g. { invitation: 'true' }) to its end; its state. */
async function imported(file: string, query: { invitation?: 'true' } = {}) {
  const queue = jobsQueue()
  // The file is the request's body as it is (the client's `init`): the route reads it raw, as text/csv.
  const started = await api(root.token, queue.env).rest.bd.import.$post(
    { query: { type: 'utilisateurs', ...query } },
    { headers: { 'Content-Type': 'text/csv' }, init: { body: file } },
  )
  expect(started.status).toBe(202)
  await queue.drain()
  const { id } = await okBody(started, 202)
  return okBody(api(root.token).rest.bd.import[':id'].$get({ param: { id }, query: {} }))
}

describe('a user imported without an invitation', () => {
  it('is shown waiting for a password with no invitation, and is invited from their record', async () => {
    const mail = `importe.${crypto.randomUUID().slice(0, 8)}@example.test`
    const file = [
      'mail;nom;prenom;login;admin;structure;fonction;dateDebut;dateFin;actif',
      `${mail};Martin;Léa;;non;Agence Lille;Agent de quai;${wireDate(isoDate(0))};${wireDate(isoDate(300))};oui`,
    ].join('\n')
    expect(await imported(file)).toMatchObject({ etat: 'TERMINE', creees: 1 })
    const { id } = await db().selectFrom('utilisateur').select('id').where('mail', '=', mail).executeTakeFirstOrThrow()

    expect(await userOf(id)).toMatchObject({ motDePasseChoisi: false, tokenRegister: null, actif: true })
    expect(await db().selectFrom('outbox').select('id').where('to_address', '=', mail).execute()).toEqual([])

    expect((await post(`/rest/bd/utilisateur/${id}/invitation`, {}, root)).status).toBe(204)
    const invited = await userOf(id)
    expect(invited.motDePasseChoisi).toBe(false)
    expect(invited.tokenRegister).toBeGreaterThan(Date.now())
    expect(await db().selectFrom('outbox').select('kind').where('to_address', '=', mail).execute()).toHaveLength(1)
  })

  it('is told apart from a user who chose their password', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    expect(await userOf(user.id)).toMatchObject({ motDePasseChoisi: true, tokenRegister: null })
  })
})

describe('an import that invites, given again a file whose users were imported without invitations', () => {
  it('invites each of them once, changing nothing else, and leaves those invited already', async () => {
    const mails = [1, 2].map((n) => `reimporte${n}.${crypto.randomUUID().slice(0, 8)}@example.test`)
    const file = [
      'mail;nom;prenom;login;admin;structure;fonction;dateDebut;dateFin;actif',
      ...mails.map(
        (mail) =>
          `${mail};Martin;Léa;;non;Agence Lille;Agent de quai;${wireDate(isoDate(0))};${wireDate(isoDate(300))};oui`,
      ),
    ].join('\n')
    const sent = () =>
      db().selectFrom('outbox').select('to_address').where('to_address', 'in', mails).orderBy('id').execute()
    await imported(file)
    expect(await sent()).toEqual([])
    const first = mails[0] as string
    const [invitedFirst] = await db().selectFrom('utilisateur').select('id').where('mail', '=', first).execute()
    expect((await post(`/rest/bd/utilisateur/${invitedFirst?.id}/invitation`, {}, root)).status).toBe(204)

    const again = await imported(file, { invitation: 'true' })
    expect(again).toMatchObject({ etat: 'TERMINE', inchangees: 2, modifiees: 0, creees: 0 })
    // The second one invited by the import; the first, whose link lives, not again.
    expect((await sent()).map((mail) => mail.to_address)).toEqual([first, mails[1]])
    await imported(file, { invitation: 'true' })
    expect(await sent()).toHaveLength(2)
  })
})
