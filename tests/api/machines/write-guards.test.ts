import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import { SCIM_PATCH, SCIM_PORTAL_USER, SCIM_USER } from '../../../worker-api/contract/machines/scim'
import { SCIM_CONTENT_TYPE } from '../../../worker-api/services/machines/scim/errors'
import {
  call,
  changedBeforeWrite,
  createOrganisation,
  createUser,
  currentPost,
  db,
  insertServiceAccount,
  isoDate,
  serviceAccountToken,
  sessionFor,
} from '../helpers'

/**
 * The guards a write repeats inside its batch (`abortUnless`, `liveAdmin`): each holds when the state
 * changed between the write's read and its write. The change runs at that very moment, just before the
 * request's second batch (`changedBeforeWrite`): the read saw the old state, the write meets the new one.
 * Each test fails when its guard is taken out of the batch.
 */

type Account = { id: number; token: string }

async function account(structure: number, scopes = 'scim'): Promise<Account> {
  const created = await insertServiceAccount({ structure, scopes })
  return { id: created.id, token: await serviceAccountToken(created) }
}

let nord: Account

beforeAll(async () => {
  await createOrganisation()
  nord = await account(2)
})

/** A SCIM write whose batch meets `change` (run once, between its read and its write). */
async function racedScim(
  method: 'POST' | 'PATCH' | 'DELETE',
  path: string,
  token: string,
  change: () => Promise<unknown>,
  { body, ifMatch }: { body?: unknown; ifMatch?: string } = {},
) {
  let changed = 0
  const headers: Record<string, string> = body === undefined ? {} : { 'Content-Type': SCIM_CONTENT_TYPE }
  if (ifMatch) headers['If-Match'] = ifMatch
  const response = await call(`/scim/v2${path}`, {
    method,
    token,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    env: {
      DB: changedBeforeWrite(async () => {
        changed++
        await change()
      }),
    },
  })
  // The read saw the state before the change; the write came after it.
  expect(changed).toBe(1)
  return response
}

let mails = 0
const address = () => `guard${++mails}.${crypto.randomUUID().slice(0, 8)}@example.test`

const poste = (structure: number, fonction: number) => ({
  structure: { value: String(structure) },
  fonction: { value: String(fonction) },
  dateDebut: isoDate(-1),
  dateFin: isoDate(60),
})

function newUser(mail: string, postes: ReturnType<typeof poste>[]) {
  return {
    schemas: [SCIM_USER, SCIM_PORTAL_USER],
    userName: mail,
    name: { givenName: 'Jeanne', familyName: 'Martin' },
    emails: [{ value: mail, type: 'work', primary: true }],
    active: true,
    [SCIM_PORTAL_USER]: { postes },
  }
}

const patchOf = (...Operations: { op: string; path?: string; value?: unknown }[]) => ({
  schemas: [SCIM_PATCH],
  Operations,
})

/** A new agency under Direction Nord with a function of its own, as a structure a write may name. */
async function nordAgency() {
  const { id } = await db()
    .insertInto('structure')
    .values({ nom: `Agence ${crypto.randomUUID().slice(0, 6)}`, type_id: 3, parent_id: 2, path: '/pending/' })
    .returning('id')
    .executeTakeFirstOrThrow()
  await db()
    .updateTable('structure')
    .set({ path: `/1/2/${id}/` })
    .where('id', '=', id)
    .execute()
  const fonction = await db()
    .insertInto('fonction')
    .values({ libelle: `Agent ${id}`, structure_id: id })
    .returning('id')
    .executeTakeFirstOrThrow()
  return { structure: id, fonction: fonction.id }
}

/** The agency moved under Direction Sud: out of Direction Nord's scope. */
const movedSouth = (structure: number) =>
  env.DB.prepare('update structure set parent_id = 3, path = ? where id = ?')
    .bind(`/1/3/${structure}/`, structure)
    .run()

const userByMail = (mail: string) =>
  db().selectFrom('utilisateur').select(['id']).where('mail', '=', mail).executeTakeFirst()

const postesOf = (id: number) =>
  db()
    .selectFrom('poste')
    .select(['structure_id', 'fonction_id'])
    .where('utilisateur_id', '=', id)
    .orderBy('id')
    .execute()

