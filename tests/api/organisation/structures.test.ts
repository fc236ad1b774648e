import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import type { z } from 'zod'
import type { Structure, structureInputSchema } from '../../../worker-api/contract/organisation/structure'
import { batch } from '../../../worker-api/db/client'
import { subtreePaths } from '../../../worker-api/services/organisation/structure-writes'
import { api, okBody } from '../client'
import {
  call,
  createOrganisation,
  createUser,
  currentPost,
  db,
  expectError,
  isoDate,
  post,
  posteBody,
  sessionFor,
  wireDate,
} from '../helpers'

/**
 * The organisation tree (spec §7 structure calls, DESIGN §4 scope). The organisation of the helpers:
 * Groupe (1) → Direction Nord (2) → Agence Lille (4), and Groupe → Direction Sud (3); types Racine →
 * Direction → Agence. Functions: Directeur (of 1), Agent de quai (of 4), Responsable (of 3).
 */
let rootAdmin: string
let nordAdmin: string
let sudAdmin: string
let agent: string
let agentId: number
let nordAdminId: number

const get = (path: string, token: string) => call(path, { token })
const put = (path: string, body: unknown, token: string) =>
  call(path, { method: 'PUT', body: JSON.stringify(body), token })
const del = (path: string, token: string) => call(path, { method: 'DELETE', token })

const names = (structures: Structure[]) => structures.map((s) => s.nom)

/** A structure created through the API, as `token`'s administrator. */
const create = (token: string, nom: string, typeId: number, parentId: number | null) =>
  okBody(
    api(token).rest.bd.structure.$post({
      json: { nom, type: { id: typeId }, parent: parentId ? { id: parentId } : null },
    }),
    201,
  )

/** The call listing `token`'s administrator's scope, with the query given. */
const scopeCall = (token: string, query: Record<string, string> = {}) =>
  api(token).rest.bd.structure.user.me.$get({ query })
/** `token`'s administrator's scope (a page of it with `page`). */
const scopeOf = (token: string, query: Record<string, string> = {}) => okBody(scopeCall(token, query))
/** One structure as `token`'s administrator reads it. */
const structureAs = (token: string, id: number) => okBody(api(token).rest.bd.structure[':id'].$get({ param: { id } }))
/** Where a structure may move, as `token`'s administrator sees it. */
const parentsOf = (token: string, id: number) =>
  okBody(api(token).rest.bd.structure[':id'].parents.$get({ param: { id } }))
/** The users of a structure, as `token`'s administrator sees them. */
const usersOf = (token: string, id: number, query: Record<string, string> = {}) =>
  okBody(api(token).rest.bd.utilisateur.structure[':idStructure'].$get({ param: { idStructure: id }, query }))
/** A structure's update, as `token`'s administrator sends it. */
const update = (token: string, json: z.input<typeof structureInputSchema>) =>
  api(token).rest.bd.structure.$put({ json })

beforeAll(async () => {
  await createOrganisation()
  const [root, nord, sud, dockAgent] = await Promise.all([
    createUser({ admin: true, postes: [currentPost(1, 1)] }),
    createUser({ admin: true, postes: [currentPost(2, 1)] }),
    createUser({ admin: true, postes: [currentPost(3, 3)] }),
    createUser({ postes: [currentPost(4, 2)] }),
  ])
  agentId = dockAgent.id
  nordAdminId = nord.id
  const tokens = await Promise.all([root, nord, sud, dockAgent].map(async (u) => (await sessionFor(u.id)).accessToken))
  ;[rootAdmin, nordAdmin, sudAdmin, agent] = tokens as [string, string, string, string]
})

