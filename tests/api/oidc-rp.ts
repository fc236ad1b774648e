import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test'
import * as client from 'openid-client'
import { expect } from 'vitest'
import type { z } from 'zod'
import worker from '../../server'
import type { AuthorizationRequest, oidcClientInputSchema } from '../../worker-api/contract/oidc/oidc'
import { api, okBody } from './client'
import { call, createUser, currentPost, sessionFor } from './helpers'

/**
 * A relying party for the provider's tests: openid-client 6 talking to the real Worker (API and pages
 * alike), and the steps of a code flow as a client and the portal's authorization page take them.
 */

export const REDIRECT = 'https://rp.example.test/callback'

/** Every request of the relying party goes to the real Worker. */
export async function worker_(url: string | URL | Request, init?: RequestInit): Promise<Response> {
  const request = new Request(url, init)
  const ctx = createExecutionContext()
  const response = await worker.fetch(request, env, ctx)
  const body = await response.arrayBuffer()
  await waitOnExecutionContext(ctx)
  return new Response(body, response)
}

export const rpOptions: client.DiscoveryRequestOptions = {
  execute: [client.allowInsecureRequests, client.enableNonRepudiationChecks],
  [client.customFetch]: (url, init) => worker_(url, init as RequestInit),
}

/** An OIDC application of the catalogue, created by a root administrator and granted to function 2. */
export async function oidcApplication(
  rootToken: string,
  libelle: string,
  oidc: Omit<z.input<typeof oidcClientInputSchema>, 'redirectUris'>,
) {
  const body = await okBody(
    api(rootToken).rest.bd.application.$post({
      json: {
        libelle,
        icone: 'scale',
        url: 'https://rp.example.test/',
        actif: true,
        protocole: 'OIDC',
        oidc: { redirectUris: [REDIRECT], ...oidc },
        fonctions: [{ id: 2 }],
      },
    }),
    201,
  )
  if (!body.oidc) throw new Error(`an OIDC application without its client: ${JSON.stringify(body)}`)
  return { id: body.id, clientId: body.oidc.clientId, clientSecret: body.oidc.clientSecret as string }
}

/** A confidential client's configuration, from discovery at `origin`. */
export const confidentialRp = (
  application: { clientId: string; clientSecret: string },
  origin = 'http://localhost:8787',
) =>
  client.discovery(
    new URL(origin),
    application.clientId,
    application.clientSecret,
    client.ClientSecretBasic(application.clientSecret),
    rpOptions,
  )

/** An authorization request's parameters, PKCE and all, as the relying party builds them. */
export async function authorizationRequest(config: client.Configuration, extra: Record<string, string> = {}) {
  const verifier = client.randomPKCECodeVerifier()
  const state = client.randomState()
  const nonce = client.randomNonce()
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'openid profile email postes',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...extra,
  })
  return { url, verifier, state, nonce }
}

/** An authorization request's parameters, all of them, as the portal's page passes them on to the API. */
function requestOf(url: URL): AuthorizationRequest {
  const params = Object.fromEntries(url.searchParams)
  const { client_id, redirect_uri } = params
  if (client_id === undefined || redirect_uri === undefined) throw new Error(`not an authorization request: ${url}`)
  return { ...params, client_id, redirect_uri }
}

/** The call of the portal's authorization page for a signed-in user (what its /oidc/authorize page asks the API). */
export const authorizeCall = (token: string, url: URL, origin?: string) =>
  api(token, {}, origin).rest.bd.oidc.authorize.$post({ json: requestOf(url) })

/** The portal's decision for a signed-in user. */
export const authorizeAs = (token: string, url: URL, origin?: string) => okBody(authorizeCall(token, url, origin))

/** Where a decision that must be a redirect sends the user back to the client. */
export async function redirectOf(token: string, url: URL, origin?: string) {
  const decision = await authorizeAs(token, url, origin)
  expect(decision.action).toBe('redirect')
  if (decision.action !== 'redirect') throw new Error(`not a redirect: ${JSON.stringify(decision)}`)
  return new URL(decision.url)
}

/** A dock agent of Lille (function 2), signed in. */
export async function signedInAgent() {
  const agent = await createUser({ postes: [currentPost(4, 2)] })
  return { ...agent, ...(await sessionFor(agent.id)) }
}

/** The whole code flow for `user`: tokens as openid-client validated them. */
export async function codeFlow(user: { accessToken: string }, rp: client.Configuration) {
  const request = await authorizationRequest(rp)
  const callback = await redirectOf(user.accessToken, request.url)
  const tokens = await client.authorizationCodeGrant(rp, new URL(callback), {
    pkceCodeVerifier: request.verifier,
    expectedState: request.state,
    expectedNonce: request.nonce,
  })
  return { rp, request, tokens, callback }
}

/** A raw token request, form-encoded. */
export function tokenCall(fields: Record<string, string>, authorization?: string, origin?: string) {
  const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded' }
  if (authorization) headers.Authorization = authorization
  return call('/oidc/token', { method: 'POST', body: new URLSearchParams(fields).toString(), headers, origin })
}

/** `client_secret_basic`'s header. */
export const basic = (clientId: string, secret: string) => `Basic ${btoa(`${clientId}:${secret}`)}`
