import { env } from 'cloudflare:test'
import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose'
import * as client from 'openid-client'
import { beforeAll, describe, expect, it } from 'vitest'
import { DEVICE_CODE_GRANT } from '../../../worker-api/contract/oidc/oidc'
import { backgroundContext } from '../../../worker-api/lib/context'
import { atHash } from '../../../worker-api/lib/oidc-keys'
import { deliverable } from '../../../worker-api/services/core/outbound'
import { deliverLogouts } from '../../../worker-api/services/oidc/backchannel'
import { api, okBody } from '../client'
import {
  browserCookieOf,
  call,
  createOrganisation,
  createUser,
  currentPost,
  db,
  expectError,
  ORIGIN,
  sessionFor,
  signedInUser,
  withFrozenClock,
} from '../helpers'
import { jwksBody, oauthErrorCode, tokenBody } from '../oauth-answers'
import {
  authorizationRequest,
  authorizeAs,
  authorizeCall,
  confidentialRp,
  REDIRECT,
  redirectOf,
  oidcApplication as rpApplication,
  codeFlow as rpCodeFlow,
  rpOptions,
  signedInAgent,
  tokenCall,
  worker_,
} from '../oidc-rp'

/**
 * The OpenID Connect provider (DESIGN §4b) driven by a real relying party, openid-client 6: discovery,
 * the authorization (the portal's session reused), the code exchanged with PKCE, the ID token checked
 * against the JWKS, UserInfo, refresh — and what must be refused.
 */

let root: string
let app: { id: number; clientId: string; clientSecret: string }
let publicApp: { id: number; clientId: string }
let logoutApp: { id: number; clientId: string; clientSecret: string }
const BACKCHANNEL = 'http://localhost:9999/backchannel'
const BYE = 'https://rp.example.test/bye'

/** An OIDC application of the catalogue, created by the root administrator, granted to the agents. */
const oidcApplication = (libelle: string, oidc: Parameters<typeof rpApplication>[2]) =>
  rpApplication(root, libelle, oidc)

const confidential = () => confidentialRp(app)

/** The whole code flow for `user` (the confidential client's, unless another is given). */
async function codeFlow(user: { accessToken: string }, config?: client.Configuration) {
  return rpCodeFlow(user, config ?? (await confidential()))
}

beforeAll(async () => {
  await createOrganisation()
  root = (await signedInUser({ admin: true, postes: [currentPost(1, 1)] })).jwt.accessToken
  app = await oidcApplication('Grafana', { public: false })
  publicApp = await oidcApplication('Tableau mobile', { public: true })
  logoutApp = await oidcApplication('Outline', {
    public: false,
    postLogoutRedirectUris: [BYE],
    backchannelLogoutUri: BACKCHANNEL,
  })
})