describe('GET rest/bd/structure/user/me', () => {
  it("lists only the caller's scope, sorted by path, with each structure's type and parent", async () => {
    const all = await scopeOf(rootAdmin)
    expect(names(all).slice(0, 4)).toEqual(['Groupe', 'Direction Nord', 'Agence Lille', 'Direction Sud'])
    expect(all[0]).toMatchObject({ id: 1, parent: null, path: '/1/', type: { id: 1, libelle: 'Racine' } })
    expect(all[2]).toMatchObject({ parent: { id: 2, nom: 'Direction Nord' }, nbUtilisateurs: null })

    const nord = await scopeOf(nordAdmin)
    expect(names(nord)).toEqual(['Direction Nord', 'Agence Lille'])
    const sud = await scopeOf(sudAdmin)
    expect(names(sud)).toEqual(['Direction Sud'])
  })

  it('counts the users of each structure with users=true (current and future posts, deleted users left out)', async () => {
    const before = await scopeOf(sudAdmin, { users: 'true' })
    await createUser({ postes: [currentPost(3, 3)] })
    await createUser({ postes: [{ structureId: 3, fonctionId: 3, from: isoDate(10), to: isoDate(20) }] })
    await createUser({ supprime: true, postes: [currentPost(3, 3)] })
    await createUser({ postes: [{ structureId: 3, fonctionId: 3, from: isoDate(-20), to: isoDate(-10) }] })
    const after = await scopeOf(sudAdmin, { users: 'true' })
    expect((after[0]?.nbUtilisateurs ?? 0) - (before[0]?.nbUtilisateurs ?? 0)).toBe(2)
  })

  it('pages, searches and sorts in SQL, with the total in X-Total-Count', async () => {
    const response = await scopeCall(rootAdmin, { page: '1', taille: '2' })
    const page = await okBody(response)
    expect(names(page)).toEqual(['Groupe', 'Direction Nord'])
    const total = Number(response.headers.get('X-Total-Count'))
    expect(total).toBeGreaterThanOrEqual(4)

    const second = await scopeOf(rootAdmin, { page: '2', taille: '2' })
    expect(names(second)).toEqual(['Agence Lille', 'Direction Sud'])

    const searched = await scopeCall(rootAdmin, { q: 'direction', page: '1' })
    expect(names(await okBody(searched))).toEqual(['Direction Nord', 'Direction Sud'])
    expect(searched.headers.get('X-Total-Count')).toBe('2')

    // A search for the wildcard itself matches no name, not every name.
    const wildcard = await scopeCall(rootAdmin, { q: '%' })
    expect(await okBody(wildcard)).toEqual([])

    const byName = await scopeOf(rootAdmin, { tri: '-nom', q: 'direction' })
    expect(names(byName)).toEqual(['Direction Sud', 'Direction Nord'])
  })

  it('refuses non-administrators and bad parameters', async () => {
    await expectError(await get('/rest/bd/structure/user/me', agent), 403, 'FORBIDDEN')
    await expectError(await get('/rest/bd/structure/user/me?page=0', rootAdmin), 400, 'VALIDATION_FAILED')
    await expectError(await get('/rest/bd/structure/user/me?tri=secret', rootAdmin), 400, 'VALIDATION_FAILED')
  })
})

describe('single structure reads', () => {
  it('GET structure/{id}: in scope with its users count, 403 outside, 404 unknown', async () => {
    const lille = await structureAs(nordAdmin, 4)
    expect(lille).toMatchObject({ id: 4, nom: 'Agence Lille', parent: { id: 2 }, path: '/1/2/4/' })
    expect(lille.nbUtilisateurs).toBeGreaterThanOrEqual(1)
    await expectError(await get('/rest/bd/structure/4', sudAdmin), 403, 'FORBIDDEN')
    await expectError(await get('/rest/bd/structure/99999', rootAdmin), 404, 'NOT_FOUND')
  })

  it('GET structure/nom/{nom}: the name as held, whatever the case, or null when free', async () => {
    expect(await okBody(api(sudAdmin).rest.bd.structure.nom[':nom'].$get({ param: { nom: 'agence LILLE' } }))).toEqual({
      nom: 'Agence Lille',
    })
    expect(
      await okBody(api(sudAdmin).rest.bd.structure.nom[':nom'].$get({ param: { nom: 'Agence Nulle Part' } })),
    ).toEqual({ nom: null })
  })

  it('GET typestructure/me: every type but the root’s, from the top down', async () => {
    expect(await okBody(api(nordAdmin).rest.bd.typestructure.me.$get())).toEqual([
      { id: 2, libelle: 'Direction' },
      { id: 3, libelle: 'Agence' },
    ])
  })

  it('GET structure/parent/{typeId}: structures of the parent type inside the scope', async () => {
    const forAgence = await okBody(api(rootAdmin).rest.bd.structure.parent[':typeId'].$get({ param: { typeId: 3 } }))
    expect(names(forAgence)).toEqual(['Direction Nord', 'Direction Sud'])
    expect(
      names(await okBody(api(nordAdmin).rest.bd.structure.parent[':typeId'].$get({ param: { typeId: 3 } }))),
    ).toEqual(['Direction Nord'])
    // A direction hangs below the root, outside a direction admin's scope: no parent found.
    expect(await okBody(api(nordAdmin).rest.bd.structure.parent[':typeId'].$get({ param: { typeId: 2 } }))).toEqual([])
    await expectError(await get('/rest/bd/structure/parent/999', nordAdmin), 404, 'NOT_FOUND')
  })

  it('GET structure/{id}/parents: where a structure of the scope may move, its own sub-tree left out', async () => {
    expect(names(await parentsOf(rootAdmin, 4))).toEqual(['Direction Nord', 'Direction Sud'])
    expect(names(await parentsOf(nordAdmin, 4))).toEqual(['Direction Nord'])
    expect(names(await parentsOf(rootAdmin, 3))).toEqual(['Groupe'])
    await expectError(await get('/rest/bd/structure/4/parents', sudAdmin), 403, 'FORBIDDEN')
    await expectError(await get('/rest/bd/structure/999/parents', rootAdmin), 404, 'NOT_FOUND')
    // A type whose structures nest in one another (a service within a service): never below itself
    // nor below what it holds.
    await db().insertInto('type_structure').values({ id: 50, libelle: 'Service', parent_type_id: 50 }).execute()
    await db()
      .insertInto('structure')
      .values([
        { id: 50, nom: 'Service A', type_id: 50, parent_id: 3, path: '/1/3/50/' },
        { id: 51, nom: 'Service A1', type_id: 50, parent_id: 50, path: '/1/3/50/51/' },
        { id: 52, nom: 'Service B', type_id: 50, parent_id: 3, path: '/1/3/52/' },
      ])
      .execute()
    try {
      expect(names(await parentsOf(rootAdmin, 50))).toEqual(['Service B'])
      expect(names(await parentsOf(rootAdmin, 51))).toEqual(['Service A', 'Service B'])
    } finally {
      await db().deleteFrom('structure').where('id', 'in', [50, 51, 52]).execute()
      await db().deleteFrom('type_structure').where('id', '=', 50).execute()
    }
  })

  it('GET fonction/structure/{id}: the functions of a structure in scope, by name', async () => {
    expect(await okBody(api(nordAdmin).rest.bd.fonction.structure[':id'].$get({ param: { id: 4 } }))).toEqual([
      expect.objectContaining({ id: 2, libelle: 'Agent de quai' }),
    ])
    expect(await okBody(api(nordAdmin).rest.bd.fonction.structure[':id'].$get({ param: { id: 2 } }))).toEqual([])
    await expectError(await get('/rest/bd/fonction/structure/4', sudAdmin), 403, 'FORBIDDEN')
  })
})

