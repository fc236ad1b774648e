import { beforeAll, describe, expect, it } from 'vitest'
import { api, okBody } from '../client'
import {
  createOrganisation,
  createUser,
  currentPost,
  db,
  expectError,
  getUserAs,
  isoDate,
  signedInUser,
  wireDate,
} from '../helpers'

beforeAll(createOrganisation)

const view = (token: string, id: number) =>
  okBody(api(token).rest.bd.utilisateur[':id'].$get({ param: { id }, query: {} }))

/** Admins posted at the root (/1/) and at Direction Sud (/1/3/). */
const rootAdmin = () => signedInUser({ admin: true, postes: [currentPost(1, 1)] })
const southAdmin = () => signedInUser({ admin: true, postes: [currentPost(3, 3)] })

describe('GET /rest/bd/utilisateur/{id}', () => {
  it('returns the caller themself with modification false, admin or not', async () => {
    for (const admin of [false, true]) {
      const user = await signedInUser({ admin, postes: [currentPost(1, 1)] })
      const body = await view(user.jwt.accessToken, user.id)
      expect(body).toMatchObject({ id: user.id, modification: false })
    }
  })

  it('answers 403 FORBIDDEN to a non-admin asking for another user', async () => {
    const caller = await signedInUser({ postes: [currentPost(1, 1)] })
    const other = await createUser({ postes: [currentPost(4, 2)] })
    await expectError(await getUserAs(caller.jwt.accessToken, other.id), 403, 'FORBIDDEN')
  })

  it('answers 404 NOT_FOUND for an unknown id to an admin, 403 to anyone else (no existence leak)', async () => {
    const admin = await signedInUser({ admin: true, postes: [currentPost(1, 1)] })
    await expectError(await getUserAs(admin.jwt.accessToken, 999_999), 404, 'NOT_FOUND')
    const caller = await signedInUser()
    await expectError(await getUserAs(caller.jwt.accessToken, 999_999), 403, 'FORBIDDEN')
  })

  it('answers 400 VALIDATION_FAILED for an id that is not a positive integer', async () => {
    const caller = await signedInUser()
    for (const id of ['abc', '0', '-1', '1.5']) {
      await expectError(await getUserAs(caller.jwt.accessToken, id), 400, 'VALIDATION_FAILED')
    }
  })

  it('lets an admin of the root see and manage a user posted below', async () => {
    const admin = await rootAdmin()
    const target = await createUser({ postes: [currentPost(4, 2)] })
    const body = await view(admin.jwt.accessToken, target.id)
    expect(body).toMatchObject({ id: target.id, modification: true })
  })

  it('answers 403 to an admin whose scope holds none of the user posts', async () => {
    const admin = await southAdmin()
    const target = await createUser({ postes: [currentPost(4, 2)] })
    await expectError(await getUserAs(admin.jwt.accessToken, target.id), 403, 'FORBIDDEN')
  })

  it('shows a user partly in scope to an admin, without modification', async () => {
    const admin = await southAdmin()
    const target = await createUser({ postes: [currentPost(3, 3), currentPost(4, 2)] })
    expect(await view(admin.jwt.accessToken, target.id)).toMatchObject({ id: target.id, modification: false })
  })

  it('counts future posts in the scope check, but not past ones', async () => {
    const admin = await southAdmin()
    const future = await createUser({
      postes: [currentPost(3, 3), { structureId: 4, fonctionId: 2, from: isoDate(10), to: isoDate(20) }],
    })
    expect(await view(admin.jwt.accessToken, future.id)).toMatchObject({ modification: false })
    const past = await createUser({
      postes: [currentPost(3, 3), { structureId: 4, fonctionId: 2, from: isoDate(-20), to: isoDate(-10) }],
    })
    expect(await view(admin.jwt.accessToken, past.id)).toMatchObject({ modification: true })
  })

  it('does not give an admin scope from a post that is not current', async () => {
    const admin = await signedInUser({
      admin: true,
      postes: [{ structureId: 1, fonctionId: 1, from: isoDate(5), to: isoDate(50) }],
    })
    const target = await createUser({ postes: [currentPost(4, 2)] })
    await expectError(await getUserAs(admin.jwt.accessToken, target.id), 403, 'FORBIDDEN')
  })

  it('leaves a user who never had a post to the whole tree’s administrators of their domain', async () => {
    const target = await createUser()
    await expectError(await getUserAs((await southAdmin()).jwt.accessToken, target.id), 403, 'FORBIDDEN')
    const admin = await rootAdmin()
    expect(await view(admin.jwt.accessToken, target.id)).toMatchObject({ id: target.id, modification: true })
    const elsewhere = await createUser({ domain: 'https://autre.example.org' })
    await expectError(await getUserAs(admin.jwt.accessToken, elsewhere.id), 403, 'FORBIDDEN')
  })

  it('lets an admin manage another admin whose posts are all in scope', async () => {
    const admin = await rootAdmin()
    const otherAdmin = await createUser({ admin: true, postes: [currentPost(3, 3)] })
    expect(await view(admin.jwt.accessToken, otherAdmin.id)).toMatchObject({ modification: true })
  })

  it('splits posts into current and future by today, leaves out past ones, with dd/MM/yyyy dates', async () => {
    const user = await signedInUser({
      postes: [
        { structureId: 4, fonctionId: 2, from: isoDate(-30), to: isoDate(-1) },
        { structureId: 4, fonctionId: 2, from: isoDate(-10), to: isoDate(0) },
        { structureId: 3, fonctionId: 3, from: isoDate(0), to: isoDate(5) },
        { structureId: 1, fonctionId: 1, from: isoDate(1), to: isoDate(40) },
      ],
    })
    const body = await view(user.jwt.accessToken, user.id)
    expect(body.postesEnCours.map((p) => [p.structure.id, p.dateDebut, p.dateFin])).toEqual([
      [4, wireDate(isoDate(-10)), wireDate(isoDate(0))],
      [3, wireDate(isoDate(0)), wireDate(isoDate(5))],
    ])
    expect(body.postesFutur.map((p) => [p.structure.id, p.dateDebut, p.dateFin])).toEqual([
      [1, wireDate(isoDate(1)), wireDate(isoDate(40))],
    ])
    expect(body.postesEnCours[0]).toMatchObject({
      structure: { id: 4, nom: 'Agence Lille' },
      fonction: { id: 2, libelle: 'Agent de quai' },
      utilisateur: { id: user.id },
    })
    expect(body.postesEnCours[0]?.dateDebut).toMatch(/^\d{2}\/\d{2}\/\d{4}$/)
  })

  it('gives the registration token expiry as epoch milliseconds', async () => {
    const admin = await rootAdmin()
    const target = await createUser()
    const expiry = '2031-05-06T07:08:09.000Z'
    await db()
      .updateTable('utilisateur')
      .set({ token_register_expires_at: expiry })
      .where('id', '=', target.id)
      .execute()
    expect(await view(admin.jwt.accessToken, target.id)).toMatchObject({ tokenRegister: Date.parse(expiry) })
  })
})
