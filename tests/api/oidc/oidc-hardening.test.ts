import { decodeJwt } from 'jose'
import * as client from 'openid-client'
import { beforeAll, describe, expect, it } from 'vitest'
import { clientHostKind, isClientUri } from '../../../worker-api/contract/oidc/oidc'
import { deliverable } from '../../../worker-api/services/core/outbound'
import { api, okBody } from '../client'
import {
  browserCookieOf,
  call,
  changedBeforeWrite,
  createOrganisation,
  currentPost,
  db,
  expectError,
  ORIGIN,
  refreshWith,
  sessionFor,
  signedInUser,
} from '../helpers'
import { oauthErrorCode, tokenBody } from '../oauth-answers'
import {
  authorizationRequest,
  basic,
  codeFlow,
  confidentialRp,
  oidcApplication,
  REDIRECT,
  redirectOf,
  signedInAgent,
  tokenCall,
  worker_,
} from '../oidc-rp'

/**
 * The provider's boundaries with the rest of the portal: an OpenID Connect session is its client's,
 * refreshed only where the client authenticates, and every refresh, wherever it is made, asks again
 * whether a current post grants the application.
 */

let root: string
let app: { id: number; clientId: string; clientSecret: string }
let logoutApp: { id: number; clientId: string; clientSecret: string }
const BYE = 'https://rp.example.test/bye'
const RP_ORIGIN = 'https://rp.example.test'

beforeAll(async () => {
  await createOrganisation()
  root = (await signedInUser({ admin: true, postes: [currentPost(1, 1)] })).jwt.accessToken
  app = await oidcApplication(root, 'Grafana', { public: false })
  logoutApp = await oidcApplication(root, 'Outline', { public: false, postLogoutRedirectUris: [BYE] })
})

const familyRevoked = async (familyId: string) =>
  (
    await db()
      .selectFrom('refresh_token')
      .select('revoked_at')
      .where('family_id', '=', familyId)
      .where('revoked_at', 'is', null)
      .execute()
  ).length === 0

describe('refresh tokens of OpenID Connect sessions', () => {
  it("are refused at the portal's own refresh endpoint (401), and still work for their client", async () => {
    const agent = await signedInAgent()
    const rp = await confidentialRp(app)
    const { tokens } = await codeFlow(agent, rp)
    await expectError(await refreshWith(tokens.refresh_token as string), 401, 'INVALID_REFRESH_TOKEN')
    // Refused without being used: the client refreshes with it, authenticated, at the token endpoint.
    const refreshed = await client.refreshTokenGrant(rp, tokens.refresh_token as string)
    expect(refreshed.access_token).toBeTruthy()
    await expectError(await refreshWith(refreshed.refresh_token as string), 401, 'INVALID_REFRESH_TOKEN')
  })

  it('end at the next refresh once a root administrator removes the grant, the session revoked', async () => {
    const agent = await signedInAgent()
    const rp = await confidentialRp(app)
    const { tokens } = await codeFlow(agent, rp)
    await db()
      .deleteFrom('fonction_application')
      .where('application_id', '=', app.id)
      .where('fonction_id', '=', 2)
      .execute()
    try {
      await expect(client.refreshTokenGrant(rp, tokens.refresh_token as string)).rejects.toMatchObject({
        error: 'invalid_grant',
      })
      expect(await familyRevoked(tokens.claims()?.sid as string)).toBe(true)
    } finally {
      await db().insertInto('fonction_application').values({ fonction_id: 2, application_id: app.id }).execute()
    }
    // Granted again, the ended session stays ended.
    await expect(client.refreshTokenGrant(rp, tokens.refresh_token as string)).rejects.toMatchObject({
      error: 'invalid_grant',
    })
  })
})