const userRow = (id: number) =>
  db()
    .selectFrom('utilisateur')
    .select(['nom', 'prenom', 'supprime', 'version'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow()

describe('SCIM POST /Users, its batch guarded by placementsHold', () => {
  it('the structure named moved out of scope after the read: 409, no user', async () => {
    const agency = await nordAgency()
    const mail = address()
    const response = await racedScim('POST', '/Users', nord.token, () => movedSouth(agency.structure), {
      body: newUser(mail, [poste(agency.structure, agency.fonction)]),
    })
    expect(response.status).toBe(409)
    expect(await userByMail(mail)).toBeUndefined()
  })

  it('a root account deactivated after the read of a post-less user: 409, no user', async () => {
    const root = await account(1)
    const mail = address()
    const response = await racedScim(
      'POST',
      '/Users',
      root.token,
      () => env.DB.prepare('update compte_service set actif = 0 where id = ?').bind(root.id).run(),
      { body: newUser(mail, []) },
    )
    expect(response.status).toBe(409)
    expect(await userByMail(mail)).toBeUndefined()
  })
})

describe('SCIM PATCH /Users/{id}, its batch guarded by the version read and placementsHold', () => {
  /** Another writer renames the user (their version moves on). */
  const renamed = (id: number) =>
    env.DB.prepare("update utilisateur set nom = 'Concurrent' where id = ?").bind(id).run()
  const givenName = patchOf({ op: 'replace', path: 'name.givenName', value: 'Paule' })

  it('with If-Match, the user changed after the read: 412, the other write kept, nothing of this one', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const { version, prenom } = await userRow(user.id)
    const response = await racedScim('PATCH', `/Users/${user.id}`, nord.token, () => renamed(user.id), {
      body: givenName,
      ifMatch: `W/"${version}"`,
    })
    expect(response.status).toBe(412)
    expect(await userRow(user.id)).toMatchObject({ nom: 'Concurrent', prenom })
  })

  it('without If-Match, the user changed after the read: done again on what the other left, no lost update', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const response = await racedScim('PATCH', `/Users/${user.id}`, nord.token, () => renamed(user.id), {
      body: givenName,
    })
    expect(response.status).toBe(200)
    expect(await userRow(user.id)).toMatchObject({ nom: 'Concurrent', prenom: 'Paule' })
  })

  it('a post added in a structure moved out of scope after the read: refused, no post written', async () => {
    const agency = await nordAgency()
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const before = await postesOf(user.id)
    const response = await racedScim('PATCH', `/Users/${user.id}`, nord.token, () => movedSouth(agency.structure), {
      body: patchOf({
        op: 'add',
        path: `${SCIM_PORTAL_USER}:postes`,
        value: [poste(agency.structure, agency.fonction)],
      }),
    })
    // The write stopped, was read again, and the structure is now out of scope.
    expect(response.status).toBe(400)
    expect(await postesOf(user.id)).toEqual(before)
  })
})

describe('SCIM DELETE /Users/{id} with If-Match, its batch guarded by the version read', () => {
  it('the user changed after the read: 412, not deleted', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const { version } = await userRow(user.id)
    const response = await racedScim(
      'DELETE',
      `/Users/${user.id}`,
      nord.token,
      () => env.DB.prepare("update utilisateur set nom = 'Concurrent' where id = ?").bind(user.id).run(),
      { ifMatch: `W/"${version}"` },
    )
    expect(response.status).toBe(412)
    expect(await userRow(user.id)).toMatchObject({ nom: 'Concurrent', supprime: 0 })
  })
})

describe('service-account writes, each guarded by liveAdmin: the caller gone after the read', () => {
  /** The ways an administrator's call stops being a live administrator's, that the scope does not see. */
  const ENDINGS: Record<string, (admin: { id: number; sid: string }) => Promise<unknown>> = {
    'their session revoked': ({ sid }) =>
      env.DB.prepare('update refresh_token set revoked_at = ? where family_id = ?')
        .bind(new Date().toISOString(), sid)
        .run(),
    deactivated: ({ id }) => env.DB.prepare('update utilisateur set actif = 0 where id = ?').bind(id).run(),
  }

  async function nordAdmin() {
    const admin = await createUser({ admin: true, postes: [currentPost(2, 2)] })
    const { accessToken, sid } = await sessionFor(admin.id)
    return { id: admin.id, sid, token: accessToken }
  }

  const entriesOf = (adminId: number) =>
    db().selectFrom('log').select('nom_log').where('utilisateur_id', '=', adminId).execute()

  const storedAccount = (id: number) =>
    db()
      .selectFrom('compte_service')
      .select(['supprime', 'actif', 'secret_hash', 'ancien_secret_hash'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow()

  async function raced(
    admin: { id: number; sid: string; token: string },
    end: (admin: { id: number; sid: string }) => Promise<unknown>,
    method: 'POST' | 'DELETE',
    path: string,
    body?: unknown,
  ) {
    let changed = 0
    const response = await call(path, {
      method,
      token: admin.token,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      env: {
        DB: changedBeforeWrite(async () => {
          changed++
          await end(admin)
        }),
      },
    })
    expect(changed).toBe(1)
    return response
  }

  for (const [ending, end] of Object.entries(ENDINGS)) {
    it(`creation, ${ending}: refused, no account, no entry`, async () => {
      const admin = await nordAdmin()
      const nom = `Compte ${admin.id}`
      const response = await raced(admin, end, 'POST', '/rest/bd/compteService', {
        nom,
        structure: { id: 2 },
        admin: false,
        scopes: ['api'],
      })
      expect(response.status).toBe(403)
      expect(await db().selectFrom('compte_service').select('id').where('nom', '=', nom).execute()).toEqual([])
      expect(await entriesOf(admin.id)).toEqual([])
    })

    it(`deletion, ${ending}: not deleted, no entry`, async () => {
      const admin = await nordAdmin()
      const target = await insertServiceAccount({ structure: 2, scopes: 'api', admin: 0 })
      const before = await storedAccount(target.id)
      const response = await raced(admin, end, 'DELETE', `/rest/bd/compteService/${target.id}`)
      expect(response.status).toBe(404)
      expect(await storedAccount(target.id)).toEqual(before)
      expect(await entriesOf(admin.id)).toEqual([])
    })

    it(`secret rotation, ${ending}: the secret kept, no entry`, async () => {
      const admin = await nordAdmin()
      const target = await insertServiceAccount({ structure: 2, scopes: 'api', admin: 0 })
      const before = await storedAccount(target.id)
      const response = await raced(admin, end, 'POST', `/rest/bd/compteService/${target.id}/secret`, {})
      expect(response.status).toBe(404)
      expect(await storedAccount(target.id)).toEqual(before)
      expect(await entriesOf(admin.id)).toEqual([])
    })
  }
})
