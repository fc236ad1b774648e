import { exportJWK, generateKeyPair, SignJWT } from 'jose'
import * as client from 'openid-client'
import { beforeAll, describe, expect, it } from 'vitest'
import type {
  ServiceAccountCreate,
  ServiceAccountCreated,
} from '../../../worker-api/contract/machines/service-accounts'
import { SERVICE_ACCOUNT_CALLS_PER_MINUTE } from '../../../worker-api/services/core/actor'
import { api, okBody } from '../client'
import {
  call,
  createOrganisation,
  createUser,
  currentPost,
  db,
  expectError,
  ORIGIN,
  post,
  sessionFor,
  withFrozenClock,
} from '../helpers'
import { oauthErrorCode, serviceAccessToken } from '../oauth-answers'
import { rpOptions, tokenCall } from '../oidc-rp'

/**
 * Service accounts: programs that sign in with client credentials (a secret or a signed assertion) and
 * act within their structure's sub-tree, with the scopes granted to them — and nothing a person does
 * at the keyboard.
 */

const TOKEN_ENDPOINT = `${ORIGIN}/portail-backend/oidc/token`

let root: { id: number; token: string; password: string }
let adminNord: { id: number; token: string; password: string }
let nordUser: { id: number }
let sudUser: { id: number }

beforeAll(async () => {
  await createOrganisation()
  const rootUser = await createUser({ admin: true, postes: [currentPost(1, 1)] })
  root = { ...rootUser, token: (await sessionFor(rootUser.id)).accessToken }
  const nord = await createUser({ admin: true, postes: [currentPost(2, 2)] })
  adminNord = { ...nord, token: (await sessionFor(nord.id)).accessToken }
  nordUser = await createUser({ postes: [currentPost(4, 2)] })
  sudUser = await createUser({ postes: [currentPost(3, 3)] })
})

type Creation = {
  nom?: string
  structure?: number
  admin?: boolean
  scopes?: string[]
  jwks?: unknown
  preuve?: unknown
}

function create(token: string, input: Creation = {}) {
  return post(
    '/rest/bd/compteService',
    {
      nom: input.nom ?? 'Synchronisation RH',
      structure: { id: input.structure ?? 2 },
      admin: input.admin ?? false,
      scopes: input.scopes ?? ['api'],
      ...(input.jwks === undefined ? {} : { jwks: input.jwks }),
      ...(input.preuve === undefined ? {} : { preuve: input.preuve }),
    },
    { token },
  )
}

/** The same creation as `create`, through the typed client. */
const createAccount = (token: string, input: Partial<ServiceAccountCreate> = {}) =>
  api(token).rest.bd.compteService.$post({
    json: { nom: 'Synchronisation RH', structure: { id: 2 }, admin: false, scopes: ['api'], ...input },
  })

/** An administrator account of Direction Nord made by its administrator, with their password as proof. */
function nordAccount(input: Partial<ServiceAccountCreate> = {}): Promise<ServiceAccountCreated> {
  return okBody(
    createAccount(adminNord.token, {
      admin: true,
      scopes: ['api', 'logs'],
      preuve: { motDePasse: adminNord.password },
      ...input,
    }),
    201,
  )
}