describe('POST and PUT rest/bd/structure', () => {
  it('creates below a parent of the right type, with its path, and logs it', async () => {
    const created = await create(nordAdmin, 'Agence Douai', 3, 2)
    expect(created).toMatchObject({ nom: 'Agence Douai', parent: { id: 2 }, type: { id: 3, libelle: 'Agence' } })
    expect(created.path).toBe(`/1/2/${created.id}/`)
    const log = await db()
      .selectFrom('log')
      .selectAll()
      .where('nom_log', '=', 'STRUCTURE_CREATION')
      .where('commentaire', 'like', 'Agence Douai%')
      .executeTakeFirst()
    expect(log?.type_log).toBe('ADMINISTRATION')
    // The new structure is in its creator's scope at once.
    expect(names(await scopeOf(nordAdmin))).toContain('Agence Douai')
  })

  it('refuses a parent of the wrong type, no parent, an unknown type and a parent outside the scope', async () => {
    const body = (type: number, parent: number | null) => ({
      nom: 'Agence Refusée',
      type: { id: type },
      parent: parent ? { id: parent } : null,
    })
    await expectError(
      await post('/rest/bd/structure', body(3, 1), { token: rootAdmin }),
      400,
      'STRUCTURE_PARENT_INVALID',
    )
    await expectError(
      await post('/rest/bd/structure', body(3, null), { token: rootAdmin }),
      400,
      'STRUCTURE_PARENT_INVALID',
    )
    await expectError(
      await post('/rest/bd/structure', body(1, null), { token: rootAdmin }),
      400,
      'STRUCTURE_PARENT_INVALID',
    )
    await expectError(await post('/rest/bd/structure', body(42, 2), { token: rootAdmin }), 400, 'VALIDATION_FAILED')
    await expectError(await post('/rest/bd/structure', body(3, 3), { token: nordAdmin }), 403, 'FORBIDDEN')
    await expectError(await post('/rest/bd/structure', body(3, 2), { token: agent }), 403, 'FORBIDDEN')
    const none = await db().selectFrom('structure').select('id').where('nom', '=', 'Agence Refusée').execute()
    expect(none).toEqual([])
  })

  it('keeps names unique whatever their case, and 3 to 50 characters long', async () => {
    const taken = await expectError(
      await post(
        '/rest/bd/structure',
        { nom: 'agence lille', type: { id: 3 }, parent: { id: 2 } },
        { token: nordAdmin },
      ),
      409,
      'STRUCTURE_NOM_ALREADY_USED',
    )
    expect(taken.attributs).toEqual(['Agence Lille'])
    for (const nom of ['AB', '  ', 'x'.repeat(51)]) {
      await expectError(
        await post('/rest/bd/structure', { nom, type: { id: 3 }, parent: { id: 2 } }, { token: nordAdmin }),
        400,
        'VALIDATION_FAILED',
      )
    }
  })

  it('renames, and answers 409 for a name another structure holds', async () => {
    const agence = await create(rootAdmin, 'Agence Arras', 3, 2)
    const renamed = await okBody(
      update(nordAdmin, { id: agence.id, nom: 'Agence Arras Centre', type: { id: 3 }, parent: { id: 2 } }),
    )
    expect(renamed).toMatchObject({ nom: 'Agence Arras Centre', path: agence.path })
    // Its own name in another case is no conflict.
    await okBody(update(nordAdmin, { ...renamed, nom: 'AGENCE ARRAS CENTRE', type: { id: 3 }, parent: { id: 2 } }))
    await expectError(
      await put(
        '/rest/bd/structure',
        { id: agence.id, nom: 'Agence Lille', type: { id: 3 }, parent: { id: 2 } },
        nordAdmin,
      ),
      409,
      'STRUCTURE_NOM_ALREADY_USED',
    )
    await expectError(
      await put(
        '/rest/bd/structure',
        { id: agence.id, nom: 'Agence Sud', type: { id: 3 }, parent: { id: 2 } },
        sudAdmin,
      ),
      403,
      'FORBIDDEN',
    )
    await expectError(
      await put('/rest/bd/structure', { nom: 'Sans identifiant', type: { id: 3 }, parent: { id: 2 } }, rootAdmin),
      400,
      'VALIDATION_FAILED',
    )
  })

  it('moves a sub-tree: every path below follows, in one batch', async () => {
    const direction = await create(rootAdmin, 'Direction Est', 2, 1)
    const agence = await create(rootAdmin, 'Agence Metz', 3, direction.id)
    // A third level below the agence, as data (the helpers' types stop at Agence).
    await db()
      .insertInto('type_structure')
      .values({ id: 4, libelle: 'Quai', parent_type_id: 3 })
      .onConflict((oc) => oc.doNothing())
      .execute()
    const quai = await create(rootAdmin, 'Quai Metz 1', 4, agence.id)
    expect(quai.path).toBe(`/1/${direction.id}/${agence.id}/${quai.id}/`)

    const moved = await okBody(
      update(rootAdmin, { id: agence.id, nom: 'Agence Metz', type: { id: 3 }, parent: { id: 3 } }),
    )
    expect(moved.path).toBe(`/1/3/${agence.id}/`)
    const paths = await db()
      .selectFrom('structure')
      .select(['id', 'path'])
      .where('id', 'in', [agence.id, quai.id])
      .orderBy('id')
      .execute()
    expect(paths).toEqual([
      { id: agence.id, path: `/1/3/${agence.id}/` },
      { id: quai.id, path: `/1/3/${agence.id}/${quai.id}/` },
    ])
    // The scope follows the paths: the quai is now Sud's, and no longer in a Nord-only view.
    expect(names(await scopeOf(sudAdmin))).toContain('Quai Metz 1')
    const log = await db()
      .selectFrom('log')
      .select('commentaire')
      .where('nom_log', '=', 'STRUCTURE_MODIFICATION')
      .where('commentaire', 'like', `#${agence.id} %`)
      .executeTakeFirst()
    expect(log?.commentaire).toContain('Direction Est → Direction Sud')
  })

  it('refuses to hang a structure below itself or its own sub-tree, or to retype it under its children', async () => {
    const direction = await create(rootAdmin, 'Direction Ouest', 2, 1)
    const agence = await create(rootAdmin, 'Agence Brest', 3, direction.id)
    await expectError(
      await put(
        '/rest/bd/structure',
        { id: direction.id, nom: 'Direction Ouest', type: { id: 2 }, parent: { id: direction.id } },
        rootAdmin,
      ),
      400,
      'STRUCTURE_PARENT_INVALID',
    )
    // Retyping the direction into an agence would leave an agence below an agence.
    await expectError(
      await put(
        '/rest/bd/structure',
        { id: direction.id, nom: 'Direction Ouest', type: { id: 3 }, parent: { id: 2 } },
        rootAdmin,
      ),
      409,
      'STRUCTURE_HAS_CHILD',
    )
    const unchanged = await structureAs(rootAdmin, agence.id)
    expect(unchanged.path).toBe(`/1/${direction.id}/${agence.id}/`)
  })
})