describe('discovery and keys', () => {
  it('publishes the metadata at the origin, with the issuer byte for byte, and the JWKS', async () => {
    const response = await worker_(`${ORIGIN}/.well-known/openid-configuration`)
    expect(response.status).toBe(200)
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe('*')
    expect(await response.json()).toMatchObject({
      issuer: ORIGIN,
      authorization_endpoint: `${ORIGIN}/oidc/authorize`,
      token_endpoint: `${ORIGIN}/portail-backend/oidc/token`,
      userinfo_endpoint: `${ORIGIN}/portail-backend/oidc/userinfo`,
      jwks_uri: `${ORIGIN}/portail-backend/oidc/jwks`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      id_token_signing_alg_values_supported: ['ES256'],
      // private_key_jwt: service accounts' client credentials (tests/api/machines/service-accounts.test.ts).
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials', DEVICE_CODE_GRANT],
      scopes_supported: ['openid', 'profile', 'email', 'postes'],
    })
    // Another host the Worker serves is another issuer.
    const other = await worker_('https://portail.example.org/.well-known/openid-configuration')
    expect(await other.json()).toMatchObject({ issuer: 'https://portail.example.org' })
    const keys = await jwksBody(await worker_(`${ORIGIN}/portail-backend/oidc/jwks`))
    expect(keys.keys).toHaveLength(1)
    expect(keys.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' })
    expect(keys.keys[0]).not.toHaveProperty('d')
  })

  it('publishes the next key beside the current one during a rotation', async () => {
    const next =
      '{"kty":"EC","x":"2AS_Kukw6QCT9oR2Yq9_W81LGdtuWUnmhH1pj7B7U2g","y":"7bIBPOV7VGsurm7Kybrjtn-l7-KTMrc1CK5j_FKigFw","crv":"P-256","d":"4mlRGuYBjpAcO4x7lxqKGDEYJlTL8sTNQx7J86dVEL0"}'
    const response = await call('/oidc/jwks', { env: { OIDC_SIGNING_KEY_NEXT: next } })
    const { keys } = await jwksBody(response)
    expect(keys).toHaveLength(2)
    expect(new Set(keys.map((k) => k.kid)).size).toBe(2)
  })

  it('is off without a signing key', async () => {
    const response = await call('/oidc/jwks', { env: { OIDC_SIGNING_KEY: undefined } })
    expect(response.status).toBe(404)
  })
})

describe('the code flow with openid-client', () => {
  it('signs a user in: a code for the portal session, an ID token verified against the JWKS, UserInfo', async () => {
    const agent = await signedInAgent()
    const { tokens, request, callback } = await codeFlow(agent)
    expect(callback.searchParams.get('iss')).toBe(ORIGIN)
    const claims = tokens.claims() as Record<string, unknown>
    expect(claims).toMatchObject({
      iss: ORIGIN,
      aud: app.clientId,
      sub: String(agent.id),
      nonce: request.nonce,
      preferred_username: agent.login,
      email: `${agent.login}@example.test`,
      email_verified: true,
    })
    expect(claims.at_hash).toBe(await atHash(tokens.access_token))
    expect(typeof claims.auth_time).toBe('number')
    expect(typeof claims.sid).toBe('string')
    // Verified again here, against the published keys.
    const keys = createLocalJWKSet(await (await worker_(`${ORIGIN}/portail-backend/oidc/jwks`)).json())
    const verified = await jwtVerify(tokens.id_token as string, keys, { issuer: ORIGIN, audience: app.clientId })
    expect(verified.protectedHeader.alg).toBe('ES256')
    expect(tokens.token_type.toLowerCase()).toBe('bearer')
    expect(tokens.expires_in).toBe(300)

    const info = await client.fetchUserInfo(await confidential(), tokens.access_token, String(agent.id))
    expect(info).toMatchObject({
      sub: String(agent.id),
      name: `Prenom${agent.login.slice(4)} Nom${agent.login.slice(4)}`,
      preferred_username: agent.login,
      locale: 'fr',
      postes: [{ structure: { id: 4, nom: 'Agence Lille' }, fonction: { id: 2, libelle: 'Agent de quai' } }],
    })
    // The code is audited as a launch of the application.
    const entry = await db()
      .selectFrom('log')
      .select(['type_log', 'nom_log'])
      .where('utilisateur_id', '=', agent.id)
      .executeTakeFirstOrThrow()
    expect(entry).toEqual({ type_log: 'APPLICATION', nom_log: 'Grafana' })
  })

  it('refreshes with rotation; the ID token keeps the sign-in time and carries no nonce', async () => {
    const agent = await signedInAgent()
    const { rp, tokens } = await codeFlow(agent)
    const refreshed = await client.refreshTokenGrant(rp, tokens.refresh_token as string)
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token)
    const first = tokens.claims() as Record<string, unknown>
    const again = refreshed.claims() as Record<string, unknown>
    expect([again.auth_time, again.sid, again.sub, again.nonce]).toEqual([
      first.auth_time,
      first.sid,
      first.sub,
      undefined,
    ])
    await expect(client.fetchUserInfo(rp, refreshed.access_token, String(agent.id))).resolves.toMatchObject({
      sub: String(agent.id),
    })
  })

  it('a public client signs in with PKCE alone, and client_secret_post works for a confidential one', async () => {
    const agent = await signedInAgent()
    const pub = await client.discovery(new URL(ORIGIN), publicApp.clientId, undefined, client.None(), rpOptions)
    const { tokens } = await codeFlow(agent, pub)
    expect(tokens.claims()?.aud).toBe(publicApp.clientId)
    const post = await client.discovery(new URL(ORIGIN), app.clientId, app.clientSecret, undefined, rpOptions)
    await expect(codeFlow(agent, post)).resolves.toBeTruthy()
  })
})

describe('lifetimes (README, OpenID Connect)', () => {
  it('a code lives 60 seconds, an ID token 5 minutes; the session never outlives the portal session', async () => {
    const agent = await signedInAgent()
    const rp = await confidential()
    const basic = `Basic ${btoa(`${app.clientId}:${app.clientSecret}`)}`
    const exchange = (code: string, verifier: string) =>
      tokenCall({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }, basic)
    const codeOf = async () => {
      const request = await authorizationRequest(rp)
      const decided = await redirectOf(agent.accessToken, request.url)
      return { code: decided.searchParams.get('code') as string, verifier: request.verifier }
    }
    await withFrozenClock(async (clock) => {
      const late = await codeOf()
      const inTime = await codeOf()
      clock.advance(59)
      const accepted = await exchange(inTime.code, inTime.verifier)
      expect(accepted.status).toBe(200)
      const { id_token } = await tokenBody(accepted)
      const claims = decodeJwt(id_token)
      expect((claims.exp as number) - (claims.iat as number)).toBe(300)
      clock.advance(2)
      const expired = await exchange(late.code, late.verifier)
      expect([expired.status, await oauthErrorCode(expired)]).toEqual([400, 'invalid_grant'])
    })
    const [portal, oidc] = await Promise.all([
      db()
        .selectFrom('refresh_token')
        .select('family_expires_at')
        .where('family_id', '=', agent.sid)
        .executeTakeFirstOrThrow(),
      db()
        .selectFrom('refresh_token')
        .select(['family_expires_at', 'expires_at', 'created_at'])
        .where('parent_family_id', '=', agent.sid)
        .executeTakeFirstOrThrow(),
    ])
    expect(oidc.family_expires_at).toBe(portal.family_expires_at)
    expect(Date.parse(oidc.expires_at) - Date.parse(oidc.created_at)).toBe(30 * 60_000)
  })
})

