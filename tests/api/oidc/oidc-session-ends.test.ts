import { beforeAll, describe, expect, it } from 'vitest'
import {
  call,
  createOrganisation,
  createUser,
  currentPost,
  expectError,
  refreshWith,
  sessionFor,
  withFrozenClock,
} from '../helpers'
import {
  type Client,
  confidentialClient,
  logoutDue,
  type OidcTokens,
  oauthError,
  oidcSession,
  refreshGrant,
  tokensOf,
  userinfoStatus,
} from '../oidc-flow'

/**
 * SECURITY.md, "The OpenID Connect provider": an OIDC session is a child of the portal session that
 * signed in, and "ends with it (sign-out, password change, deactivation, deletion, a reused refresh
 * token). Its client is told by back-channel logout". Each end is made through the API, as it happens.
 */

let client: Client
let root: string

beforeAll(async () => {
  await createOrganisation()
  client = await confidentialClient('Grafana')
  const admin = await createUser({ admin: true, postes: [currentPost(1, 1)] })
  root = (await sessionFor(admin.id)).accessToken
})

const agent = () => createUser({ postes: [currentPost(4, 2)] })

/** Ended: its client has a back-channel logout due, its refresh token and its access token are refused. */
async function expectEnded(session: OidcTokens) {
  expect(await logoutDue(session.sid, client)).toBe(true)
  expect(await userinfoStatus(session.access_token)).toBe(401)
  expect(await oauthError(await refreshGrant(client, session.refresh_token))).toEqual([400, 'invalid_grant'])
}

describe('an OpenID Connect session ends with', () => {
  it('a password change, for the sessions opened from the other portal sessions; the one opened from the session that changed it lives on', async () => {
    const user = await agent()
    const elsewhere = await sessionFor(user.id)
    const here = await sessionFor(user.id)
    const ended = await oidcSession(elsewhere.accessToken, client)
    const kept = await oidcSession(here.accessToken, client)

    const changed = await call('/rest/bd/utilisateur/updatePassword', {
      method: 'PUT',
      token: here.accessToken,
      body: JSON.stringify({ oldPassword: user.password, newPassword: 'Nouveau12' }),
    })
    expect(changed.status).toBe(200)

    await expectEnded(ended)
    expect(await logoutDue(kept.sid, client)).toBe(false)
    expect(await userinfoStatus(kept.access_token)).toBe(200)
    expect((await refreshGrant(client, kept.refresh_token)).status).toBe(200)
  })

  it("an administrator's deactivation of the user", async () => {
    const user = await agent()
    const session = await oidcSession((await sessionFor(user.id)).accessToken, client)
    const deactivated = await call('/rest/bd/utilisateur/state', {
      method: 'PUT',
      token: root,
      body: JSON.stringify({ id: user.id, actif: false }),
    })
    expect(deactivated.status).toBe(200)
    await expectEnded(session)
  })

  it("an administrator's deletion of the user", async () => {
    const user = await agent()
    const session = await oidcSession((await sessionFor(user.id)).accessToken, client)
    const deleted = await call(`/rest/bd/utilisateur/suppression/${user.id}`, { method: 'DELETE', token: root })
    expect(deleted.status).toBe(204)
    await expectEnded(session)
  })

  it('its own rotated refresh token presented again 11 s after the rotation; 10 s after, it gets the pair already issued', async () => {
    const user = await agent()
    await withFrozenClock(async (clock) => {
      const session = await oidcSession((await sessionFor(user.id)).accessToken, client)
      const rotated = await tokensOf(await refreshGrant(client, session.refresh_token))

      clock.advance(10)
      const retried = await tokensOf(await refreshGrant(client, session.refresh_token))
      expect([retried.access_token, retried.refresh_token]).toEqual([rotated.access_token, rotated.refresh_token])
      expect(await logoutDue(session.sid, client)).toBe(false)

      clock.advance(1)
      expect(await oauthError(await refreshGrant(client, session.refresh_token))).toEqual([400, 'invalid_grant'])
      await expectEnded(rotated)
    })
  })

  it("the portal session's rotated refresh token presented again 11 s after the rotation", async () => {
    const user = await agent()
    await withFrozenClock(async (clock) => {
      const portal = await sessionFor(user.id)
      const session = await oidcSession(portal.accessToken, client)
      expect((await refreshWith(portal.refreshToken)).status).toBe(200)

      clock.advance(11)
      await expectError(await refreshWith(portal.refreshToken), 401, 'REFRESH_TOKEN_REUSED')
      await expectEnded(session)
    })
  })
})