/** Every structure's path is the one its parent links give, and no structure is its own ancestor. */
async function expectATree() {
  const rows = await db().selectFrom('structure').select(['id', 'parent_id', 'path']).execute()
  const byId = new Map(rows.map((row) => [row.id, row]))
  for (const row of rows) {
    const chain: number[] = []
    for (let at: typeof row | undefined = row; at; at = at.parent_id === null ? undefined : byId.get(at.parent_id)) {
      expect(chain, `structure ${row.id} is its own ancestor`).not.toContain(at.id)
      chain.unshift(at.id)
    }
    expect(row.path, `path of ${row.id}`).toBe(`/${chain.join('/')}/`)
  }
}

/** A type whose structures hang below one another (a pole in a pole), and a first pole below Sud. */
async function poles() {
  await db()
    .insertInto('type_structure')
    .values({ id: 5, libelle: 'Pôle', parent_type_id: 5 })
    .onConflict((oc) => oc.doNothing())
    .execute()
  const { id } = await db()
    .insertInto('structure')
    .values({ nom: `Pôle Sud ${crypto.randomUUID().slice(0, 8)}`, type_id: 5, parent_id: 3, path: '' })
    .returning('id')
    .executeTakeFirstOrThrow()
  await db()
    .updateTable('structure')
    .set({ path: `/1/3/${id}/` })
    .where('id', '=', id)
    .execute()
  return id
}