describe('what is refused', () => {
  it('a wrong or missing PKCE verifier, a replayed code (which revokes what it issued), an expired code', async () => {
    const agent = await signedInAgent()
    const rp = await confidential()
    const wrong = await authorizationRequest(rp)
    const decided = await redirectOf(agent.accessToken, wrong.url)
    await expect(
      client.authorizationCodeGrant(rp, decided, {
        pkceCodeVerifier: client.randomPKCECodeVerifier(),
        expectedState: wrong.state,
        expectedNonce: wrong.nonce,
      }),
    ).rejects.toMatchObject({ error: 'invalid_grant' })
    const missing = await authorizationRequest(rp)
    const withoutVerifier = await tokenCall(
      {
        grant_type: 'authorization_code',
        code: (await redirectOf(agent.accessToken, missing.url)).searchParams.get('code') as string,
        redirect_uri: REDIRECT,
      },
      `Basic ${btoa(`${app.clientId}:${app.clientSecret}`)}`,
    )
    expect([withoutVerifier.status, await oauthErrorCode(withoutVerifier)]).toEqual([400, 'invalid_request'])
    expect(await oidcSessionsOf(agent.sid)).toEqual([])

    const { tokens, callback } = await codeFlow(agent, rp)
    const replay = await tokenCall(
      {
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code') as string,
        redirect_uri: REDIRECT,
        code_verifier: 'x'.repeat(43),
      },
      `Basic ${btoa(`${app.clientId}:${app.clientSecret}`)}`,
    )
    expect([replay.status, await oauthErrorCode(replay)]).toEqual([400, 'invalid_grant'])
    // What the code issued is revoked: its refresh token no longer works.
    await expect(client.refreshTokenGrant(rp, tokens.refresh_token as string)).rejects.toMatchObject({
      error: 'invalid_grant',
    })

    const late = await authorizationRequest(rp)
    const lateDecision = await redirectOf(agent.accessToken, late.url)
    await db()
      .updateTable('oidc_code')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('used_at', 'is', null)
      .execute()
    await expect(
      client.authorizationCodeGrant(rp, lateDecision, {
        pkceCodeVerifier: late.verifier,
        expectedState: late.state,
        expectedNonce: late.nonce,
      }),
    ).rejects.toMatchObject({ error: 'invalid_grant' })
  })

  it('two exchanges of one code at once open one session', async () => {
    const agent = await signedInAgent()
    const rp = await confidential()
    const request = await authorizationRequest(rp)
    const code = (await redirectOf(agent.accessToken, request.url)).searchParams.get('code') as string
    const basic = `Basic ${btoa(`${app.clientId}:${app.clientSecret}`)}`
    const form = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: request.verifier }
    const answers = await Promise.all([tokenCall(form, basic), tokenCall(form, basic)])
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400])
    const sessions = await db()
      .selectFrom('refresh_token')
      .select('family_id')
      .where('parent_family_id', '=', agent.sid)
      .execute()
    expect(sessions).toHaveLength(1)
  })

  it('a redirect URI that differs at the token endpoint, a wrong secret (audited), an unknown client', async () => {
    const agent = await signedInAgent()
    const rp = await confidential()
    const request = await authorizationRequest(rp)
    const decided = await redirectOf(agent.accessToken, request.url)
    const code = decided.searchParams.get('code') as string
    const basic = `Basic ${btoa(`${app.clientId}:${app.clientSecret}`)}`
    const mismatch = await tokenCall(
      {
        grant_type: 'authorization_code',
        code,
        redirect_uri: 'https://rp.example.test/other',
        code_verifier: request.verifier,
      },
      basic,
    )
    expect([mismatch.status, await oauthErrorCode(mismatch)]).toEqual([400, 'invalid_grant'])

    const wrongSecret = await tokenCall(
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: request.verifier },
      `Basic ${btoa(`${app.clientId}:not-the-secret`)}`,
    )
    expect(wrongSecret.status).toBe(401)
    expect(wrongSecret.headers.get('WWW-Authenticate')).toBe('Basic realm="portail"')
    expect(await oauthErrorCode(wrongSecret)).toBe('invalid_client')
    const audited = await db()
      .selectFrom('log')
      .select(['nom_log', 'commentaire'])
      .where('commentaire', 'like', '%OpenID Connect refusée%')
      .executeTakeFirst()
    expect(audited?.nom_log).toBe('Grafana')
    expect(audited?.commentaire).toContain('1 échec')

    const unknown = await tokenCall({
      grant_type: 'authorization_code',
      code,
      client_id: 'nobody',
      redirect_uri: REDIRECT,
      code_verifier: request.verifier,
    })
    expect([unknown.status, await oauthErrorCode(unknown)]).toEqual([401, 'invalid_client'])
    const grantType = await tokenCall({ grant_type: 'password' }, basic)
    expect([grantType.status, await oauthErrorCode(grantType)]).toEqual([400, 'unsupported_grant_type'])
  })

  it('a code issued to one client is refused to another that authenticates correctly, confidential or public, with the same redirect URI and verifier', async () => {
    const agent = await signedInAgent()
    const rp = await confidential()
    const request = await authorizationRequest(rp)
    const code = (await redirectOf(agent.accessToken, request.url)).searchParams.get('code') as string
    // Everything the code was issued with, but the client: Outline and the public client register the same address.
    const form = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: request.verifier }
    const asOutline = await tokenCall(form, `Basic ${btoa(`${logoutApp.clientId}:${logoutApp.clientSecret}`)}`)
    expect([asOutline.status, await oauthErrorCode(asOutline)]).toEqual([400, 'invalid_grant'])
    const asPublic = await tokenCall({ ...form, client_id: publicApp.clientId })
    expect([asPublic.status, await oauthErrorCode(asPublic)]).toEqual([400, 'invalid_grant'])
    expect(await oidcSessionsOf(agent.sid)).toEqual([])
  })

  it('a user whose current posts do not grant the application: access_denied, back to the client', async () => {
    const elsewhere = await createUser({ postes: [currentPost(3, 3)] })
    const session = await sessionFor(elsewhere.id)
    const rp = await confidential()
    const request = await authorizationRequest(rp)
    const back = await redirectOf(session.accessToken, request.url)
    expect([back.origin + back.pathname, back.searchParams.get('error'), back.searchParams.get('state')]).toEqual([
      REDIRECT,
      'access_denied',
      request.state,
    ])
    expect(
      await db().selectFrom('oidc_code').select('id').where('utilisateur_id', '=', elsewhere.id).execute(),
    ).toEqual([])
  })

  it('a user deactivated by an administrator, or whose grant the catalogue removes, between two refreshes: the next refresh fails and revokes the session, which the grant given back does not revive', async () => {
    const agent = await signedInAgent()
    const { rp, tokens } = await codeFlow(agent)
    const deactivated = await call('/rest/bd/utilisateur/state', {
      method: 'PUT',
      token: root,
      body: JSON.stringify({ id: agent.id, actif: false }),
    })
    expect(deactivated.status).toBe(200)
    await expect(client.refreshTokenGrant(rp, tokens.refresh_token as string)).rejects.toMatchObject({
      error: 'invalid_grant',
    })

    const other = await signedInAgent()
    const second = await codeFlow(other)
    const refreshed = await client.refreshTokenGrant(rp, second.tokens.refresh_token as string)
    const grants = (fonctions: { id: number }[]) =>
      call('/rest/bd/application', {
        method: 'PUT',
        token: root,
        body: JSON.stringify({
          id: app.id,
          libelle: 'Grafana',
          icone: 'scale',
          url: 'https://rp.example.test/',
          actif: true,
          fonctions,
        }),
      })
    expect((await grants([])).status).toBe(200)
    try {
      await expect(client.refreshTokenGrant(rp, refreshed.refresh_token as string)).rejects.toMatchObject({
        error: 'invalid_grant',
      })
    } finally {
      expect((await grants([{ id: 2 }])).status).toBe(200)
    }
    // Granted again: the session that refresh ended stays ended, its access token reads no UserInfo.
    await expect(client.refreshTokenGrant(rp, refreshed.refresh_token as string)).rejects.toMatchObject({
      error: 'invalid_grant',
    })
    expect((await call('/oidc/userinfo', { token: refreshed.access_token })).status).toBe(401)
    // A new sign-in of the same user is granted again.
    await expect(codeFlow(other)).resolves.toBeTruthy()
  })

  it('an unknown client or an unregistered redirect URI: 400 for the page, never a redirect', async () => {
    const agent = await signedInAgent()
    const rp = await confidential()
    const request = await authorizationRequest(rp, { redirect_uri: 'https://evil.example.test/cb' })
    // A refusal, read as one (authorizeAs reads a decision).
    const authorize = (url: URL) =>
      call('/rest/bd/oidc/authorize', {
        method: 'POST',
        token: agent.accessToken,
        body: JSON.stringify(Object.fromEntries(url.searchParams)),
      })
    await expectError(await authorize(request.url), 400, 'OIDC_REDIRECT_URI_MISMATCH')
    const unknown = new URL(request.url)
    unknown.searchParams.set('client_id', 'nobody')
    unknown.searchParams.set('redirect_uri', REDIRECT)
    await expectError(await authorize(unknown), 400, 'OIDC_UNKNOWN_CLIENT')
  })

  it('prompt=login, an old sign-in under max_age, another login hinted: sign in again first (prompt=none: login_required)', async () => {
    const agent = await signedInAgent()
    const rp = await confidential()
    const asks: Record<string, string>[] = [{ prompt: 'login' }, { max_age: '0' }, { login_hint: 'quelquun-dautre' }]
    for (const extra of asks) {
      const { url } = await authorizationRequest(rp, extra)
      expect(await authorizeAs(agent.accessToken, url), JSON.stringify(extra)).toEqual({
        action: 'login',
        libelle: 'Grafana',
      })
    }
    // Recent enough, or the right login: no new sign-in.
    const { url: recent } = await authorizationRequest(rp, { max_age: '3600', login_hint: agent.login })
    expect((await authorizeAs(agent.accessToken, recent)).action).toBe('redirect')
    const { url: silent } = await authorizationRequest(rp, { prompt: 'none', max_age: '0' })
    const back = await redirectOf(agent.accessToken, silent)
    expect(back.searchParams.get('error')).toBe('login_required')
  })

  it('the page sends a user asked to sign in again to the login form, and back without asking again', async () => {
    const agent = await signedInAgent()
    const rp = await confidential()
    const { url } = await authorizationRequest(rp, { prompt: 'login', max_age: '0' })
    const cookie = await browserCookieOf(agent)
    const response = await worker_(url, { headers: { Cookie: cookie }, redirect: 'manual' })
    expect(response.status).toBe(302)
    const login = new URL(response.headers.get('Location') as string, ORIGIN)
    expect([login.pathname, login.searchParams.get('reauth')]).toEqual(['/login', '1'])
    const back = new URL(login.searchParams.get('redirect') as string, ORIGIN)
    expect([back.pathname, back.searchParams.has('prompt'), back.searchParams.has('max_age')]).toEqual([
      '/oidc/authorize',
      false,
      false,
    ])
    // The login page shows its form even though a session is open.
    const form = await worker_(`${ORIGIN}${login.pathname}${login.search}`, {
      headers: { Cookie: cookie, 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'navigate' },
    })
    expect(await form.text()).toContain('id="login"')
  })

  it('UserInfo answers a POST too, and refuses the portal’s own access token', async () => {
    const agent = await signedInAgent()
    const { tokens } = await codeFlow(agent)
    const posted = await call('/oidc/userinfo', { method: 'POST', token: tokens.access_token })
    expect(posted.status).toBe(200)
    expect(await posted.json()).toMatchObject({ sub: String(agent.id) })
    const portal = await call('/oidc/userinfo', { token: agent.accessToken })
    expect(portal.status).toBe(401)
    expect(portal.headers.get('WWW-Authenticate')).toMatch(/^Bearer error="invalid_token"/)
  })

  it('a request without PKCE, or without openid: an error for the client', async () => {
    const agent = await signedInAgent()
    const rp = await confidential()
    const { url } = await authorizationRequest(rp)
    url.searchParams.delete('code_challenge')
    const decided = await redirectOf(agent.accessToken, url)
    expect(decided.searchParams.get('error')).toBe('invalid_request')
    const { url: noOpenid } = await authorizationRequest(rp, { scope: 'profile' })
    expect((await redirectOf(agent.accessToken, noOpenid)).searchParams.get('error')).toBe('invalid_scope')
  })

  it('limits each client to 120 authenticated token requests a minute (README), the next one answered 429 with its wait', async () => {
    const limited = await oidcApplication('Limité', { public: false })
    const form = { grant_type: 'refresh_token', refresh_token: 'inconnu' }
    const own = `Basic ${btoa(`${limited.clientId}:${limited.clientSecret}`)}`
    await withFrozenClock(
      async (clock) => {
        for (let i = 0; i < 120; i++) expect((await tokenCall(form, own)).status).toBe(400)
        const refused = await tokenCall(form, own)
        expect(refused.status).toBe(429)
        expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(0)
        // Another client is not held back by this one.
        const other = await tokenCall({ ...form, client_id: publicApp.clientId })
        expect(other.status).toBe(400)
        clock.advance(60)
        expect((await tokenCall(form, own)).status).toBe(400)
      },
      new Date(Math.floor(Date.now() / 60_000) * 60_000 + 1000),
    )
  })

  it("another host's user gets no code here", async () => {
    const stranger = await createUser({ postes: [currentPost(4, 2)], domain: 'https://autre.example.test' })
    const session = await sessionFor(stranger.id)
    const rp = await confidential()
    const { url } = await authorizationRequest(rp)
    expect((await authorizeCall(session.accessToken, url)).status).toBe(403)
  })
})