describe('the sessions applications open with a launch code', () => {
  it('end at the next refresh once no current post grants the application, the session revoked', async () => {
    const agent = await signedInAgent()
    // Yard dangereux, granted to the agent's function.
    const launched = await sessionFor(agent.id, { application: 1 })
    const { refreshToken } = await okBody(
      api().rest.public.bd.login.refreshToken.$post({ json: { refreshToken: launched.refreshToken } }),
    )
    // The post ends (yesterday): the application is no longer the agent's.
    await db()
      .updateTable('poste')
      .set({ date_fin: new Date(Date.now() - 86_400_000).toISOString().slice(0, 10) })
      .where('utilisateur_id', '=', agent.id)
      .execute()
    await expectError(await refreshWith(refreshToken), 401, 'INVALID_REFRESH_TOKEN')
    expect(await familyRevoked(launched.sid)).toBe(true)
  })

  it("get no new token when the post ends between the refresh's read and its write", async () => {
    const agent = await signedInAgent()
    const launched = await sessionFor(agent.id, { application: 1 })
    const endPost = () =>
      db()
        .updateTable('poste')
        .set({ date_fin: new Date(Date.now() - 86_400_000).toISOString().slice(0, 10) })
        .where('utilisateur_id', '=', agent.id)
        .execute()
    const response = await call('/rest/public/bd/login/refreshToken', {
      method: 'POST',
      body: JSON.stringify({ refreshToken: launched.refreshToken }),
      env: { DB: changedBeforeWrite(endPost, { atBatch: 1 }) },
    })
    expect(response.status).toBe(401)
    const issued = await db()
      .selectFrom('refresh_token')
      .select('id')
      .where('family_id', '=', launched.sid)
      .where('rotated_at', 'is', null)
      .where('revoked_at', 'is', null)
      .execute()
    // Only the presented token, unused: nothing was issued after the post ended.
    expect(issued).toHaveLength(1)
  })
})