const modificationLogs = (id: number) =>
  db()
    .selectFrom('log')
    .select('commentaire')
    .where('nom_log', '=', 'STRUCTURE_MODIFICATION')
    .where('commentaire', 'like', `#${id} %`)
    .execute()

describe('the tree stays one tree', () => {
  it('gives no parent and the root’s type to the root alone: a sub-tree stays in its administrator’s reach', async () => {
    const agence = await create(rootAdmin, 'Agence Nîmes', 3, 3)
    const cut = (id: number, nom: string) => ({ id, nom, type: { id: 1 }, parent: null })
    await expectError(
      await put('/rest/bd/structure', cut(agence.id, agence.nom), sudAdmin),
      400,
      'STRUCTURE_PARENT_INVALID',
    )
    await expectError(
      await put('/rest/bd/structure', cut(agence.id, agence.nom), rootAdmin),
      400,
      'STRUCTURE_PARENT_INVALID',
    )
    await expectError(
      await put('/rest/bd/structure', cut(3, 'Direction Sud'), sudAdmin),
      400,
      'STRUCTURE_PARENT_INVALID',
    )
    // Nor below a parent outside the caller's scope.
    await expectError(
      await put('/rest/bd/structure', { id: agence.id, nom: agence.nom, type: { id: 3 }, parent: { id: 2 } }, sudAdmin),
      403,
      'FORBIDDEN',
    )
    expect(await structureAs(rootAdmin, 3)).toMatchObject({
      parent: { id: 1 },
      type: { id: 2 },
      path: '/1/3/',
    })
    expect(await structureAs(rootAdmin, agence.id)).toMatchObject({
      parent: { id: 3 },
      path: `/1/3/${agence.id}/`,
    })
    expect([...(await modificationLogs(3)), ...(await modificationLogs(agence.id))]).toEqual([])
    await expectATree()
  })

  it('lets only one of two crossed moves (A below B, B below A) through', async () => {
    const pole = await poles()
    const a = await create(rootAdmin, 'Pôle Croisé A', 5, pole)
    const b = await create(rootAdmin, 'Pôle Croisé B', 5, pole)
    const below = (moved: Structure, parent: Structure) => ({
      id: moved.id,
      nom: moved.nom,
      type: { id: 5 },
      parent: { id: parent.id },
    })
    const answers = await Promise.all([
      put('/rest/bd/structure', below(a, b), rootAdmin),
      put('/rest/bd/structure', below(b, a), sudAdmin),
    ])
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400])
    const refused = answers.find((answer) => answer.status === 400) ?? new Response('{}')
    await expectError(refused, 400, 'STRUCTURE_PARENT_INVALID')
    await expectATree()
    // The refused move left no audit entry.
    expect((await modificationLogs(a.id)).length + (await modificationLogs(b.id)).length).toBe(1)
  })

  it('refuses a move below its own sub-tree even when the paths say otherwise', async () => {
    const pole = await poles()
    const top = await create(rootAdmin, 'Pôle Haut', 5, pole)
    const low = await create(rootAdmin, 'Pôle Bas', 5, top.id)
    // A path out of step with the links: the low pole looks like a sibling of the top one.
    await db()
      .updateTable('structure')
      .set({ path: `/1/3/${pole}/${low.id}/` })
      .where('id', '=', low.id)
      .execute()
    try {
      await expectError(
        await put(
          '/rest/bd/structure',
          { id: top.id, nom: top.nom, type: { id: 5 }, parent: { id: low.id } },
          rootAdmin,
        ),
        400,
        'STRUCTURE_PARENT_INVALID',
      )
      const [row] = await db().selectFrom('structure').select('parent_id').where('id', '=', top.id).execute()
      expect(row?.parent_id).toBe(pole)
      expect(await modificationLogs(top.id)).toEqual([])
    } finally {
      await db().updateTable('structure').set({ path: low.path }).where('id', '=', low.id).execute()
    }
    await expectATree()
  })

  it('rewrites the paths of a sub-tree in bounded steps, even around a cycle forced into the links', async () => {
    const pole = await poles()
    const first = await create(rootAdmin, 'Pôle Boucle 1', 5, pole)
    const second = await create(rootAdmin, 'Pôle Boucle 2', 5, first.id)
    await db().updateTable('structure').set({ parent_id: second.id }).where('id', '=', first.id).execute()
    try {
      await batch(env.DB, [{ compile: () => subtreePaths(first.id).compile(db()) }])
      const paths = await db().selectFrom('structure').select('path').where('id', 'in', [first.id, second.id]).execute()
      for (const { path } of paths) expect(path.length).toBeLessThan(100)
    } finally {
      await db()
        .updateTable('structure')
        .set({ parent_id: pole, path: first.path })
        .where('id', '=', first.id)
        .execute()
      await db().updateTable('structure').set({ path: second.path }).where('id', '=', second.id).execute()
    }
    await expectATree()
  })
})

