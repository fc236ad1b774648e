import { createLocalJWKSet, type JWTPayload, jwtVerify } from 'jose'
import { expect } from 'vitest'
import type { AuthorizationRequest } from '../../worker-api/contract/oidc/oidc'
import { base64url, randomToken } from '../../worker-api/lib/crypto'
import { api, okBody } from './client'
import { call, createOidcClient, db, ORIGIN } from './helpers'
import { oauthErrorCode, tokenBody } from './oauth-answers'

/**
 * The OpenID Connect code flow as a client's back end runs it, in raw HTTP (the authorization decision
 * the portal's page asks for, then the token endpoint), for the tests that pin what ends or refuses a
 * session. `tests/api/oidc/oidc.test.ts` drives the same flow with openid-client.
 */

export const REDIRECT = 'https://rp.example.test/callback'

export type Client = { id: number; clientId: string; secret: string }

/**
 * A confidential client granted to `fonctionId` (the agents' function of `createOrganisation` by
 * default), told of ended sessions by back-channel logout. Its address is one the tests' Worker does not
 * post to (https): what is observed is the logout the session's end made due, not the network.
 */
export async function confidentialClient(libelle: string, fonctionId = 2): Promise<Client> {
  const clientId = `client-${randomToken(8)}`
  const secret = randomToken()
  const id = await createOidcClient({ libelle, clientId, secret, redirectUri: REDIRECT, fonctionId })
  await db()
    .updateTable('oidc_client')
    .set({ backchannel_logout_uri: 'https://rp.example.test/backchannel' })
    .where('application_id', '=', id)
    .execute()
  return { id, clientId, secret }
}

/** An authorization request's parameters with a fresh S256 PKCE pair. */
export async function authorizationParams(client: Client, extra: Record<string, string> = {}) {
  const verifier = randomToken(32)
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)))
  const params = {
    client_id: client.clientId,
    redirect_uri: REDIRECT,
    response_type: 'code',
    scope: 'openid profile email',
    state: randomToken(8),
    nonce: randomToken(8),
    code_challenge: base64url(digest),
    code_challenge_method: 'S256',
    ...extra,
  }
  return { params, verifier }
}

/** The portal's decision for the bearer of a portal access token (what its /oidc/authorize page asks). */
export async function authorizeAs(accessToken: string, params: AuthorizationRequest) {
  const answer = await okBody(api(accessToken).rest.bd.oidc.authorize.$post({ json: params }))
  expect(answer.action).toBe('redirect')
  if (answer.action !== 'redirect') throw new Error(`not a redirect: ${JSON.stringify(answer)}`)
  return new URL(answer.url)
}

/** A code issued to `client` for the bearer of a portal access token, and its PKCE verifier. */
export async function codeFor(accessToken: string, client: Client) {
  const { params, verifier } = await authorizationParams(client)
  const back = await authorizeAs(accessToken, params)
  const code = back.searchParams.get('code')
  if (!code) throw new Error(`no code: ${back}`)
  return { code, verifier }
}

/** A token request, form-encoded, the client authenticated by HTTP Basic. */
export function tokenCall(client: Client, fields: Record<string, string>, origin = ORIGIN) {
  return call('/oidc/token', {
    method: 'POST',
    origin,
    body: new URLSearchParams(fields).toString(),
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${btoa(`${client.clientId}:${client.secret}`)}`,
    },
  })
}

export const exchange = (client: Client, code: { code: string; verifier: string }, origin = ORIGIN) =>
  tokenCall(
    client,
    { grant_type: 'authorization_code', code: code.code, redirect_uri: REDIRECT, code_verifier: code.verifier },
    origin,
  )

export const refreshGrant = (client: Client, refreshToken: string) =>
  tokenCall(client, { grant_type: 'refresh_token', refresh_token: refreshToken })

export type OidcTokens = { access_token: string; refresh_token: string; id_token: string; sid: string }

/** A token endpoint's answer that must be tokens: them, with the session (`sid`) their ID token names. */
export async function tokensOf(response: Response): Promise<OidcTokens> {
  const tokens = await tokenBody(response)
  const claims = await verifiedIdToken(tokens.id_token)
  return { ...tokens, sid: claims.sid as string }
}

/** An OpenID Connect session of `client` opened from the portal session of `accessToken`. */
export async function oidcSession(accessToken: string, client: Client): Promise<OidcTokens> {
  return tokensOf(await exchange(client, await codeFor(accessToken, client)))
}

/** An ID token's claims, its signature checked against the published keys. */
export async function verifiedIdToken(idToken: string): Promise<JWTPayload> {
  const keys = createLocalJWKSet(await (await call('/oidc/jwks')).json())
  return (await jwtVerify(idToken, keys, { issuer: ORIGIN })).payload
}

/** An OAuth error answer's status and code. */
export async function oauthError(response: Response) {
  return [response.status, await oauthErrorCode(response)]
}

/** Whether the session `sid` of `client` has a back-channel logout due (its client is to be told). */
export async function logoutDue(sid: string, client: Client) {
  const row = await db()
    .selectFrom('logout_delivery')
    .select(['application_id'])
    .where('family_id', '=', sid)
    .executeTakeFirst()
  return row?.application_id === client.id
}

/** UserInfo's status for an OpenID Connect access token. */
export const userinfoStatus = async (accessToken: string) =>
  (await call('/oidc/userinfo', { token: accessToken })).status
