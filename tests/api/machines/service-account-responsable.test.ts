import { beforeAll, describe, expect, it } from 'vitest'
import type { ServiceAccountCreated } from '../../../worker-api/contract/machines/service-accounts'
import { api, okBody } from '../client'
import { call, createOrganisation, createUser, currentPost, db, expectError, sessionFor } from '../helpers'

/**
 * GET rest/bd/compteService?responsable={id}: the accounts of the caller's scope that act for one administrator, what
 * demoting, ending the last post of or deleting them stops (`suspendu=false`: those still working). The filter narrows
 * the caller's scope and never widens it: a delegated administrator who names someone sees only their accounts the
 * caller could list anyway.
 */

let root: { id: number; token: string }
let sud: { id: number; token: string }
let maker: Awaited<ReturnType<typeof createUser>>
let nord: ServiceAccountCreated
let south: ServiceAccountCreated
let other: ServiceAccountCreated
let neighbour: Awaited<ReturnType<typeof createUser>>

async function tokenOf(options: Parameters<typeof createUser>[0]) {
  const user = await createUser(options)
  return { id: user.id, token: (await sessionFor(user.id)).accessToken }
}

function makeAccount(token: string, nom: string, structure: number, password: string) {
  return okBody(
    api(token).rest.bd.compteService.$post({
      json: { nom, structure: { id: structure }, admin: true, scopes: ['api'], preuve: { motDePasse: password } },
    }),
    201,
  )
}

beforeAll(async () => {
  await createOrganisation()
  root = await tokenOf({ admin: true, password: null, postes: [currentPost(1, 1)] })
  sud = await tokenOf({ admin: true, password: null, postes: [currentPost(3, 3)] })
  // An administrator of both directions, with an account in each; another administrator's account beside them.
  maker = await createUser({ admin: true, postes: [currentPost(2, 2), currentPost(3, 3)] })
  const makerToken = (await sessionFor(maker.id)).accessToken
  nord = await makeAccount(makerToken, 'Synchro Nord', 2, maker.password)
  south = await makeAccount(makerToken, 'Synchro Sud', 3, maker.password)
  neighbour = await createUser({ admin: true, postes: [currentPost(2, 2)] })
  other = await makeAccount((await sessionFor(neighbour.id)).accessToken, 'Autre Nord', 2, neighbour.password)
})

type ListQuery = {
  responsable?: number
  suspendu?: 'true' | 'false'
  sansPoste?: number
  page?: number
  taille?: number
  q?: string
}

async function listed(token: string, query: ListQuery) {
  const response = await api(token).rest.bd.compteService.$get({ query })
  const accounts = await okBody(response)
  return { ids: accounts.map((a) => a.id), accounts, total: response.headers.get('X-Total-Count') }
}

