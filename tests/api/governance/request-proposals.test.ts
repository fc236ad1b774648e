import { beforeAll, describe, expect, it } from 'vitest'
import { api, okBody } from '../client'
import { type Caller, callerOf, createOrganisation, currentPost, db, isoDate, post, wireDate } from '../helpers'

/**
 * A request's decision says what else the post it creates opens (README, "Access requests"): a post opens every
 * application of its function, so each proposed function names the others it opens, the narrowest come first, and the
 * history's entry of a grant names them. The organisation of helpers.ts, Agence Lille (4) with fonction 2 (Agent de
 * quai: Yard dangereux and Pesage); here a Chef d'agence opening Yard dangereux, Pesage, Module Rendez vous and
 * Facturation, and a Cariste opening Yard dangereux alone.
 */

let nord: Caller

beforeAll(async () => {
  await createOrganisation()
  await db()
    .insertInto('fonction')
    .values([
      { id: 5, libelle: 'Chef d’agence', structure_id: 4 },
      { id: 6, libelle: 'Cariste', structure_id: 4 },
    ])
    .execute()
  await db()
    .insertInto('fonction_application')
    .values([
      ...[1, 2, 3, 4].map((application) => ({ fonction_id: 5, application_id: application })),
      { fonction_id: 6, application_id: 1 },
    ])
    .execute()
  await db().updateTable('application').set({ demandable: 1 }).where('id', '=', 1).execute()
  nord = await callerOf({ admin: true, postes: [currentPost(2, 1)] })
})

/** A requester of Direction Nord, outside the agency, asking for Yard dangereux. */
async function waiting() {
  const requester = await callerOf({ postes: [currentPost(2, 1)] })
  const { id } = await okBody(
    api(requester.token).rest.bd.demande.$post({
      json: {
        application: { id: 1 },
        motif: 'Remplacer un cariste',
        dateDebut: wireDate(isoDate(0)),
        dateFin: wireDate(isoDate(20)),
      },
    }),
    201,
  )
  return id
}

const detailOf = (id: number) => okBody(api(nord.token).rest.bd.demande[':id'].$get({ param: { id }, query: {} }))

describe('the functions proposed to grant a request', () => {
  it('name what else each opens, the narrowest first', async () => {
    const id = await waiting()
    const detail = await detailOf(id)
    expect(detail.propositions.map((p) => [p.fonction.libelle, p.ouvreAussi])).toEqual([
      ['Cariste', []],
      ['Agent de quai', ['Pesage']],
      ['Chef d’agence', ['Facturation', 'Module Rendez vous', 'Pesage']],
    ])
  })

  it('leave out an application switched off, which a post does not open', async () => {
    await db().updateTable('application').set({ actif: 0 }).where('id', '=', 4).execute()
    try {
      const id = await waiting()
      const detail = await detailOf(id)
      expect(detail.propositions.find((p) => p.fonction.id === 5)?.ouvreAussi).toEqual(['Module Rendez vous', 'Pesage'])
    } finally {
      await db().updateTable('application').set({ actif: 1 }).where('id', '=', 4).execute()
    }
  })

  it('are named in the history when the grant opens more than was asked for', async () => {
    const id = await waiting()
    const granted = await post(
      `/rest/bd/demande/${id}/decision`,
      { accord: true, fonction: { id: 5 }, structure: { id: 4 } },
      { token: nord.token },
    )
    expect(granted.status).toBe(200)
    const [entry] = await db()
      .selectFrom('log')
      .select('commentaire')
      .where('nom_log', '=', 'DEMANDE_ACCORD')
      .where('commentaire', 'like', `#${id} %`)
      .execute()
    expect(entry?.commentaire).toMatch(
      /Yard dangereux — Chef d’agence, Agence Lille, .* \(ouvre aussi : Facturation, Module Rendez vous, Pesage\)$/,
    )
  })
})