describe('the authorization page', () => {
  it('reuses the portal session: a redirect to the client with a code that openid-client exchanges', async () => {
    const agent = await signedInAgent()
    const rp = await confidential()
    const request = await authorizationRequest(rp)
    const response = await worker_(request.url, {
      headers: { Cookie: await browserCookieOf(agent), 'Sec-Fetch-Site': 'cross-site' },
      redirect: 'manual',
    })
    expect(response.status).toBe(302)
    const location = new URL(response.headers.get('Location') as string)
    const tokens = await client.authorizationCodeGrant(rp, location, {
      pkceCodeVerifier: request.verifier,
      expectedState: request.state,
      expectedNonce: request.nonce,
    })
    expect(tokens.claims()?.sub).toBe(String(agent.id))
  })

  it('sends an anonymous visitor to /login and back; prompt=none answers login_required to the client', async () => {
    const rp = await confidential()
    const request = await authorizationRequest(rp)
    const anonymous = await worker_(request.url, { redirect: 'manual' })
    expect(anonymous.status).toBe(302)
    const login = new URL(anonymous.headers.get('Location') as string, ORIGIN)
    expect(login.pathname).toBe('/login')
    expect(login.searchParams.get('redirect')).toBe(`${request.url.pathname}${request.url.search}`)

    const silent = await authorizationRequest(rp, { prompt: 'none' })
    const none = await worker_(silent.url, { redirect: 'manual' })
    const back = new URL(none.headers.get('Location') as string)
    expect([back.origin + back.pathname, back.searchParams.get('error'), back.searchParams.get('state')]).toEqual([
      REDIRECT,
      'login_required',
      silent.state,
    ])
  })

  it('says an unknown client or an unregistered redirect URI on the page, to a visitor signed in or not', async () => {
    const rp = await confidential()
    const { url } = await authorizationRequest(rp, { redirect_uri: 'https://evil.example.test/cb' })
    const unknown = new URL((await authorizationRequest(rp)).url)
    unknown.searchParams.set('client_id', 'nobody')
    const cookie = await browserCookieOf(await signedInAgent())
    for (const [address, said] of [
      [url, 'L&#x27;adresse de retour demandée n&#x27;est pas enregistrée'],
      [unknown, 'Cette application n&#x27;est pas connue du portail'],
    ] as const) {
      for (const headers of [{}, { Cookie: cookie }] as Record<string, string>[]) {
        const page = await worker_(address, { headers, redirect: 'manual' })
        const visitor = `${address.searchParams.get('client_id')}, ${'Cookie' in headers ? 'signed in' : 'anonymous'}`
        expect([page.status, page.headers.get('Location')], visitor).toEqual([400, null])
        expect(await page.text(), visitor).toContain(said)
      }
    }
  })

  it('decodes the ID token the page led to (no token in the URL but the code)', async () => {
    const agent = await signedInAgent()
    const { callback, tokens } = await codeFlow(agent)
    expect([...callback.searchParams.keys()].sort()).toEqual(['code', 'iss', 'state'])
    expect(decodeJwt(tokens.id_token as string).iss).toBe(ORIGIN)
  })
})

