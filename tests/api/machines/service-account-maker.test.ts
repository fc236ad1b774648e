import { beforeAll, describe, expect, it } from 'vitest'
import { SCIM_PATCH } from '../../../worker-api/contract/machines/scim'
import type { ServiceAccountCreated } from '../../../worker-api/contract/machines/service-accounts'
import { SCIM_CONTENT_TYPE } from '../../../worker-api/services/machines/scim/errors'
import { api, okBody } from '../client'
import {
  call,
  changedBeforeWrite,
  createOrganisation,
  createUser,
  currentPost,
  db,
  expectError,
  isoDate,
  post,
  sessionFor,
  wireDate,
} from '../helpers'
import { serviceAccessToken } from '../oauth-answers'
import { tokenCall } from '../oidc-rp'

/**
 * A service account acts for the administrator it belongs to: its scope is its structure's sub-tree while that
 * administrator administers the structure, and nothing once they do not (demoted, post ended or moved, deleted) — its
 * tokens refused, its every call and write asking again. Nor does it ever act on that administrator: what the portal
 * refuses them directly (a post of their own, their own record) it refuses their program too.
 */

let root: { id: number; token: string }

beforeAll(async () => {
  await createOrganisation()
  const rootUser = await createUser({ admin: true, password: null, postes: [currentPost(1, 1)] })
  root = { id: rootUser.id, token: (await sessionFor(rootUser.id)).accessToken }
})

/** An administrator of Direction Nord (2), and an administrator account of its sub-tree they make with every scope. */
async function makerWithAccount() {
  const maker = await createUser({ admin: true, postes: [currentPost(2, 2)] })
  const token = (await sessionFor(maker.id)).accessToken
  const account = await okBody(
    api(token).rest.bd.compteService.$post({
      json: {
        nom: `Passerelle ${maker.login}`,
        structure: { id: 2 },
        admin: true,
        scopes: ['api', 'scim', 'logs'],
        preuve: { motDePasse: maker.password },
      },
    }),
    201,
  )
  return { maker, makerToken: token, account, accountToken: await accountToken(account) }
}

const tokenRequest = (account: ServiceAccountCreated) =>
  tokenCall(
    { grant_type: 'client_credentials' },
    `Basic ${btoa(`${encodeURIComponent(account.clientId)}:${encodeURIComponent(account.clientSecret ?? '')}`)}`,
  )

const accountToken = async (account: ServiceAccountCreated) => serviceAccessToken(await tokenRequest(account))

/** The account's token refused everywhere: REST, SCIM and a new token. */
async function expectStopped(account: ServiceAccountCreated, token: string) {
  await expectError(await call('/rest/bd/utilisateur/liste', { token }), 403, 'SERVICE_ACCOUNT_SUSPENDED')
  const scim = await call('/scim/v2/Users', { token })
  expect(scim.status).toBe(403)
  expect(scim.headers.get('Content-Type')).toContain(SCIM_CONTENT_TYPE)
  const refused = await tokenRequest(account)
  expect(refused.status).toBe(400)
  expect(await refused.json()).toMatchObject({ error: 'unauthorized_client' })
}

async function expectWorking(account: ServiceAccountCreated, token: string) {
  expect((await call('/rest/bd/utilisateur/liste', { token })).status).toBe(200)
  expect((await call('/scim/v2/Users', { token })).status).toBe(200)
  expect((await tokenRequest(account)).status).toBe(200)
}