describe('DELETE rest/bd/structure/{id}', () => {
  it('refuses a structure with children, then with posts; deletes an empty one with its functions', async () => {
    const direction = await create(rootAdmin, 'Direction Centre', 2, 1)
    const agence = await create(rootAdmin, 'Agence Tours', 3, direction.id)
    await expectError(await del(`/rest/bd/structure/${direction.id}`, rootAdmin), 409, 'STRUCTURE_HAS_CHILD')

    const { id: fonction } = await db()
      .insertInto('fonction')
      .values({ libelle: 'Agent', structure_id: agence.id })
      .returning('id')
      .executeTakeFirstOrThrow()
    const holder = await createUser({
      postes: [{ structureId: agence.id, fonctionId: fonction, from: isoDate(-40), to: isoDate(-30) }],
    })
    // Even a past post keeps its structure: nothing is orphaned.
    await expectError(await del(`/rest/bd/structure/${agence.id}`, rootAdmin), 409, 'STRUCTURE_HAS_USERS')
    await expectError(await del(`/rest/bd/structure/${agence.id}`, sudAdmin), 403, 'FORBIDDEN')

    await db().deleteFrom('poste').where('utilisateur_id', '=', holder.id).execute()
    expect((await del(`/rest/bd/structure/${agence.id}`, rootAdmin)).status).toBe(204)
    expect((await del(`/rest/bd/structure/${direction.id}`, rootAdmin)).status).toBe(204)
    await expectError(await get(`/rest/bd/structure/${agence.id}`, rootAdmin), 404, 'NOT_FOUND')
    expect(await db().selectFrom('fonction').select('id').where('id', '=', fonction).execute()).toEqual([])
    const logs = await db()
      .selectFrom('log')
      .select('commentaire')
      .where('nom_log', '=', 'STRUCTURE_SUPPRESSION')
      .where('commentaire', 'in', [`Agence Tours (#${agence.id})`, `Direction Centre (#${direction.id})`])
      .execute()
    expect(logs).toHaveLength(2)
  })

  it('refuses a structure a registration waits on', async () => {
    const agence = await create(rootAdmin, 'Agence Inscrite', 3, 2)
    const pending = await createUser({ registration: 'PENDING' })
    await db()
      .updateTable('utilisateur')
      .set({ registration_structure_id: agence.id })
      .where('id', '=', pending.id)
      .execute()
    await expectError(await del(`/rest/bd/structure/${agence.id}`, rootAdmin), 409, 'STRUCTURE_HAS_USERS')
  })

  it('refuses a structure a registration waits in for the company it typed to be created there', async () => {
    const agence = await create(rootAdmin, 'Agence Attendue', 3, 2)
    const pending = await createUser({ registration: 'PENDING' })
    await db()
      .updateTable('utilisateur')
      .set({ registration_structure_nom: 'Transports Futurs', rattachement_id: agence.id })
      .where('id', '=', pending.id)
      .execute()
    await expectError(await del(`/rest/bd/structure/${agence.id}`, rootAdmin), 409, 'STRUCTURE_HAS_USERS')
  })
})