describe('dynamic client registration and the launcher', () => {
  it('a root administrator registers a client with openid-client; it signs nobody in until granted', async () => {
    const registered = await client.dynamicClientRegistration(
      new URL(ORIGIN),
      { client_name: 'Metabase', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_basic' },
      undefined,
      { ...rpOptions, initialAccessToken: root },
    )
    const metadata = registered.clientMetadata()
    expect(metadata.client_id).toMatch(/^[A-Za-z0-9_-]{24}$/)
    expect(metadata.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const application = await db()
      .selectFrom('oidc_client as c')
      .innerJoin('application as a', 'a.id', 'c.application_id')
      .select(['a.id', 'a.libelle', 'a.protocole'])
      .where('c.client_id', '=', metadata.client_id)
      .executeTakeFirstOrThrow()
    expect([application.libelle, application.protocole]).toEqual(['Metabase', 'OIDC'])
    const agent = await signedInAgent()
    const request = await authorizationRequest(registered)
    expect((await redirectOf(agent.accessToken, request.url)).searchParams.get('error')).toBe('access_denied')
    // Granted by a root administrator: the same request signs the agent in.
    await db().insertInto('fonction_application').values({ fonction_id: 2, application_id: application.id }).execute()
    await expect(codeFlow(agent, registered)).resolves.toBeTruthy()
  })

  it('refuses anyone but a root administrator, and metadata the provider does not accept', async () => {
    const register = (body: unknown, token?: string) =>
      call('/oidc/register', { method: 'POST', token, body: JSON.stringify(body) })
    const metadata = { client_name: 'Refusé', redirect_uris: [REDIRECT] }
    expect((await register(metadata)).status).toBe(401)
    const lilleAdmin = await signedInUser({ admin: true, postes: [currentPost(4, 2)] })
    const refused = await register(metadata, lilleAdmin.jwt.accessToken)
    expect([refused.status, await oauthErrorCode(refused)]).toEqual([403, 'insufficient_scope'])
    const http = await register({ ...metadata, redirect_uris: ['http://rp.example.test/cb'] }, root)
    expect([http.status, await oauthErrorCode(http)]).toEqual([400, 'invalid_redirect_uri'])
    const implicit = await register({ ...metadata, response_types: ['token'] }, root)
    expect([implicit.status, await oauthErrorCode(implicit)]).toEqual([400, 'invalid_client_metadata'])
    const taken = await register({ ...metadata, client_name: 'Grafana' }, root)
    expect([taken.status, await oauthErrorCode(taken)]).toEqual([400, 'invalid_client_metadata'])
  })

  it('the launcher opens an OIDC application at its initiate-login address, with the issuer and the target, audited', async () => {
    const launched = await oidcApplication('Wiki', {
      public: true,
      initiateLoginUri: 'https://rp.example.test/login',
    })
    const agent = await signedInAgent()
    const { url, refreshToken } = await okBody(
      api(agent.accessToken).rest.bd.acces.application.$get({ query: { idApplication: launched.id } }),
    )
    expect(refreshToken).toBe('')
    const opened = new URL(url)
    expect([
      opened.origin + opened.pathname,
      opened.searchParams.get('iss'),
      opened.searchParams.get('target_link_uri'),
    ]).toEqual(['https://rp.example.test/login', ORIGIN, 'https://rp.example.test/'])
    const entry = await db()
      .selectFrom('log')
      .select(['type_log', 'nom_log'])
      .where('utilisateur_id', '=', agent.id)
      .executeTakeFirstOrThrow()
    expect(entry).toEqual({ type_log: 'APPLICATION', nom_log: 'Wiki' })
  })
})

describe('logout', () => {
  const logoutRp = () =>
    client.discovery(
      new URL(ORIGIN),
      logoutApp.clientId,
      logoutApp.clientSecret,
      client.ClientSecretBasic(logoutApp.clientSecret),
      rpOptions,
    )

  /** A receiver of back-channel logouts: what was posted, and where. */
  function receiver() {
    const received: { url: string; token: string; type: string | null }[] = []
    const fetcher = (async (url: string | URL | Request, init?: RequestInit) => {
      const body = new URLSearchParams(String(init?.body))
      received.push({
        url: String(url),
        token: body.get('logout_token') as string,
        type: new Headers(init?.headers).get('Content-Type'),
      })
      return new Response(null, { status: 200 })
    }) as typeof fetch
    return { received, fetcher }
  }

  it('RP-initiated: the portal session ends, the user goes back to the registered address; the client gets a signed logout token', async () => {
    const agent = await signedInAgent()
    const rp = await logoutRp()
    const { tokens } = await codeFlow(agent, rp)
    const sid = tokens.claims()?.sid
    const end = client.buildEndSessionUrl(rp, {
      id_token_hint: tokens.id_token as string,
      post_logout_redirect_uri: BYE,
      state: 'bye-state',
    })
    const response = await worker_(end, {
      headers: { Cookie: await browserCookieOf(agent), 'Sec-Fetch-Site': 'cross-site' },
      redirect: 'manual',
    })
    expect(response.status).toBe(302)
    expect(response.headers.get('Location')).toBe(`${BYE}?state=bye-state`)
    // Told at once (here by the test's receiver, before any other request could try the network).
    const { received, fetcher } = receiver()
    expect(await deliverLogouts(backgroundContext(env), { fetcher })).toEqual({ sent: 1, failed: 0 })
    expect(received).toHaveLength(1)
    expect(received[0]?.url).toBe(BACKCHANNEL)
    expect(received[0]?.type).toBe('application/x-www-form-urlencoded')
    const keys = createLocalJWKSet(await (await worker_(`${ORIGIN}/portail-backend/oidc/jwks`)).json())
    const { payload, protectedHeader } = await jwtVerify(received[0]?.token as string, keys, {
      issuer: ORIGIN,
      audience: logoutApp.clientId,
      typ: 'logout+jwt',
    })
    expect(protectedHeader.alg).toBe('ES256')
    expect(payload).toMatchObject({
      sub: String(agent.id),
      sid,
      events: { 'http://schemas.openid.net/event/backchannel-logout': {} },
    })
    expect(payload.nonce).toBeUndefined()
    expect(typeof payload.jti).toBe('string')
    expect((payload.exp as number) - (payload.iat as number)).toBeLessThanOrEqual(120)
    // Sent once: nothing more is due.
    expect(await deliverLogouts(backgroundContext(env), { fetcher })).toEqual({ sent: 0, failed: 0 })
    // The portal session and the application's are over.
    expect((await call('/rest/bd/session', { token: agent.accessToken })).status).toBe(401)
    await expect(client.refreshTokenGrant(rp, tokens.refresh_token as string)).rejects.toMatchObject({
      error: 'invalid_grant',
    })
  })

  it('a deactivation by an administrator ends the OIDC sessions too: a logout token is due, a failed delivery is retried later, the refresh is refused', async () => {
    const agent = await signedInAgent()
    const rp = await logoutRp()
    const { tokens } = await codeFlow(agent, rp)
    const deactivated = await call('/rest/bd/utilisateur/state', {
      method: 'PUT',
      token: root,
      body: JSON.stringify({ id: agent.id, actif: false }),
      // Its own attempt right after the answer is left out here (no signing key for this one request):
      // the test's receivers are asked first, as in the sign-out above.
      env: { OIDC_SIGNING_KEY: '' },
    })
    expect(deactivated.status).toBe(200)
    const failing = (async () => new Response('down', { status: 503 })) as unknown as typeof fetch
    expect(await deliverLogouts(backgroundContext(env), { fetcher: failing })).toEqual({ sent: 0, failed: 1 })
    const row = await db()
      .selectFrom('logout_delivery')
      .selectAll()
      .where('family_id', '=', tokens.claims()?.sid as string)
      .executeTakeFirstOrThrow()
    expect([row.attempts, row.last_error, row.sent_at]).toEqual([1, 'HTTP 503', null])
    // Due again a minute later.
    const { received, fetcher } = receiver()
    expect(await deliverLogouts(backgroundContext(env), { fetcher })).toEqual({ sent: 0, failed: 0 })
    expect(await deliverLogouts(backgroundContext(env), { fetcher, now: new Date(Date.now() + 61_000) })).toEqual({
      sent: 1,
      failed: 0,
    })
    expect(received).toHaveLength(1)
    expect(decodeJwt(received[0]?.token as string)).toMatchObject({ sub: String(agent.id), sid: tokens.claims()?.sid })
    await expect(client.refreshTokenGrant(rp, tokens.refresh_token as string)).rejects.toMatchObject({
      error: 'invalid_grant',
    })
  })

  it('without a hint of the signed-in user, asks first; an unregistered address is refused', async () => {
    const agent = await signedInAgent()
    const rp = await logoutRp()
    const asked = await worker_(client.buildEndSessionUrl(rp, {}), {
      headers: { Cookie: await browserCookieOf(agent) },
    })
    expect(asked.status).toBe(200)
    expect(await asked.text()).toContain('Outline demande à vous déconnecter du portail')
    expect((await call('/rest/bd/session', { token: agent.accessToken })).status).toBe(200)
    const refused = await worker_(
      client.buildEndSessionUrl(rp, { post_logout_redirect_uri: 'https://evil.example.test/' }),
      {
        headers: { Cookie: await browserCookieOf(agent) },
        redirect: 'manual',
      },
    )
    expect(refused.status).toBe(400)
    expect((await call('/rest/bd/session', { token: agent.accessToken })).status).toBe(200)
  })

  it('posts only to loopback in development and tests, only to https elsewhere', () => {
    expect(deliverable({ ENVIRONMENT: 'development' }, 'http://localhost:3000/bc')).toBe(true)
    expect(deliverable({ ENVIRONMENT: 'development' }, 'https://rp.example.test/bc')).toBe(false)
    expect(deliverable({ ENVIRONMENT: 'production' }, 'https://rp.example.test/bc')).toBe(true)
    expect(deliverable({ ENVIRONMENT: 'production' }, 'https://localhost/bc')).toBe(false)
    expect(deliverable({ ENVIRONMENT: 'production' }, 'http://rp.example.test/bc')).toBe(false)
  })
})

/** The OpenID Connect sessions opened from a portal session. */
const oidcSessionsOf = (sid: string) =>
  db().selectFrom('refresh_token').select('family_id').where('parent_family_id', '=', sid).execute()
