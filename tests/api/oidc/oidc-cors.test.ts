import { beforeAll, describe, expect, it } from 'vitest'
import { createOrganisation, createUser, currentPost, sessionFor } from '../helpers'
import { type Client, confidentialClient, oidcSession } from '../oidc-flow'
import { visit } from '../visit'

/**
 * SECURITY.md, "The OpenID Connect provider": "CORS is open only on discovery, the JWKS, the token
 * endpoint and UserInfo (no cookie is involved there)". Asked of the Worker as a script of another
 * site's page would ask it: a preflight, then the request with its `Origin`.
 */

const SITE = 'https://spa.example.test'

let client: Client

beforeAll(async () => {
  await createOrganisation()
  client = await confidentialClient('Tableau mobile')
})

async function fromSite(path: string, init: RequestInit = {}) {
  const headers = new Headers(init.headers)
  headers.set('Origin', SITE)
  return visit(path, { ...init, headers })
}

const preflight = (path: string, method: string) =>
  fromSite(path, {
    method: 'OPTIONS',
    headers: {
      'Access-Control-Request-Method': method,
      'Access-Control-Request-Headers': 'authorization,content-type',
    },
  })

const allowed = (response: Response) => response.headers.get('Access-Control-Allow-Origin')

describe('CORS', () => {
  it('the JWKS, the token endpoint and UserInfo answer any origin: their preflights and their answers, errors included', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const { access_token } = await oidcSession((await sessionFor(user.id)).accessToken, client)

    for (const [path, method] of [
      ['/portail-backend/oidc/jwks', 'GET'],
      ['/portail-backend/oidc/token', 'POST'],
      ['/portail-backend/oidc/userinfo', 'GET'],
    ] as const) {
      const answer = await preflight(path, method)
      expect(answer.status, path).toBe(204)
      expect(allowed(answer), path).toBe('*')
      expect(answer.headers.get('Access-Control-Allow-Methods'), path).toContain(method)
      expect(answer.headers.get('Access-Control-Allow-Headers')?.toLowerCase(), path).toContain('authorization')
    }

    const jwks = await fromSite('/portail-backend/oidc/jwks')
    expect([jwks.status, allowed(jwks)]).toEqual([200, '*'])
    const token = await fromSite('/portail-backend/oidc/token', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'inconnu', client_id: 'nobody' }),
    })
    expect([token.status, allowed(token)]).toEqual([401, '*'])
    const userinfo = await fromSite('/portail-backend/oidc/userinfo', {
      headers: { Authorization: `Bearer ${access_token}` },
    })
    expect([userinfo.status, allowed(userinfo)]).toEqual([200, '*'])
  })

  it('nothing under rest/ answers another origin: neither a preflight nor an answer, public or signed-in', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const { accessToken } = await sessionFor(user.id)

    for (const [path, method] of [
      ['/portail-backend/rest/public/bd/login', 'POST'],
      ['/portail-backend/rest/public/bd/login/refreshToken', 'POST'],
      ['/portail-backend/rest/bd/session', 'GET'],
      ['/portail-backend/rest/bd/oidc/authorize', 'POST'],
    ] as const) {
      expect(allowed(await preflight(path, method)), path).toBeNull()
    }
    const session = await fromSite('/portail-backend/rest/bd/session', {
      headers: { Authorization: `Bearer ${accessToken}` },
    })
    expect([session.status, allowed(session)]).toEqual([200, null])
    const login = await fromSite('/portail-backend/rest/public/bd/login', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ identifiant: user.login, motDePasse: user.password, captcha: 'x' }),
    })
    expect(login.status).toBe(400)
    expect(allowed(login)).toBeNull()
  })
})
