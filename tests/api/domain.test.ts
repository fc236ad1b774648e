import { beforeAll, describe, expect, it } from 'vitest'
import { api, okBody } from './client'
import { call, createOrganisation, currentPost, expectError, post, refreshWith, signedInUser } from './helpers'

beforeAll(createOrganisation)

/**
 * DESIGN §7: a user is bound to the domain they were created on, at sign-in and on every later call:
 * a token obtained on one host is worth nothing on another. The loopback names are one machine.
 */
const ELSEWHERE = 'https://autre.example.org'

describe('domain binding after sign-in', () => {
  it('refuses an authenticated call that reaches another host', async () => {
    const user = await signedInUser({ postes: [currentPost(4, 2)] })
    const token = user.jwt.accessToken
    await expectError(
      await call(`/rest/bd/utilisateur/${user.id}`, { token, origin: ELSEWHERE }),
      403,
      'USER_UNAUTHORIZED_DOMAIN',
    )
    await expectError(
      await call(`/rest/bd/acces/utilisateur/${user.id}`, { token, origin: ELSEWHERE }),
      403,
      'USER_UNAUTHORIZED_DOMAIN',
    )
    await expectError(
      await post('/rest/bd/logs/', { nomLog: 'CONNEXION' }, { token, origin: ELSEWHERE }),
      403,
      'USER_UNAUTHORIZED_DOMAIN',
    )
    expect((await call(`/rest/bd/utilisateur/${user.id}`, { token })).status).toBe(200)
  })

  it('refuses a refresh on another host, without using the refresh token up', async () => {
    const user = await signedInUser()
    await expectError(
      await post('/rest/public/bd/login/refreshToken', { refreshToken: user.jwt.refreshToken }, { origin: ELSEWHERE }),
      403,
      'USER_UNAUTHORIZED_DOMAIN',
    )
    expect((await refreshWith(user.jwt.refreshToken)).status).toBe(200)
  })

  it('refuses a launch on another host, so no application URL is built there', async () => {
    const user = await signedInUser({ postes: [currentPost(4, 2)] })
    const response = await call('/rest/bd/acces/application?idApplication=2', {
      token: user.jwt.accessToken,
      origin: ELSEWHERE,
    })
    await expectError(response, 403, 'USER_UNAUTHORIZED_DOMAIN')
  })

  it('refuses the exchange of a launch code on another host', async () => {
    const user = await signedInUser({ postes: [currentPost(4, 2)] })
    const { refreshToken: code } = await okBody(
      api(user.jwt.accessToken).rest.bd.acces.application.$get({ query: { idApplication: 2 } }),
    )
    await expectError(
      await post('/rest/public/bd/login/refreshToken', { refreshToken: code }, { origin: ELSEWHERE }),
      403,
      'USER_UNAUTHORIZED_DOMAIN',
    )
  })

  it('counts the loopback names as one machine, whatever the port', async () => {
    const user = await signedInUser({ postes: [currentPost(4, 2)] })
    for (const origin of ['http://127.0.0.1:8787', 'http://localhost:9000', 'http://[::1]:8787']) {
      const response = await call(`/rest/bd/utilisateur/${user.id}`, { token: user.jwt.accessToken, origin })
      expect({ origin, status: response.status }).toEqual({ origin, status: 200 })
    }
    expect((await refreshWith(user.jwt.refreshToken)).status).toBe(200)
  })
})