describe('RP-initiated logout', () => {
  /** An ID token of `user`'s portal session (`accessToken`), from the logout client. */
  async function idTokenOf(user: { accessToken: string }) {
    const { tokens } = await codeFlow(user, await confidentialRp(logoutApp))
    return tokens.id_token as string
  }

  const logoutUrl = (params: Record<string, string>) => `${ORIGIN}/oidc/logout?${new URLSearchParams(params)}`
  const alive = async (token: string) => (await call('/rest/bd/session', { token })).status === 200

  it('signs out at once for a hint of the session signed in on the page', async () => {
    const agent = await signedInAgent()
    const hint = await idTokenOf(agent)
    const response = await worker_(logoutUrl({ id_token_hint: hint, post_logout_redirect_uri: BYE }), {
      headers: { Cookie: await browserCookieOf(agent), 'Sec-Fetch-Site': 'cross-site' },
      redirect: 'manual',
    })
    expect([response.status, response.headers.get('Location')]).toEqual([302, BYE])
    expect(await alive(agent.accessToken)).toBe(false)
  })

  it("asks first for a hint of the same user's other session, ended or not, and ends nothing unasked", async () => {
    const agent = await signedInAgent()
    const elsewhere = await sessionFor(agent.id)
    const ended = await sessionFor(agent.id)
    const liveHint = await idTokenOf(elsewhere)
    const endedHint = await idTokenOf(ended)
    // That session ends: its ID token stays a valid hint of the user, of no session signed in here.
    await call(`/rest/bd/session/${ended.sid}`, { method: 'DELETE', token: ended.accessToken })
    for (const hint of [liveHint, endedHint]) {
      const response = await worker_(logoutUrl({ id_token_hint: hint, post_logout_redirect_uri: BYE }), {
        headers: { Cookie: await browserCookieOf(agent), 'Sec-Fetch-Site': 'cross-site' },
        redirect: 'manual',
      })
      expect(response.status).toBe(200)
      expect(await response.text()).toContain('Outline demande à vous déconnecter du portail')
      expect(await alive(agent.accessToken)).toBe(true)
    }
  })

  it("is accepted by POST from the relying party's page, answered as the same request by GET (never confirmed by the post)", async () => {
    const agent = await signedInAgent()
    const hint = await idTokenOf(agent)
    const posted = await worker_(`${ORIGIN}/oidc/logout`, {
      method: 'POST',
      headers: {
        Origin: RP_ORIGIN,
        'Sec-Fetch-Site': 'cross-site',
        'Content-Type': 'application/x-www-form-urlencoded',
        // Even were the session cookie sent, a post from elsewhere confirms nothing.
        Cookie: await browserCookieOf(agent),
      },
      body: new URLSearchParams({ id_token_hint: hint, post_logout_redirect_uri: BYE, state: 's', confirm: '1' }),
      redirect: 'manual',
    })
    expect(posted.status).toBe(303)
    const location = new URL(posted.headers.get('Location') as string, ORIGIN)
    expect(location.pathname).toBe('/oidc/logout')
    expect(Object.fromEntries(location.searchParams)).toEqual({
      id_token_hint: hint,
      post_logout_redirect_uri: BYE,
      state: 's',
    })
    expect(await alive(agent.accessToken)).toBe(true)
    // The browser follows by GET, with its session: the same checks as a GET.
    const followed = await worker_(location.toString(), {
      headers: { Cookie: await browserCookieOf(agent), 'Sec-Fetch-Site': 'cross-site' },
      redirect: 'manual',
    })
    expect([followed.status, followed.headers.get('Location')]).toEqual([302, `${BYE}?state=s`])
    expect(await alive(agent.accessToken)).toBe(false)
  })

  it('still refuses cross-origin posts to every other page', async () => {
    const response = await worker_(`${ORIGIN}/logout`, {
      method: 'POST',
      headers: { Origin: RP_ORIGIN, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'x=1',
    })
    expect(response.status).toBe(403)
  })
})

describe('the issuer', () => {
  const LOOPBACK_IP = 'http://127.0.0.1:8787'

  it('of the ID token is the one the code was issued under, whichever name of the portal the exchange reached', async () => {
    const agent = await signedInAgent()
    const rp = await confidentialRp(app)
    const request = await authorizationRequest(rp)
    const decision = await redirectOf(agent.accessToken, request.url)
    const code = decision.searchParams.get('code') as string
    expect(decision.searchParams.get('iss')).toBe(ORIGIN)
    const exchanged = await tokenCall(
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: request.verifier },
      basic(app.clientId, app.clientSecret),
      LOOPBACK_IP,
    )
    expect(exchanged.status).toBe(200)
    const tokens = await tokenBody(exchanged)
    expect(decodeJwt(tokens.id_token).iss).toBe(ORIGIN)
    // And so at every refresh.
    const refreshed = await tokenCall(
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
      basic(app.clientId, app.clientSecret),
      LOOPBACK_IP,
    )
    expect(refreshed.status).toBe(200)
    expect(decodeJwt((await tokenBody(refreshed)).id_token).iss).toBe(ORIGIN)
  })

  it('of the discovery document follows the host, and no shared cache may serve it to another (Vary: Host)', async () => {
    for (const origin of [ORIGIN, LOOPBACK_IP]) {
      const response = await worker_(`${origin}/.well-known/openid-configuration`)
      expect(await response.json()).toMatchObject({ issuer: origin })
      expect(response.headers.get('Vary')).toMatch(/\bHost\b/)
    }
  })
})

