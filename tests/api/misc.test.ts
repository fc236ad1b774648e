import { beforeAll, describe, expect, it } from 'vitest'
import { anyErrorBody } from './error-answers'
import { call, createOrganisation, createUser, currentPost, login, post, signedInUser } from './helpers'
import { openApiDocument } from './openapi-document'

beforeAll(createOrganisation)

describe('GET /rest/public/health', () => {
  it('answers 200 {status: ok, mail: ok, database: ok} with the database reachable', async () => {
    const response = await call('/rest/public/health')
    expect(response.status).toBe(200)
    expect(response.headers.get('Cache-Control')).toBe('no-store')
    expect(await response.json()).toEqual({ status: 'ok', mail: 'ok', database: { status: 'ok', used: 0 } })
  })
})

describe('Unknown paths', () => {
  it('answer 404 NOT_FOUND under /portail-backend', async () => {
    const { jwt } = await signedInUser()
    for (const path of ['/rest/public/nothing', '/rest/bd/nothing', '/nothing']) {
      const response = await call(path, { token: jwt.accessToken })
      expect({ path, status: response.status }).toEqual({ path, status: 404 })
      expect(await response.json()).toMatchObject({ businessCode: 'NOT_FOUND' })
    }
  })

  it('answer 401 without a token under /rest/bd, so they reveal nothing', async () => {
    const response = await call('/rest/bd/nothing')
    expect(response.status).toBe(401)
    expect(await response.json()).toMatchObject({ businessCode: 'UNAUTHORIZED' })
  })

  it('do not include a spec path that ends with a slash, asked without it', async () => {
    for (const path of ['/rest/public/bd/password/forgot', '/rest/public/bd/password/renew']) {
      const response = await post(path, {})
      expect({ path, status: response.status }).toEqual({ path, status: 400 })
      expect(await response.json()).toMatchObject({ businessCode: 'VALIDATION_FAILED' })
    }
    // Not any path: only those whose slashed form is a route.
    expect((await post('/rest/public/bd/login/', {})).status).toBe(404)
  })

  it('answer 404 to a known path with another method', async () => {
    const response = await call('/rest/public/bd/login')
    expect(response.status).toBe(404)
    expect(await response.json()).toMatchObject({ businessCode: 'NOT_FOUND' })
  })
})

describe('GET /portail-backend/openapi.json', () => {
  it('is an OpenAPI 3.1 document listing every endpoint', async () => {
    const doc = await openApiDocument(await call('/openapi.json'))
    expect(doc.openapi).toMatch(/^3\.1\./)
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    )
    expect(operations).toEqual(
      expect.arrayContaining([
        'POST /portail-backend/rest/public/bd/login',
        'POST /portail-backend/rest/public/bd/login/refreshToken',
        'GET /portail-backend/rest/public/bd/captcha/challenge',
        'GET /portail-backend/rest/public/bd/captcha/question',
        'GET /portail-backend/rest/public/bd/utilisateur/validate/captcha',
        'GET /portail-backend/rest/bd/utilisateur/{id}',
        'GET /portail-backend/rest/bd/acces/utilisateur/{userId}',
        'GET /portail-backend/rest/bd/acces/application',
        'POST /portail-backend/rest/bd/logs/',
        'POST /portail-backend/rest/bd/logout',
        'GET /portail-backend/rest/public/health',
      ]),
    )
  })

  it('marks the non-public endpoints as needing the bearer token', async () => {
    const BEARER_PROTOCOL = ['/portail-backend/oidc/userinfo', '/portail-backend/oidc/register']
    const doc = await openApiDocument(await call('/openapi.json'))
    expect(doc.components?.securitySchemes?.bearer).toMatchObject({ type: 'http', scheme: 'bearer' })
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const secured = (operation.security ?? []).length > 0
        expect({ operation: `${method} ${path}`, secured }).toEqual({
          operation: `${method} ${path}`,
          // OpenID Connect's UserInfo and registration take a bearer token too (an OIDC session's, a
          // root administrator's), and SCIM (a service account's).
          secured: path.includes('/rest/bd/') || BEARER_PROTOCOL.includes(path) || path.includes('/scim/v2/'),
        })
      }
    }
  })
})

describe('Error bodies', () => {
  it('have exactly businessCode, message and attributs, whatever the error', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    const signed = await signedInUser({ postes: [currentPost(4, 2)] })
    const other = await createUser()
    const failures: [string, Response][] = [
      ['404 unknown path', await call('/nothing')],
      ['401 no token', await call(`/rest/bd/utilisateur/${user.id}`)],
      ['401 bad token', await call(`/rest/bd/utilisateur/${user.id}`, { token: 'garbage' })],
      ['403 out of scope', await call(`/rest/bd/utilisateur/${other.id}`, { token: signed.jwt.accessToken })],
      ['404 unknown user', await call('/rest/bd/utilisateur/999999', { token: signed.jwt.accessToken })],
      ['400 bad id', await call('/rest/bd/utilisateur/abc', { token: signed.jwt.accessToken })],
      ['400 validation', await post('/rest/public/bd/login', {})],
      [
        '400 malformed json',
        await call('/rest/public/bd/login', {
          method: 'POST',
          body: '{',
          headers: { 'Content-Type': 'application/json' },
        }),
      ],
      ['400 captcha', await post('/rest/public/bd/login', { identifiant: 'a', motDePasse: 'b' })],
      ['401 bad credential', await login(user.login, 'Wrong123')],
      ['401 refresh', await post('/rest/public/bd/login/refreshToken', { refreshToken: 'nope' })],
    ]
    for (const [name, response] of failures) {
      expect(response.status, name).toBeGreaterThanOrEqual(400)
      expect(response.headers.get('Content-Type'), name).toMatch(/^application\/json/)
      // Read as one of the Worker's error bodies, its types checked: its keys make it the API's.
      const body = await anyErrorBody(response)
      expect(Object.keys(body).sort(), name).toEqual(['attributs', 'businessCode', 'message'])
    }
  })
})