describe('a service account stops when its administrator no longer administers its structure', () => {
  it('demoted: its tokens, calls and SCIM are refused, and it works again once they are an administrator again', async () => {
    const { maker, account, accountToken: token } = await makerWithAccount()
    await expectWorking(account, token)

    const demoted = await call('/rest/bd/utilisateur/admin', {
      method: 'PUT',
      token: root.token,
      body: JSON.stringify({ id: maker.id, admin: false }),
    })
    expect(demoted.status).toBe(200)
    await expectStopped(account, token)
    const refusal = await db()
      .selectFrom('log')
      .select('commentaire')
      .where('compte_service_id', '=', account.id)
      .where('nom_log', '=', 'COMPTE_SERVICE')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow()
    expect(refusal.commentaire).toContain('n’administre plus sa structure')

    await call('/rest/bd/utilisateur/admin', {
      method: 'PUT',
      token: root.token,
      body: JSON.stringify({ id: maker.id, admin: true }),
    })
    await expectWorking(account, token)
  })

  it('their last post over it ended, or moved to another sub-tree: stopped', async () => {
    const ended = await makerWithAccount()
    await db()
      .updateTable('poste')
      .set({ date_debut: isoDate(-30), date_fin: isoDate(-1) })
      .where('utilisateur_id', '=', ended.maker.id)
      .execute()
    await expectStopped(ended.account, ended.accountToken)

    // Still an administrator, of Direction Sud now: Direction Nord's account acts for nobody.
    const moved = await makerWithAccount()
    await db().updateTable('poste').set({ structure_id: 3 }).where('utilisateur_id', '=', moved.maker.id).execute()
    await expectStopped(moved.account, moved.accountToken)
  })

  it('deleted or deactivated: stopped', async () => {
    const deleted = await makerWithAccount()
    const deletion = await call(`/rest/bd/utilisateur/suppression/${deleted.maker.id}`, {
      method: 'DELETE',
      token: root.token,
    })
    expect(deletion.status).toBe(204)
    await expectStopped(deleted.account, deleted.accountToken)

    const deactivated = await makerWithAccount()
    await db().updateTable('utilisateur').set({ actif: 0 }).where('id', '=', deactivated.maker.id).execute()
    await expectStopped(deactivated.account, deactivated.accountToken)
  })

  it('a write whose administrator is demoted between its check and its write writes nothing', async () => {
    const { maker, accountToken: token } = await makerWithAccount()
    const response = await call('/rest/bd/structure', {
      method: 'POST',
      token,
      body: JSON.stringify({ nom: 'Agence Douai', type: { id: 3 }, parent: { id: 2 } }),
      env: {
        DB: changedBeforeWrite(
          () => db().updateTable('utilisateur').set({ admin: 0 }).where('id', '=', maker.id).execute(),
          {
            atBatch: 1,
          },
        ),
      },
    })
    expect(response.status).toBeGreaterThanOrEqual(400)
    const created = await db().selectFrom('structure').select('id').where('nom', '=', 'Agence Douai').execute()
    expect(created).toEqual([])
  })

  it('a root structure’s account of a root administrator keeps working while they administer the root', async () => {
    const account = await okBody(
      api(root.token).rest.bd.compteService.$post({
        json: { nom: 'Racine', structure: { id: 1 }, admin: false, scopes: ['logs'] },
      }),
      201,
    )
    expect((await tokenRequest(account)).status).toBe(200)
  })
})

describe('a service account never acts on the administrator it acts for', () => {
  it('gives them no post, extends none of theirs, and shows their record as not its to change', async () => {
    const { maker, accountToken: token } = await makerWithAccount()
    const before = await db()
      .selectFrom('poste')
      .select(['id', 'date_fin'])
      .where('utilisateur_id', '=', maker.id)
      .execute()

    const own = await post(
      '/rest/bd/poste',
      {
        utilisateur: { id: maker.id },
        structure: { id: 4 },
        fonction: { id: 2 },
        dateDebut: wireDate(isoDate(0)),
        dateFin: wireDate(isoDate(60)),
      },
      { token },
    )
    expect(own.status).toBe(403)
    const extended = await call('/rest/bd/poste', {
      method: 'PUT',
      token,
      body: JSON.stringify({ id: before[0]?.id, dateDebut: wireDate(isoDate(-30)), dateFin: wireDate(isoDate(400)) }),
    })
    expect([403, 404]).toContain(extended.status)
    const after = await db()
      .selectFrom('poste')
      .select(['id', 'date_fin'])
      .where('utilisateur_id', '=', maker.id)
      .execute()
    expect(after).toEqual(before)

    const record = await okBody(api(token).rest.bd.utilisateur[':id'].$get({ param: { id: maker.id }, query: {} }))
    expect(record.modification).toBe(false)

    // Someone else of the sub-tree, it manages.
    const agent = await createUser({ postes: [currentPost(4, 2)] })
    const theirs = await okBody(api(token).rest.bd.utilisateur[':id'].$get({ param: { id: agent.id }, query: {} }))
    expect(theirs.modification).toBe(true)
  })

  it('over SCIM, changes nothing of theirs', async () => {
    const { maker, accountToken: token } = await makerWithAccount()
    const patch = await call(`/scim/v2/Users/${maker.id}`, {
      method: 'PATCH',
      token,
      headers: { 'Content-Type': SCIM_CONTENT_TYPE },
      body: JSON.stringify({
        schemas: [SCIM_PATCH],
        Operations: [{ op: 'replace', path: 'name.familyName', value: 'Changé' }],
      }),
    })
    expect(patch.status).toBeGreaterThanOrEqual(400)
    const row = await db().selectFrom('utilisateur').select('nom').where('id', '=', maker.id).executeTakeFirstOrThrow()
    expect(row.nom).not.toBe('Changé')
  })

  it('imports no row of theirs', async () => {
    const { maker, accountToken: token } = await makerWithAccount()
    const person = await db()
      .selectFrom('utilisateur')
      .select(['mail', 'nom', 'prenom', 'login'])
      .where('id', '=', maker.id)
      .executeTakeFirstOrThrow()
    const csv = [
      'mail;nom;prenom;login;admin;structure;fonction;dateDebut;dateFin;actif',
      `${person.mail};${person.nom};${person.prenom};${person.login};oui;Agence Lille;Agent de quai;${wireDate(isoDate(0))};${wireDate(isoDate(90))};oui`,
    ].join('\n')
    // The file is the request's body as it is (the client's `init`): the route reads it raw, as text/csv.
    const answer = await okBody(
      api(token).rest.bd.import.$post(
        { query: { type: 'utilisateurs', essai: 'true' } },
        { headers: { 'Content-Type': 'text/csv' }, init: { body: csv } },
      ),
    )
    expect(answer.erreurs.map((error) => error.ligne)).toEqual([2])
    expect(answer.modifiees).toBe(0)
  })
})