describe('GET rest/bd/utilisateur/structure/{idStructure}', () => {
  it('splits current and future users, filters and pages them, and offers candidates and functions', async () => {
    const agence = await create(rootAdmin, 'Agence Lens', 3, 2)
    const { id: fonction } = await db()
      .insertInto('fonction')
      .values({ libelle: 'Agent de Lens', structure_id: agence.id })
      .returning('id')
      .executeTakeFirstOrThrow()
    const current = await Promise.all([0, 1, 2].map(() => createUser({ postes: [currentPost(agence.id, fonction)] })))
    const future = await createUser({
      postes: [{ structureId: agence.id, fonctionId: fonction, from: isoDate(5), to: isoDate(50) }],
    })
    const body = await usersOf(nordAdmin, agence.id)
    expect(body.utilisateursEnCours.map((u) => u.id).sort()).toEqual(current.map((u) => u.id).sort())
    expect(body.utilisateursEnCours.every((u) => u.modification)).toBe(true)
    expect(body.utilisateursFuturs.map((u) => u.id)).toEqual([future.id])
    expect(body).toMatchObject({ totalEnCours: 3, totalFuturs: 1 })
    expect(body.rechercheUtilisateur.fonctions).toEqual([{ id: fonction, libelle: 'Agent de Lens' }])

    const paged = await usersOf(nordAdmin, agence.id, { page: '2', taille: '2' })
    expect(paged.utilisateursEnCours).toHaveLength(1)
    expect(paged.totalEnCours).toBe(3)

    const [first] = await db()
      .selectFrom('utilisateur')
      .select('nom')
      .where('id', '=', current[0]?.id ?? 0)
      .execute()
    const searched = await usersOf(nordAdmin, agence.id, { q: `${first?.nom.toLowerCase()}` })
    expect(searched.utilisateursEnCours.map((u) => u.id)).toEqual([current[0]?.id])
  })

  it('offers as candidates only users the caller may manage', async () => {
    const southerner = await createUser({ postes: [currentPost(3, 3)] })
    const [row] = await db().selectFrom('utilisateur').select('nom').where('id', '=', southerner.id).execute()
    const asNord = await usersOf(nordAdmin, 4, { recherche: `${row?.nom}` })
    expect(asNord.rechercheUtilisateur.utilisateurs).toEqual([])
    const asRoot = await usersOf(rootAdmin, 4, { recherche: `${row?.nom}` })
    expect(asRoot.rechercheUtilisateur.utilisateurs.map((u) => u.id)).toEqual([southerner.id])
  })

  it('refuses a structure outside the scope', async () => {
    await expectError(await get('/rest/bd/utilisateur/structure/4', sudAdmin), 403, 'FORBIDDEN')
    await expectError(await get('/rest/bd/utilisateur/structure/99999', sudAdmin), 404, 'NOT_FOUND')
  })
})

