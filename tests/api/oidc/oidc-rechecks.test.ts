import { beforeAll, describe, expect, it } from 'vitest'
import { call, createOrganisation, createUser, currentPost, db, sessionFor } from '../helpers'
import {
  type Client,
  codeFor,
  confidentialClient,
  exchange,
  logoutDue,
  oauthError,
  oidcSession,
  refreshGrant,
} from '../oidc-flow'

/**
 * SECURITY.md, "Access follows the posts": "every refresh checks again that the user is active, not
 * deleted, on their own domain and still granted — the first refresh after a post ends or a grant is
 * removed fails and ends the session"; the token endpoint makes the same checks when it exchanges a
 * code. Here the user's state changes under a session that is still open, so that only the check
 * stands between the client and new tokens.
 */

let root: string

beforeAll(async () => {
  await createOrganisation()
  const admin = await createUser({ admin: true, postes: [currentPost(1, 1)] })
  root = (await sessionFor(admin.id)).accessToken
})

/** A fresh client (the grant removals below must not reach the other tests) and an agent it is granted to. */
async function agentWithClient(libelle: string) {
  const client = await confidentialClient(libelle)
  const user = await createUser({ postes: [currentPost(4, 2)] })
  return { client, user, portal: await sessionFor(user.id) }
}

const markDeleted = (userId: number) =>
  db().updateTable('utilisateur').set({ supprime: 1 }).where('id', '=', userId).execute()
const moveDomain = (userId: number) =>
  db().updateTable('utilisateur').set({ domain: 'https://autre.example.test' }).where('id', '=', userId).execute()

/** A root administrator sets the functions granting the client's application, through the catalogue. */
async function grantTo(client: Client, fonctionId: number) {
  const response = await call('/rest/bd/application', {
    method: 'PUT',
    token: root,
    body: JSON.stringify({
      id: client.id,
      libelle: (
        await db().selectFrom('application').select('libelle').where('id', '=', client.id).executeTakeFirstOrThrow()
      ).libelle,
      icone: 'truck',
      url: 'https://rp.example.test',
      actif: true,
      fonctions: [{ id: fonctionId }],
    }),
  })
  expect(response.status).toBe(200)
}

/** The OpenID Connect sessions opened from a portal session. */
const openedFrom = (sid: string) =>
  db().selectFrom('refresh_token').select('family_id').where('parent_family_id', '=', sid).execute()

describe('the refresh_token grant is refused (invalid_grant)', () => {
  it('once the user is deleted', async () => {
    const { client, user, portal } = await agentWithClient('Wiki')
    const session = await oidcSession(portal.accessToken, client)
    await markDeleted(user.id)
    expect(await oauthError(await refreshGrant(client, session.refresh_token))).toEqual([400, 'invalid_grant'])
  })

  it("once the user's domain is another host", async () => {
    const { client, user, portal } = await agentWithClient('Tableaux')
    const session = await oidcSession(portal.accessToken, client)
    await moveDomain(user.id)
    expect(await oauthError(await refreshGrant(client, session.refresh_token))).toEqual([400, 'invalid_grant'])
  })

  it('once a root administrator removes the grant, and the session ends with it: granted again, it stays ended', async () => {
    const { client, portal } = await agentWithClient('Supervision')
    const session = await oidcSession(portal.accessToken, client)
    await grantTo(client, 3)
    expect(await oauthError(await refreshGrant(client, session.refresh_token))).toEqual([400, 'invalid_grant'])
    expect(await logoutDue(session.sid, client)).toBe(true)
    await grantTo(client, 2)
    expect(await oauthError(await refreshGrant(client, session.refresh_token))).toEqual([400, 'invalid_grant'])
  })
})

describe('the authorization_code grant is refused (invalid_grant), and opens no session', () => {
  it('once the user is deleted after the code was issued', async () => {
    const { client, user, portal } = await agentWithClient('Wiki 2')
    const code = await codeFor(portal.accessToken, client)
    await markDeleted(user.id)
    expect(await oauthError(await exchange(client, code))).toEqual([400, 'invalid_grant'])
    expect(await openedFrom(portal.sid)).toEqual([])
  })

  it("once the user's domain is another host", async () => {
    const { client, user, portal } = await agentWithClient('Tableaux 2')
    const code = await codeFor(portal.accessToken, client)
    await moveDomain(user.id)
    expect(await oauthError(await exchange(client, code))).toEqual([400, 'invalid_grant'])
    expect(await openedFrom(portal.sid)).toEqual([])
  })

  it('once a root administrator removes the grant', async () => {
    const { client, portal } = await agentWithClient('Supervision 2')
    const code = await codeFor(portal.accessToken, client)
    await grantTo(client, 3)
    expect(await oauthError(await exchange(client, code))).toEqual([400, 'invalid_grant'])
    expect(await openedFrom(portal.sid)).toEqual([])
  })
})