const basic = (clientId: string, secret: string) =>
  `Basic ${btoa(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`)}`

/** The access token of a secret, by client_secret_basic. */
async function tokenOf(account: ServiceAccountCreated, scope?: string) {
  const response = await tokenCall(
    { grant_type: 'client_credentials', ...(scope ? { scope } : {}) },
    basic(account.clientId, account.clientSecret ?? ''),
  )
  return serviceAccessToken(response)
}

describe('an administrator makes a service account', () => {
  it('answers its client id and secret once, and lists it without the secret', async () => {
    const response = await createAccount(adminNord.token, { nom: 'Lecteur du référentiel' })
    expect(response.status).toBe(201)
    expect(response.headers.get('Cache-Control')).toBe('no-store')
    const created = await okBody(response, 201)
    expect(created.clientId).toMatch(/^cs-[A-Za-z0-9_-]{24}$/)
    expect(created.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/)

    const account = await okBody(api(adminNord.token).rest.bd.compteService[':id'].$get({ param: { id: created.id } }))
    expect(account).toMatchObject({
      nom: 'Lecteur du référentiel',
      structure: { id: 2, nom: 'Direction Nord' },
      admin: false,
      scopes: ['api'],
      clientId: created.clientId,
      secret: true,
      cles: 0,
      derniereUtilisation: null,
      appelsJour: 0,
    })
    expect(JSON.stringify(account)).not.toContain(created.clientSecret)
    const stored = await db()
      .selectFrom('compte_service')
      .select('secret_hash')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow()
    expect(stored.secret_hash).not.toContain(created.clientSecret ?? '')

    const entry = await db()
      .selectFrom('log')
      .select(['utilisateur_id', 'nom_log', 'commentaire'])
      .where('nom_log', '=', 'COMPTE_SERVICE_CREATION')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow()
    expect(entry).toMatchObject({ utilisateur_id: adminNord.id })
    expect(entry.commentaire).toContain(created.clientId)
  })

  it('asks for a fresh proof before making an administrator account, and refuses a wrong one', async () => {
    await expectError(await create(adminNord.token, { admin: true }), 400, 'VALIDATION_FAILED')
    await expectError(
      await create(adminNord.token, { admin: true, preuve: { motDePasse: 'Wrong1234' } }),
      400,
      'BAD_OLD_PASSWORD',
    )
    expect((await create(adminNord.token, { admin: true, preuve: { motDePasse: adminNord.password } })).status).toBe(
      201,
    )
  })

  it('keeps a delegated administrator within their sub-tree', async () => {
    await expectError(await create(adminNord.token, { structure: 3 }), 403, 'FORBIDDEN')
    const sud = await okBody(createAccount(root.token, { structure: { id: 3 }, nom: 'Compte du Sud' }), 201)
    await expectError(await call(`/rest/bd/compteService/${sud.id}`, { token: adminNord.token }), 404, 'NOT_FOUND')
    await expectError(
      await call(`/rest/bd/compteService/${sud.id}`, { method: 'DELETE', token: adminNord.token }),
      404,
      'NOT_FOUND',
    )
    await expectError(
      await post(`/rest/bd/compteService/${sud.id}/secret`, {}, { token: adminNord.token }),
      404,
      'NOT_FOUND',
    )
    const listed = await okBody(api(adminNord.token).rest.bd.compteService.$get({ query: {} }))
    expect(listed.map((account) => account.structure.nom)).not.toContain('Direction Sud')
    const all = await okBody(api(root.token).rest.bd.compteService.$get({ query: {} }))
    expect(all.map((account) => account.nom)).toContain('Compte du Sud')
  })

  it('refuses anyone but an administrator, and a key that is not a public key', async () => {
    const user = await createUser({ postes: [currentPost(4, 2)] })
    await expectError(await create((await sessionFor(user.id)).accessToken), 403, 'FORBIDDEN')
    await expectError(await call('/rest/bd/compteService'), 401, 'UNAUTHORIZED')
    const { privateKey } = await generateKeyPair('ES256', { extractable: true })
    const jwk = await exportJWK(privateKey)
    await expectError(await create(adminNord.token, { jwks: { keys: [jwk] } }), 400, 'VALIDATION_FAILED')
    const broken = { kty: 'EC', crv: 'P-256', x: 'AAAA', y: 'AAAA' }
    await expectError(await create(adminNord.token, { jwks: { keys: [broken] } }), 400, 'VALIDATION_FAILED')
  })
})

describe('the client credentials grant', () => {
  it('gives openid-client a five-minute token with client_secret_basic and client_secret_post, and no refresh token', async () => {
    const account = await nordAccount()
    for (const method of [client.ClientSecretBasic, client.ClientSecretPost]) {
      const config = await client.discovery(
        new URL(ORIGIN),
        account.clientId,
        undefined,
        method(account.clientSecret ?? ''),
        rpOptions,
      )
      const tokens = await client.clientCredentialsGrant(config, { scope: 'api' })
      expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 300, scope: 'api' })
      expect(tokens.refresh_token).toBeUndefined()
      const users = await call('/rest/bd/utilisateur/liste', { token: tokens.access_token })
      expect(users.status).toBe(200)
    }
  })

  it('signs in with private_key_jwt: an assertion of a registered key, single use, for this endpoint, short-lived', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256')
    const { x, y } = await exportJWK(publicKey)
    const account = await nordAccount({ jwks: { keys: [{ kty: 'EC', crv: 'P-256', x, y, kid: 'k1' }] } })
    expect(account.clientSecret).toBeUndefined()
    const config = await client.discovery(
      new URL(ORIGIN),
      account.clientId,
      undefined,
      client.PrivateKeyJwt({ key: privateKey, kid: 'k1' }),
      rpOptions,
    )
    const tokens = await client.clientCredentialsGrant(config)
    expect(tokens.scope).toBe('api logs')

    const assertion = (audience = TOKEN_ENDPOINT, lifetime = 60) =>
      new SignJWT({ jti: crypto.randomUUID() })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setIssuer(account.clientId)
        .setSubject(account.clientId)
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime(`${lifetime}s`)
        .sign(privateKey)
    const grant = (signed: string) =>
      tokenCall({
        grant_type: 'client_credentials',
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: signed,
      })
    const once = await assertion()
    expect((await grant(once)).status).toBe(200)
    // The same assertion again: refused.
    const again = await grant(once)
    expect({ status: again.status, error: await oauthErrorCode(again) }).toEqual({
      status: 401,
      error: 'invalid_client',
    })
    // Living past five minutes, for another audience, or signed by another key: refused.
    for (const refused of [
      await assertion(TOKEN_ENDPOINT, 600),
      await assertion('https://elsewhere.example.test/token'),
      await new SignJWT({ jti: crypto.randomUUID() })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setIssuer(account.clientId)
        .setSubject(account.clientId)
        .setAudience(TOKEN_ENDPOINT)
        .setExpirationTime('60s')
        .sign((await generateKeyPair('ES256')).privateKey),
    ]) {
      const response = await grant(refused)
      expect({ status: response.status, error: await oauthErrorCode(response) }).toEqual({
        status: 401,
        error: 'invalid_client',
      })
    }
    // A secret does not open a keys-only account.
    const secret = await tokenCall({ grant_type: 'client_credentials' }, basic(account.clientId, 'anything'))
    expect(secret.status).toBe(401)
  })

  it('grants a subset of the account’s scopes, and refuses one it does not have', async () => {
    const account = await nordAccount({ scopes: ['logs'] })
    const refused = await tokenCall(
      { grant_type: 'client_credentials', scope: 'api' },
      basic(account.clientId, account.clientSecret ?? ''),
    )
    expect({ status: refused.status, error: await oauthErrorCode(refused) }).toEqual({
      status: 400,
      error: 'invalid_scope',
    })
    const token = await tokenOf(account, 'logs')
    expect((await call('/rest/bd/logs/?dateDebut=20200101&dateFin=20991231', { token })).status).toBe(200)
    await expectError(await call('/rest/bd/utilisateur/liste', { token }), 403, 'SERVICE_ACCOUNT_SCOPE')
  })

  it('refuses a wrong secret, and records the refusal under the account', async () => {
    const account = await nordAccount({ nom: 'Compte refusé' })
    const response = await tokenCall({ grant_type: 'client_credentials' }, basic(account.clientId, 'not-the-secret'))
    expect({ status: response.status, error: await oauthErrorCode(response) }).toEqual({
      status: 401,
      error: 'invalid_client',
    })
    expect(response.headers.get('WWW-Authenticate')).toContain('Basic')
    const entry = await db()
      .selectFrom('log')
      .select(['utilisateur_id', 'compte_service_id', 'commentaire'])
      .where('compte_service_id', '=', account.id)
      .executeTakeFirstOrThrow()
    expect(entry).toMatchObject({ utilisateur_id: null, compte_service_id: account.id })
    expect(entry.commentaire).toContain('refusée')
  })

  it('serves service accounts while the OpenID Connect provider is off (no signing key)', async () => {
    const account = await nordAccount()
    const off = { OIDC_SIGNING_KEY: undefined, OIDC_SIGNING_KEY_NEXT: undefined }
    const form = new URLSearchParams({ grant_type: 'client_credentials' }).toString()
    const headers = { 'Content-Type': 'application/x-www-form-urlencoded' }
    const granted = await call('/oidc/token', {
      method: 'POST',
      body: form,
      headers: { ...headers, Authorization: basic(account.clientId, account.clientSecret ?? '') },
      env: off,
    })
    expect(granted.status).toBe(200)
    // Every other grant is the provider's, off.
    const code = await call('/oidc/token', {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'authorization_code', client_id: 'x' }).toString(),
      headers,
      env: off,
    })
    expect(code.status).toBe(404)
    expect((await call('/.well-known/openid-configuration', { env: off })).status).toBe(404)
  })

  it('is listed by discovery', async () => {
    // The provider's protocol routes are no part of the typed client's routes.
    expect(await (await call('/.well-known/openid-configuration')).json()).toMatchObject({
      grant_types_supported: expect.arrayContaining(['client_credentials']),
      token_endpoint_auth_methods_supported: expect.arrayContaining(['private_key_jwt']),
    })
  })
})

describe('a service account at work', () => {
  it('reads and writes within its structure’s sub-tree only, each write audited under its name', async () => {
    const account = await nordAccount({ nom: 'Annuaire Nord' })
    const token = await tokenOf(account)
    const users = await okBody(api(token).rest.bd.utilisateur.liste.$get({ query: {} }))
    const ids = users.map((user) => user.id)
    expect(ids).toContain(nordUser.id)
    expect(ids).not.toContain(sudUser.id)
    expect((await call(`/rest/bd/utilisateur/${nordUser.id}`, { token })).status).toBe(200)
    expect((await call(`/rest/bd/utilisateur/${sudUser.id}`, { token })).status).toBe(403)

    const structure = await post(
      '/rest/bd/structure',
      { nom: 'Agence Arras', type: { id: 3 }, parent: { id: 2 } },
      { token },
    )
    expect(structure.status).toBe(201)
    const outside = await post(
      '/rest/bd/structure',
      { nom: 'Agence Nîmes', type: { id: 3 }, parent: { id: 3 } },
      { token },
    )
    expect(outside.status).toBe(403)
    const entry = await db()
      .selectFrom('log')
      .select(['utilisateur_id', 'compte_service_id'])
      .where('nom_log', '=', 'STRUCTURE_CREATION')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow()
    expect(entry).toEqual({ utilisateur_id: null, compte_service_id: account.id })
  })

  it('is in the history of the administrators of its structure, by its name, and in their home by its calls', async () => {
    const account = await nordAccount({ nom: 'Passerelle Qualité' })
    const token = await tokenOf(account)
    expect(
      (await post('/rest/bd/structure', { nom: 'Agence Douai', type: { id: 3 }, parent: { id: 2 } }, { token })).status,
    ).toBe(201)
    const sud = await createUser({ admin: true, postes: [currentPost(3, 3)] })
    const history = (viewer: string, q = 'Douai') =>
      okBody(api(viewer).rest.bd.logs.index.$get({ query: { dateDebut: '20200101', q } }))
    for (const viewer of [adminNord.token, root.token]) {
      const [entry] = await history(viewer)
      expect(entry).toMatchObject({ user: null, compteService: { id: account.id, nom: 'Passerelle Qualité' } })
      // Its name finds its entries.
      expect((await history(viewer, 'Passerelle')).length).toBeGreaterThan(0)
    }
    expect(await history((await sessionFor(sud.id)).accessToken)).toEqual([])

    const home = await okBody(api(adminNord.token).rest.bd.accueil.$get({ query: {} }))
    expect(home.comptesService.find((row) => row.id === account.id)?.appels).toBeGreaterThanOrEqual(1)
    const sudHome = await okBody(api((await sessionFor(sud.id)).accessToken).rest.bd.accueil.$get({ query: {} }))
    expect(sudHome.comptesService.map((row) => row.id)).not.toContain(account.id)
  })

  it('is refused on HEAD what it is refused on GET: nothing runs, nothing is written, no total comes back', async () => {
    const account = await nordAccount({ nom: 'Lecteur de l’historique', scopes: ['logs'] })
    const token = await tokenOf(account)
    const exports = () =>
      db()
        .selectFrom('log')
        .select('id')
        .where('nom_log', '=', 'ORGANISATION_EXPORT')
        .where('compte_service_id', '=', account.id)
        .execute()
    for (const path of ['/rest/bd/export/utilisateurs.csv', '/rest/bd/utilisateur/liste?page=1']) {
      await expectError(await call(path, { token }), 403, 'SERVICE_ACCOUNT_SCOPE')
      const head = await call(path, { method: 'HEAD', token })
      expect(head.status, path).toBe(403)
      expect(head.headers.get('X-Total-Count')).toBeNull()
    }
    expect(await exports()).toEqual([])
  })

  it('answers 403 to everything interactive', async () => {
    const token = await tokenOf(await nordAccount())
    for (const [method, path] of [
      ['GET', '/rest/bd/session'],
      ['GET', '/rest/bd/mfa'],
      ['GET', '/rest/bd/acces/application?idApplication=1'],
      ['POST', '/rest/bd/logout'],
      ['GET', '/rest/bd/parametres/securite'],
      ['GET', '/rest/bd/compteService'],
    ] as const) {
      await expectError(await call(path, { method, token }), 403, 'SERVICE_ACCOUNT_SCOPE')
    }
    const userinfo = await call('/oidc/userinfo', { token })
    expect(userinfo.status).toBe(401)
  })

  it('stops at its next call once deleted, and its secret with it', async () => {
    const account = await nordAccount()
    const token = await tokenOf(account)
    expect((await call('/rest/bd/utilisateur/liste', { token })).status).toBe(200)
    expect(
      (await call(`/rest/bd/compteService/${account.id}`, { method: 'DELETE', token: adminNord.token })).status,
    ).toBe(204)
    await expectError(await call('/rest/bd/utilisateur/liste', { token }), 401, 'INVALID_TOKEN')
    const again = await tokenCall(
      { grant_type: 'client_credentials' },
      basic(account.clientId, account.clientSecret ?? ''),
    )
    expect(again.status).toBe(401)
    const entry = await db()
      .selectFrom('log')
      .select('commentaire')
      .where('nom_log', '=', 'COMPTE_SERVICE_SUPPRESSION')
      .executeTakeFirstOrThrow()
    expect(entry.commentaire).toContain(account.clientId)
  })

  it('keeps the former secret 24 hours after a rotation, unless revoked at once', async () => {
    const account = await nordAccount({ admin: false, preuve: undefined })
    const secretOf = (json: { revoquerAncien?: boolean }) =>
      okBody(api(adminNord.token).rest.bd.compteService[':id'].secret.$post({ param: { id: account.id }, json }))
    const { clientSecret, ancienSecretExpire } = await secretOf({})
    const hours = (Date.parse(ancienSecretExpire ?? '') - Date.now()) / 3_600_000
    expect(hours).toBeGreaterThan(23.9)
    expect(hours).toBeLessThanOrEqual(24)
    await tokenOf(account)
    await tokenOf({ ...account, clientSecret })
    const latest = (await secretOf({ revoquerAncien: true })).clientSecret
    for (const former of [account.clientSecret ?? '', clientSecret]) {
      expect((await tokenCall({ grant_type: 'client_credentials' }, basic(account.clientId, former))).status).toBe(401)
    }
    await tokenOf({ ...account, clientSecret: latest })
  })

  it('asks for a fresh proof before renewing an administrator account’s secret', async () => {
    const account = await nordAccount()
    await expectError(
      await post(`/rest/bd/compteService/${account.id}/secret`, {}, { token: adminNord.token }),
      400,
      'VALIDATION_FAILED',
    )
    const proven = await post(
      `/rest/bd/compteService/${account.id}/secret`,
      { preuve: { motDePasse: adminNord.password } },
      { token: adminNord.token },
    )
    expect(proven.status).toBe(200)
  })

  it(`is limited to ${SERVICE_ACCOUNT_CALLS_PER_MINUTE} calls a minute, then told when to come back`, async () => {
    expect(SERVICE_ACCOUNT_CALLS_PER_MINUTE).toBe(600)
    const account = await nordAccount()
    const token = await tokenOf(account)
    // Within one minute of the clock (at its 10th second), 599 calls already counted.
    const at = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 10_000)
    await withFrozenClock(async () => {
      const now = new Date().toISOString()
      await db()
        .insertInto('compte_service_usage')
        .values({
          compte_service_id: account.id,
          minute: now.slice(0, 16),
          appels_minute: SERVICE_ACCOUNT_CALLS_PER_MINUTE - 1,
          jour: now.slice(0, 10),
          appels_jour: SERVICE_ACCOUNT_CALLS_PER_MINUTE - 1,
          derniere_utilisation: now,
        })
        .execute()
      expect((await call('/rest/bd/utilisateur/liste', { token })).status).toBe(200)
      const over = await call('/rest/bd/utilisateur/liste', { token })
      await expectError(over, 429, 'TOO_MANY_ATTEMPTS')
      expect(over.headers.get('Retry-After')).toBe('50')
    }, at)
    const seen = await okBody(api(adminNord.token).rest.bd.compteService[':id'].$get({ param: { id: account.id } }))
    expect(seen.derniereUtilisation).not.toBeNull()
    expect(seen.appelsJour).toBe(SERVICE_ACCOUNT_CALLS_PER_MINUTE + 1)
  })
})