describe('the accounts acting for one administrator', () => {
  it('are listed, paged, within the caller’s scope only', async () => {
    const all = await listed(root.token, { responsable: maker.id, page: 1, taille: 10 })
    expect(all.ids.sort()).toEqual([nord.id, south.id].sort())
    expect(all.total).toBe('2')
    expect(all.ids).not.toContain(other.id)
    expect(all.accounts.every((a) => a.responsable?.id === maker.id && !a.suspendu)).toBe(true)

    // Direction Sud's administrator names the maker: the Sud account only, never Direction Nord's.
    const seen = await listed(sud.token, { responsable: maker.id, page: 1 })
    expect(seen.ids).toEqual([south.id])
    expect(seen.total).toBe('1')
    expect((await listed(sud.token, { responsable: maker.id })).ids).toEqual([south.id])

    // Nobody's accounts: an empty list, the same as a user unknown.
    expect((await listed(root.token, { responsable: root.id, page: 1 })).total).toBe('0')
    expect((await listed(root.token, { responsable: 999999, page: 1 })).ids).toEqual([])
  })

  it('working or stopped: demoting the administrator moves them from one to the other', async () => {
    expect((await listed(root.token, { responsable: maker.id, suspendu: 'false' })).ids).toHaveLength(2)
    expect((await listed(root.token, { responsable: maker.id, suspendu: 'true' })).ids).toEqual([])
    const demoted = await call('/rest/bd/utilisateur/admin', {
      method: 'PUT',
      token: root.token,
      body: JSON.stringify({ id: maker.id, admin: false }),
    })
    expect(demoted.status).toBe(200)
    expect((await listed(root.token, { responsable: maker.id, suspendu: 'false' })).ids).toEqual([])
    const stopped = await listed(root.token, { responsable: maker.id, suspendu: 'true', page: 1 })
    expect(stopped.ids.sort()).toEqual([nord.id, south.id].sort())
    // The other administrator's account still works, and is not theirs.
    expect((await listed(root.token, { suspendu: 'false' })).ids).toEqual([other.id])
    await call('/rest/bd/utilisateur/admin', {
      method: 'PUT',
      token: root.token,
      body: JSON.stringify({ id: maker.id, admin: true }),
    })
  })

  it('ending one post: the working accounts of the structures it alone gives its holder', async () => {
    const posts = await db()
      .selectFrom('poste')
      .select(['id', 'structure_id'])
      .where('utilisateur_id', '=', maker.id)
      .execute()
    const at = (structure: number) => posts.find((p) => p.structure_id === structure)?.id ?? 0
    // Ending the Nord post stops the Nord account alone; the Sud one, the Sud account alone.
    expect((await listed(root.token, { responsable: maker.id, sansPoste: at(2) })).ids).toEqual([nord.id])
    expect((await listed(root.token, { responsable: maker.id, sansPoste: at(3), page: 1 })).ids).toEqual([south.id])
    // Without naming the administrator too: the same, and another administrator's account never.
    expect((await listed(root.token, { sansPoste: at(2) })).ids).toEqual([nord.id])
    // A post above both directions: ending either lower one stops nothing, ending it neither (the others remain).
    const above = await db()
      .insertInto('poste')
      .values({
        utilisateur_id: maker.id,
        structure_id: 1,
        fonction_id: 1,
        date_debut: '2000-01-01',
        date_fin: '2999-12-31',
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    try {
      expect((await listed(root.token, { responsable: maker.id, sansPoste: at(2) })).ids).toEqual([])
      expect((await listed(root.token, { responsable: maker.id, sansPoste: above.id })).ids).toEqual([])
    } finally {
      await db().deleteFrom('poste').where('id', '=', above.id).execute()
    }
    // Someone else's post, or none: nothing stops.
    const neighbourPost = await db()
      .selectFrom('poste')
      .select('id')
      .where('utilisateur_id', '=', neighbour.id)
      .executeTakeFirstOrThrow()
    expect((await listed(root.token, { responsable: maker.id, sansPoste: neighbourPost.id })).ids).toEqual([])
    expect((await listed(root.token, { responsable: maker.id, sansPoste: 999999 })).ids).toEqual([])
    // Direction Sud's administrator asks of the Nord post: nothing of Nord's shows.
    expect((await listed(sud.token, { responsable: maker.id, sansPoste: at(2) })).ids).toEqual([])
  })

  it('refuses what is not an id or a flag, and a caller who is not an administrator', async () => {
    for (const query of [
      'responsable=0',
      'responsable=-3',
      'responsable=abc',
      'responsable=1e400',
      'suspendu=oui',
      'sansPoste=0',
      'sansPoste=x',
    ]) {
      await expectError(await call(`/rest/bd/compteService?${query}`, { token: root.token }), 400, 'VALIDATION_FAILED')
    }
    const agent = await tokenOf({ postes: [currentPost(4, 2)] })
    expect((await call(`/rest/bd/compteService?responsable=${maker.id}`, { token: agent.token })).status).toBe(403)
  })
})

describe('whom an account may be handed to', () => {
  const heirs = async (token: string, id: number, query: { page?: number; taille?: number; q?: string } = {}) => {
    const response = await api(token).rest.bd.compteService[':id'].responsables.$get({ param: { id }, query })
    const body = await okBody(response)
    return { status: response.status, total: response.headers.get('X-Total-Count'), body, ids: body.map((h) => h.id) }
  }

  it('the active administrators of its structure the caller sees, neither the caller nor its current one', async () => {
    // Below the structure, not an administrator, deactivated, or of another direction: none of them.
    const below = await createUser({ admin: true, postes: [currentPost(4, 2)] })
    await createUser({ postes: [currentPost(2, 2)] })
    await createUser({ admin: true, actif: false, postes: [currentPost(2, 2)] })
    await createUser({ admin: true, postes: [currentPost(3, 3)] })
    const fromRoot = await heirs(root.token, nord.id, { page: 1, taille: 50 })
    expect(fromRoot.status).toBe(200)
    expect(fromRoot.body).toEqual([{ id: neighbour.id, nom: expect.any(String), prenom: expect.any(String) }])
    expect(fromRoot.total).toBe('1')
    expect((await heirs(root.token, nord.id)).body).toHaveLength(1)
    expect(JSON.stringify(fromRoot.body)).not.toContain(`"id":${below.id}`)

    // Direction Sud's administrator hands the Sud account to another of Sud's, never to one above them they do not see.
    const sud2 = await createUser({ admin: true, postes: [currentPost(3, 3)] })
    const fromSud = await heirs(sud.token, south.id, { page: 1 })
    expect(fromSud.body.map((h: { id: number }) => h.id).sort()).toEqual(expect.arrayContaining([sud2.id]))
    expect(fromSud.ids).not.toContain(root.id)
    expect(fromSud.ids).not.toContain(sud.id)
  })

  it('searched by name, and only for an account of the caller’s scope', async () => {
    expect((await heirs(root.token, nord.id, { q: neighbour.login })).body).toHaveLength(1)
    expect((await heirs(root.token, nord.id, { q: 'zzzz', page: 1 })).total).toBe('0')
    await expectError(
      await call(`/rest/bd/compteService/${nord.id}/responsables`, { token: sud.token }),
      404,
      'NOT_FOUND',
    )
    await expectError(await call('/rest/bd/compteService/999999/responsables', { token: root.token }), 404, 'NOT_FOUND')
    await expectError(
      await call(`/rest/bd/compteService/${nord.id}/responsables?taille=1000`, { token: root.token }),
      400,
      'VALIDATION_FAILED',
    )
  })
})

describe('searching whatever the case and accents', () => {
  it('an account by its name or its structure’s, an heir by their name', async () => {
    const { id } = await okBody(
      api(root.token).rest.bd.compteService.$post({
        json: { nom: 'Réseau Électrique', structure: { id: 2 }, admin: false, scopes: ['api'] },
      }),
      201,
    )
    for (const q of ['reseau', 'RÉSEAU', 'Électrique elec', 'réseau électrique']) {
      expect((await listed(root.token, { q })).ids, q).toEqual([id])
    }
    expect((await listed(root.token, { q: 'reseaux' })).ids).toEqual([])

    // A structure renamed: its accounts are found by its new name, folded too.
    await db().updateTable('structure').set({ nom: 'Direction Sud Île-de-Bréhat' }).where('id', '=', 3).execute()
    try {
      expect((await listed(root.token, { q: 'île bréhat' })).ids).toEqual([south.id])
      expect((await listed(root.token, { q: 'ILE brehat' })).ids).toEqual([south.id])
    } finally {
      await db().updateTable('structure').set({ nom: 'Direction Sud' }).where('id', '=', 3).execute()
    }

    // An heir whose name holds accents, found without them.
    const heir = await createUser({ admin: true, postes: [currentPost(2, 2)] })
    await db().updateTable('utilisateur').set({ nom: 'Lefèvre', prenom: 'Hélène' }).where('id', '=', heir.id).execute()
    const heirs = await okBody(
      api(root.token).rest.bd.compteService[':id'].responsables.$get({
        param: { id: nord.id },
        query: { q: 'helene LEFEVRE' },
      }),
    )
    expect(heirs.map((h) => h.id)).toEqual([heir.id])
  })
})