describe('an administrator of the structure takes an account over, or hands it on', () => {
  const handOver = (token: string, id: number, body: unknown) =>
    call(`/rest/bd/compteService/${id}/responsable`, { method: 'PUT', token, body: JSON.stringify(body) })

  it('a stopped account taken over acts again, with a new secret only: the former one, which its maker saw, stops', async () => {
    const { maker, account, accountToken: token } = await makerWithAccount()
    await db().updateTable('utilisateur').set({ admin: 0 }).where('id', '=', maker.id).execute()
    const listed = await call(`/rest/bd/compteService/${account.id}`, { token: root.token })
    expect(await listed.json()).toMatchObject({
      responsable: { id: maker.id },
      suspendu: true,
    })

    // An administrator account asks for the proof of the one who takes it over.
    await expectError(
      await handOver(root.token, account.id, { utilisateur: { id: root.id } }),
      400,
      'VALIDATION_FAILED',
    )
    const rootUser = await createUser({ admin: true, postes: [currentPost(1, 1)] })
    const rootToken = (await sessionFor(rootUser.id)).accessToken
    const taken = await api(rootToken).rest.bd.compteService[':id'].responsable.$put({
      param: { id: account.id },
      json: { utilisateur: { id: rootUser.id }, preuve: { motDePasse: rootUser.password } },
    })
    expect(taken.status).toBe(200)
    expect(taken.headers.get('Cache-Control')).toBe('no-store')
    const { clientSecret } = await okBody(taken)
    expect(clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/)

    // The token made before the hand-over acts again (it acts for the new administrator), the former secret buys none.
    expect((await call('/rest/bd/utilisateur/liste', { token })).status).toBe(200)
    expect((await tokenRequest(account)).status).toBe(401)
    expect((await tokenRequest({ ...account, clientSecret })).status).toBe(200)
    const now = await call(`/rest/bd/compteService/${account.id}`, { token: rootToken })
    expect(await now.json()).toMatchObject({ responsable: { id: rootUser.id }, suspendu: false })
    const entry = await db()
      .selectFrom('log')
      .select(['utilisateur_id', 'commentaire'])
      .where('nom_log', '=', 'COMPTE_SERVICE_RESPONSABLE')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow()
    expect(entry.utilisateur_id).toBe(rootUser.id)
    expect(entry.commentaire).toContain(account.clientId)
  })

  it('only to an administrator of the structure, only by one in whose scope it is', async () => {
    const { makerToken, maker, account } = await makerWithAccount()
    const proof = { motDePasse: maker.password }
    const agent = await createUser({ postes: [currentPost(4, 2)] })
    const sud = await createUser({ admin: true, postes: [currentPost(3, 3)] })
    for (const outsider of [agent, sud]) {
      const refused = await handOver(makerToken, account.id, { utilisateur: { id: outsider.id }, preuve: proof })
      const body = await expectError(refused, 400, 'VALIDATION_FAILED')
      expect(JSON.stringify(body.attributs)).toContain('utilisateur')
    }
    const sudToken = (await sessionFor(sud.id)).accessToken
    await expectError(
      await handOver(sudToken, account.id, { utilisateur: { id: sud.id }, preuve: { motDePasse: sud.password } }),
      404,
      'NOT_FOUND',
    )
    const unchanged = await db()
      .selectFrom('compte_service')
      .select('cree_par')
      .where('id', '=', account.id)
      .executeTakeFirstOrThrow()
    expect(unchanged.cree_par).toBe(maker.id)
  })

  it('is not made when the chosen administrator loses their post between the check and the write', async () => {
    const { makerToken, maker, account } = await makerWithAccount()
    const heir = await createUser({ admin: true, password: null, postes: [currentPost(2, 2)] })
    const response = await call(`/rest/bd/compteService/${account.id}/responsable`, {
      method: 'PUT',
      token: makerToken,
      body: JSON.stringify({ utilisateur: { id: heir.id }, preuve: { motDePasse: maker.password } }),
      env: {
        DB: changedBeforeWrite(() =>
          db()
            .updateTable('poste')
            .set({ date_fin: isoDate(-1), date_debut: isoDate(-10) })
            .where('utilisateur_id', '=', heir.id)
            .execute(),
        ),
      },
    })
    expect(response.status).toBe(404)
    const row = await db()
      .selectFrom('compte_service')
      .select('cree_par')
      .where('id', '=', account.id)
      .executeTakeFirstOrThrow()
    expect(row.cree_par).toBe(maker.id)
    expect((await tokenRequest(account)).status).toBe(200)
  })
})