describe("a client's addresses", () => {
  const SPECIAL = [
    'https://169.254.169.254/latest/meta-data',
    'https://10.0.0.8/cb',
    'https://172.16.4.2/cb',
    'https://192.168.1.20/cb',
    'https://100.64.0.1/cb',
    'https://0.0.0.0/cb',
    'https://[fd00::1]/cb',
    'https://[fe80::1]/cb',
    'https://[::ffff:10.0.0.8]/cb',
    // IPv4-compatible IPv6: the URL writes them `[::a9fe:a9fe]`, `[::a00:8]`.
    'https://[::169.254.169.254]/latest/meta-data',
    'https://[::a9fe:a9fe]/latest/meta-data',
    'https://[::10.0.0.8]/cb',
    'https://[::127.0.0.1]/cb',
  ]
  const LOOPBACK = [
    'http://localhost:3000/cb',
    'https://127.0.0.1/cb',
    'https://0x7f.1/cb',
    'https://[::1]/cb',
    'https://localhost./cb',
    'https://app.localhost./cb',
  ]

  it('never name a private, link-local or special range; this machine only where allowed', () => {
    for (const uri of SPECIAL) {
      expect([uri, isClientUri(uri)]).toEqual([uri, false])
      expect([uri, isClientUri(uri, { loopback: false })]).toEqual([uri, false])
    }
    for (const uri of LOOPBACK) {
      expect([uri, isClientUri(uri)]).toEqual([uri, true])
      expect([uri, isClientUri(uri, { loopback: false })]).toEqual([uri, false])
    }
    expect(isClientUri('https://93.184.216.34/cb', { loopback: false })).toBe(true)
    expect(isClientUri('https://rp.example.test/cb', { loopback: false })).toBe(true)
    expect(isClientUri('http://rp.example.test/cb')).toBe(false)
    expect(clientHostKind('app.localhost')).toBe('loopback')
  })

  const application = (oidc: Record<string, unknown>, env?: Record<string, string>) =>
    call('/rest/bd/application', {
      method: 'POST',
      token: root,
      env,
      body: JSON.stringify({
        libelle: `Client ${crypto.randomUUID().slice(0, 8)}`,
        icone: 'scale',
        url: 'https://rp.example.test/',
        actif: true,
        protocole: 'OIDC',
        oidc: { public: false, redirectUris: ['https://rp.example.test/cb'], ...oidc },
        fonctions: [],
      }),
    })

  it('are refused by the catalogue on the field that names one (400 VALIDATION_FAILED)', async () => {
    for (const uri of SPECIAL) {
      const refused = await expectError(await application({ backchannelLogoutUri: uri }), 400, 'VALIDATION_FAILED')
      expect([uri, refused.attributs]).toEqual([
        uri,
        [{ field: 'oidc.backchannelLogoutUri', message: 'validation.clientUri' }],
      ])
    }
    const redirect = await expectError(
      await application({ redirectUris: ['https://rp.example.test/cb', 'https://192.168.0.1/cb'] }),
      400,
      'VALIDATION_FAILED',
    )
    expect(redirect.attributs).toEqual([{ field: 'oidc.redirectUris.1', message: 'validation.clientUri' }])
  })

  it('on this machine are accepted in development and tests only', async () => {
    const local = { backchannelLogoutUri: 'http://localhost:9999/bc', initiateLoginUri: 'https://127.0.0.1/login' }
    expect((await application(local)).status).toBe(201)
    const production = await expectError(
      await application(local, { ENVIRONMENT: 'production' }),
      400,
      'VALIDATION_FAILED',
    )
    expect(production.attributs).toEqual([
      { field: 'oidc.initiateLoginUri', message: 'validation.clientUriLocal' },
      { field: 'oidc.backchannelLogoutUri', message: 'validation.clientUriLocal' },
    ])
  })

  it('are refused by dynamic registration alike', async () => {
    const register = (body: Record<string, unknown>, env?: Record<string, string>) =>
      call('/oidc/register', {
        method: 'POST',
        token: root,
        env,
        body: JSON.stringify({ client_name: `Dyn ${crypto.randomUUID().slice(0, 8)}`, ...body }),
      })
    const redirect = await register({ redirect_uris: ['https://10.1.2.3/cb'] })
    expect([redirect.status, await oauthErrorCode(redirect)]).toEqual([400, 'invalid_redirect_uri'])
    const backchannel = await register({
      redirect_uris: ['https://rp.example.test/cb'],
      backchannel_logout_uri: 'https://169.254.169.254/',
    })
    expect([backchannel.status, await oauthErrorCode(backchannel)]).toEqual([400, 'invalid_client_metadata'])
    const loopback = await register({ redirect_uris: ['http://localhost:3000/cb'] }, { ENVIRONMENT: 'production' })
    expect([loopback.status, await oauthErrorCode(loopback)]).toEqual([400, 'invalid_redirect_uri'])
    expect((await register({ redirect_uris: ['http://localhost:3000/cb'] })).status).toBe(201)
  })

  it('receive no back-channel logout outside a public https host, even registered before the rule', () => {
    for (const uri of [...SPECIAL, ...LOOPBACK]) {
      expect([uri, deliverable({ ENVIRONMENT: 'production' }, uri)]).toEqual([uri, false])
    }
    expect(deliverable({ ENVIRONMENT: 'production' }, 'https://rp.example.test/bc')).toBe(true)
  })
})

