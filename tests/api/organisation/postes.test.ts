import { beforeAll, describe, expect, it } from 'vitest'
import {
  call,
  createOrganisation,
  createUser,
  currentPost,
  db,
  expectError,
  isoDate,
  signedInUser,
  wireDate,
} from '../helpers'

/**
 * PUT rest/bd/poste: a post's new period (what "extend" does on the administration home), under the
 * rules of its creation: scope, `modification`, an end not past, no overlap (POSTE_ALREADY_EXIST).
 * The organisation of helpers.ts: Direction Nord (2) › Agence Lille (4), Direction Sud (3); fonction 2
 * (Agent de quai, Agence Lille) grants Yard dangereux (1) and Pesage (2).
 */

let nord: string
let sud: string
let agent: { id: number; token: string }

const period = (id: number, from: number, to: number, token = nord) =>
  call('/rest/bd/poste', {
    method: 'PUT',
    token,
    body: JSON.stringify({ id, dateDebut: wireDate(isoDate(from)), dateFin: wireDate(isoDate(to)) }),
  })

async function posteOf(userId: number) {
  return db()
    .selectFrom('poste')
    .select(['id', 'date_debut', 'date_fin'])
    .where('utilisateur_id', '=', userId)
    .orderBy('date_debut')
    .execute()
}

beforeAll(async () => {
  await createOrganisation()
  nord = (await signedInUser({ admin: true, postes: [currentPost(2, 1)] })).jwt.accessToken
  sud = (await signedInUser({ admin: true, postes: [currentPost(3, 3)] })).jwt.accessToken
  const signedIn = await signedInUser({
    postes: [{ structureId: 4, fonctionId: 2, from: isoDate(-30), to: isoDate(3) }],
  })
  agent = { id: signedIn.id, token: signedIn.jwt.accessToken }
})

describe('PUT /rest/bd/poste', () => {
  it('extends a post ending soon: its entry says from what to what, the launcher keeps it past the old end', async () => {
    const [poste] = await posteOf(agent.id)
    if (!poste) throw new Error('no post')
    const response = await period(poste.id, -30, 365)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({
      id: poste.id,
      structure: { id: 4, nom: 'Agence Lille' },
      fonction: { id: 2, libelle: 'Agent de quai' },
      utilisateur: { id: agent.id },
      dateDebut: wireDate(isoDate(-30)),
      dateFin: wireDate(isoDate(365)),
    })
    expect((await posteOf(agent.id))[0]?.date_fin).toBe(isoDate(365))
    const entry = await db()
      .selectFrom('log')
      .select('commentaire')
      .where('nom_log', '=', 'POSTE_MODIFICATION')
      .executeTakeFirstOrThrow()
    expect(entry.commentaire).toContain(
      `${wireDate(isoDate(3))} devient ${wireDate(isoDate(-30))} → ${wireDate(isoDate(365))}`,
    )
  })

  it('refuses an administrator of another scope, a non-administrator, and the user themself', async () => {
    const [poste] = await posteOf(agent.id)
    if (!poste) throw new Error('no post')
    await expectError(await period(poste.id, -30, 400, sud), 403, 'FORBIDDEN')
    await expectError(await period(poste.id, -30, 400, agent.token), 403, 'FORBIDDEN')
    await expectError(await period(999_999, -30, 400), 404, 'NOT_FOUND')
    expect((await posteOf(agent.id))[0]?.date_fin).toBe(isoDate(365))
  })

  it('refuses a period over another post of the same function there (409), an end past, an end before the start', async () => {
    const user = await createUser({
      postes: [
        { structureId: 4, fonctionId: 2, from: isoDate(-10), to: isoDate(10) },
        { structureId: 4, fonctionId: 2, from: isoDate(20), to: isoDate(40) },
      ],
    })
    const [first, second] = await posteOf(user.id)
    if (!first || !second) throw new Error('no posts')
    await expectError(await period(first.id, -10, 25), 409, 'POSTE_ALREADY_EXIST')
    // Up to the day before the next one: no overlap.
    expect((await period(first.id, -10, 19)).status).toBe(200)
    const past = await expectError(await period(first.id, -10, -1), 400, 'VALIDATION_FAILED')
    expect(past.attributs).toEqual([{ field: 'dateFin', message: 'validation.datePast' }])
    await expectError(await period(first.id, 5, 4), 400, 'VALIDATION_FAILED')
    expect((await posteOf(user.id)).map((p) => p.date_fin)).toEqual([isoDate(19), isoDate(40)])
  })

  it('refuses a post of a user also posted outside the caller’s scope (modification), as at its creation', async () => {
    const user = await createUser({ postes: [currentPost(4, 2), currentPost(3, 3)] })
    const lille = await db()
      .selectFrom('poste')
      .select('id')
      .where('utilisateur_id', '=', user.id)
      .where('structure_id', '=', 4)
      .executeTakeFirstOrThrow()
    await expectError(await period(lille.id, -30, 90), 403, 'FORBIDDEN')
  })
})