describe('a read-only account (not an administrator one) reads its sub-tree and writes nothing', () => {
  it('lists and reads users, SCIM and the history of its sub-tree; every write is refused before anything runs', async () => {
    const maker = await createUser({ admin: true, postes: [currentPost(2, 2)] })
    const made = await okBody(
      api((await sessionFor(maker.id)).accessToken).rest.bd.compteService.$post({
        json: { nom: 'Lecteur Nord', structure: { id: 2 }, admin: false, scopes: ['api', 'scim', 'logs'] },
      }),
      201,
    )
    const token = await accountToken(made)
    const nord = await createUser({ postes: [currentPost(4, 2)] })
    const sud = await createUser({ postes: [currentPost(3, 3)] })

    const listed = await okBody(api(token).rest.bd.utilisateur.liste.$get({ query: {} }))
    expect(listed.map((user) => user.id)).toContain(nord.id)
    expect(listed.map((user) => user.id)).not.toContain(sud.id)
    // It changes nobody, and says so.
    expect(listed.every((user) => user.modification === false)).toBe(true)
    expect((await call(`/rest/bd/utilisateur/${sud.id}`, { token })).status).toBe(403)
    expect((await call('/scim/v2/Users', { token })).status).toBe(200)
    expect((await call('/rest/bd/logs/?dateDebut=20200101&dateFin=20991231', { token })).status).toBe(200)

    const before = await db()
      .selectFrom('log')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    await expectError(
      await post('/rest/bd/structure', { nom: 'Agence Béthune', type: { id: 3 }, parent: { id: 2 } }, { token }),
      403,
      'SERVICE_ACCOUNT_SCOPE',
    )
    await expectError(
      await call('/rest/bd/utilisateur/state', {
        method: 'PUT',
        token,
        body: JSON.stringify({ id: nord.id, actif: false }),
      }),
      403,
      'SERVICE_ACCOUNT_SCOPE',
    )
    const scimWrite = await call(`/scim/v2/Users/${nord.id}`, {
      method: 'PATCH',
      token,
      headers: { 'Content-Type': SCIM_CONTENT_TYPE },
      body: JSON.stringify({ schemas: [SCIM_PATCH], Operations: [{ op: 'replace', path: 'active', value: false }] }),
    })
    expect(scimWrite.status).toBe(403)
    const after = await db()
      .selectFrom('log')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    expect(after.n).toBe(before.n)
    const row = await db().selectFrom('utilisateur').select('actif').where('id', '=', nord.id).executeTakeFirstOrThrow()
    expect(row.actif).toBe(1)
  })
})