describe('posts', () => {
  it('POST poste gives a post, which shows in the user’s posts and in their access, and logs it', async () => {
    // A former employee of Lille (without a post, they are Nord's: DESIGN §4) comes back.
    const newcomer = await createUser({
      postes: [{ structureId: 4, fonctionId: 2, from: isoDate(-60), to: isoDate(-30) }],
    })
    const created = await okBody(api(nordAdmin).rest.bd.poste.$post({ json: posteBody(newcomer.id, 0, 30) }), 201)
    expect(created.dateDebut).toBe(wireDate(isoDate(0)))
    const user = await okBody(api(nordAdmin).rest.bd.utilisateur[':id'].$get({ param: { id: newcomer.id }, query: {} }))
    expect(user.postesEnCours.map((p) => p.id)).toEqual([created.id])
    const { accessToken } = await sessionFor(newcomer.id)
    const access = await okBody(
      api(accessToken).rest.bd.acces.utilisateur[':userId'].$get({ param: { userId: newcomer.id }, query: {} }),
    )
    expect(access.accesApplication.length).toBeGreaterThan(0)
    const log = await db()
      .selectFrom('log')
      .select('commentaire')
      .where('nom_log', '=', 'POSTE_CREATION')
      .where('commentaire', 'like', `#${newcomer.id} %`)
      .executeTakeFirst()
    expect(log?.commentaire).toContain('Agent de quai, Agence Lille')
  })

  it('answers POSTE_ALREADY_EXIST for an overlapping post of the same function, and allows one after it', async () => {
    // Never posted: a user of the whole tree's administrators (DESIGN §4).
    const user = await createUser()
    await expectError(await post('/rest/bd/poste', posteBody(user.id, 0, 10), { token: nordAdmin }), 403, 'FORBIDDEN')
    await okBody(api(rootAdmin).rest.bd.poste.$post({ json: posteBody(user.id, 0, 10) }), 201)
    await expectError(
      await post('/rest/bd/poste', posteBody(user.id, 10, 20), { token: nordAdmin }),
      409,
      'POSTE_ALREADY_EXIST',
    )
    await okBody(api(nordAdmin).rest.bd.poste.$post({ json: posteBody(user.id, 11, 20) }), 201)
    const count = await db().selectFrom('poste').select('id').where('utilisateur_id', '=', user.id).execute()
    expect(count).toHaveLength(2)
  })

  it('refuses bad dates, a function of another structure, a structure or a user outside the scope', async () => {
    const user = await createUser()
    await expectError(
      await post('/rest/bd/poste', posteBody(user.id, 5, 1), { token: nordAdmin }),
      400,
      'VALIDATION_FAILED',
    )
    await expectError(
      await post('/rest/bd/poste', { ...posteBody(user.id, 0, 1), dateDebut: '31/02/2026' }, { token: nordAdmin }),
      400,
      'VALIDATION_FAILED',
    )
    await expectError(
      await post('/rest/bd/poste', posteBody(user.id, -9, -2), { token: nordAdmin }),
      400,
      'VALIDATION_FAILED',
    )
    const wrongFunction = await expectError(
      await post('/rest/bd/poste', posteBody(user.id, 0, 1, 3), { token: nordAdmin }),
      400,
      'VALIDATION_FAILED',
    )
    expect(wrongFunction.attributs).toEqual([{ field: 'fonction.id', message: 'validation.fonctionStructure' }])
    await expectError(
      await post('/rest/bd/poste', posteBody(user.id, 0, 1, 3, 3), { token: nordAdmin }),
      403,
      'FORBIDDEN',
    )
    const southerner = await createUser({ postes: [currentPost(3, 3)] })
    await expectError(
      await post('/rest/bd/poste', posteBody(southerner.id, 0, 1), { token: nordAdmin }),
      403,
      'FORBIDDEN',
    )
    // Nor to oneself: an administrator does not manage their own posts.
    await expectError(
      await post('/rest/bd/poste', posteBody(nordAdminId, 0, 1), { token: nordAdmin }),
      403,
      'FORBIDDEN',
    )
    expect(await db().selectFrom('poste').select('id').where('utilisateur_id', '=', user.id).execute()).toEqual([])
  })

  it('DELETE poste/suppression/{id}: when the user may be managed; 403 otherwise; logged', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const [poste] = await db().selectFrom('poste').select('id').where('utilisateur_id', '=', user.id).execute()
    const id = poste?.id ?? 0
    await expectError(await del(`/rest/bd/poste/suppression/${id}`, sudAdmin), 403, 'FORBIDDEN')
    await expectError(await del(`/rest/bd/poste/suppression/${id}`, agent), 403, 'FORBIDDEN')
    expect((await del(`/rest/bd/poste/suppression/${id}`, nordAdmin)).status).toBe(204)
    await expectError(await del(`/rest/bd/poste/suppression/${id}`, nordAdmin), 404, 'NOT_FOUND')
    const log = await db()
      .selectFrom('log')
      .select('commentaire')
      .where('nom_log', '=', 'POSTE_SUPPRESSION')
      .where('commentaire', 'like', `#${user.id} %`)
      .executeTakeFirst()
    expect(log).toBeDefined()
  })

  it('a user with a post elsewhere too cannot lose a post to an admin who does not manage all of them', async () => {
    const user = await createUser({ postes: [currentPost(4, 2), currentPost(3, 3)] })
    const [lille] = await db()
      .selectFrom('poste')
      .select('id')
      .where('utilisateur_id', '=', user.id)
      .where('structure_id', '=', 4)
      .execute()
    await expectError(await del(`/rest/bd/poste/suppression/${lille?.id}`, nordAdmin), 403, 'FORBIDDEN')
    expect((await del(`/rest/bd/poste/suppression/${lille?.id}`, rootAdmin)).status).toBe(204)
    expect(agentId).toBeGreaterThan(0)
  })
})