describe('dynamic registration and the size of bodies', () => {
  const register = (body: string, token?: string) =>
    call('/oidc/register', { method: 'POST', token, body, headers: { 'Content-Type': 'application/json' } })

  it('judges the caller before the body: 401 anonymous, 403 insufficient_scope for anyone but a root administrator', async () => {
    const agent = await signedInAgent()
    const lilleAdmin = await signedInUser({ admin: true, postes: [currentPost(4, 2)] })
    for (const body of ['not json', '{"redirect_uris": "nope"}', '{}']) {
      const anonymous = await register(body)
      expect([body, anonymous.status, await oauthErrorCode(anonymous)]).toEqual([body, 401, 'invalid_token'])
      for (const token of [agent.accessToken, lilleAdmin.jwt.accessToken]) {
        const refused = await register(body, token)
        expect([body, refused.status, await oauthErrorCode(refused)]).toEqual([body, 403, 'insufficient_scope'])
        expect(refused.headers.get('WWW-Authenticate')).toBe('Bearer error="insufficient_scope"')
      }
    }
    // A root administrator's bad body is what is wrong with it.
    const bad = await register('{"redirect_uris": "nope"}', root)
    expect([bad.status, await oauthErrorCode(bad)]).toEqual([400, 'invalid_client_metadata'])
  })

  it('answers 413 to a body over 64 KiB before reading it, as OAuth does on its endpoints', async () => {
    const large = JSON.stringify({ redirect_uris: ['https://rp.example.test/cb'], client_name: 'x'.repeat(5_000_000) })
    const response = await register(large, root)
    expect([response.status, await oauthErrorCode(response)]).toEqual([413, 'invalid_request'])
  })

  it('answers 413 REQUEST_TOO_LARGE to any call of the API over 64 KiB, announced or streamed; 64 KiB pass', async () => {
    const body = (size: number) => JSON.stringify({ identifiant: 'x'.repeat(size), motDePasse: 'x', captcha: 'x' })
    const overhead = body(0).length
    const at = await call('/rest/public/bd/login', { method: 'POST', body: body(64 * 1024 - overhead) })
    expect(at.status).not.toBe(413)
    const over = await call('/rest/public/bd/login', { method: 'POST', body: body(64 * 1024 - overhead + 1) })
    const refused = await expectError(over, 413, 'REQUEST_TOO_LARGE')
    expect(refused.attributs).toEqual([65_536])
    const streamed = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 20; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(4096)))
        controller.close()
      },
    })
    await expectError(
      await call('/rest/public/bd/login', { method: 'POST', body: streamed, duplex: 'half' } as RequestInit),
      413,
      'REQUEST_TOO_LARGE',
    )
  })

  it('gives no CORS to registration (a bearer call of administrators, not of browser clients)', async () => {
    const preflight = await call('/oidc/register', {
      method: 'OPTIONS',
      headers: { Origin: RP_ORIGIN, 'Access-Control-Request-Method': 'POST' },
    })
    expect(preflight.headers.get('Access-Control-Allow-Origin')).toBeNull()
    const token = await call('/oidc/token', {
      method: 'OPTIONS',
      headers: { Origin: RP_ORIGIN, 'Access-Control-Request-Method': 'POST' },
    })
    expect(token.headers.get('Access-Control-Allow-Origin')).toBe('*')
  })
})
