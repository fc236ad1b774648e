import { type AppLoadContext, createCookie } from '@remix-run/cloudflare'
import * as client from 'openid-client'
import { API_BASE } from '../../../worker-api/contract/base'
import { DEMO_CLIENT_ID, DEMO_PATH } from './demo-oidc'

/**
 * The OpenID Connect demo application (`npm start`): a relying party built on openid-client, served by
 * the same Worker under /demo-app/oidc, so that a new user sees the whole flow locally. It is what an
 * integrator's back end does; it only reaches the provider in-process, since a Worker does not fetch
 * its own address.
 */

export { DEMO_CLIENT_ID, DEMO_PATH }

/** The provider's requests, answered by the same Worker without going through the network. */
function inProcess(context: AppLoadContext): client.CustomFetch {
  return async (url, options) => {
    const target = new URL(url)
    // Discovery lives at the origin's well-known address, which the Worker entry maps to the API.
    if (target.pathname === '/.well-known/openid-configuration') target.pathname = `${API_BASE}${target.pathname}`
    const request = new Request(target, options as RequestInit)
    return context.api.fetch(request, context.cloudflare.env, context.cloudflare.ctx as ExecutionContext)
  }
}

/** The demo's client configuration, discovered at the origin it is served on (the issuer). */
export async function demoClient(request: Request, context: AppLoadContext) {
  const issuer = new URL(new URL(request.url).origin)
  return client.discovery(issuer, DEMO_CLIENT_ID, undefined, client.None(), {
    execute: [client.allowInsecureRequests, client.enableNonRepudiationChecks],
    [client.customFetch]: inProcess(context),
  })
}

/** The demo's callback on the origin it is served on (both loopback names are registered). */
export const demoRedirectUri = (request: Request) => `${new URL(request.url).origin}${DEMO_PATH}/callback`

const secrets = (context: AppLoadContext) => [context.cloudflare.env.SESSION_SECRET]

/** The sign-in under way: PKCE verifier, state and nonce, for ten minutes. */
export const flowCookie = (context: AppLoadContext) =>
  createCookie('demo-oidc-flow', {
    path: DEMO_PATH,
    httpOnly: true,
    sameSite: 'lax',
    maxAge: 600,
    secrets: secrets(context),
  })

/** The demo's own session: who signed in, with what the provider said. */
export const demoSessionCookie = (context: AppLoadContext) =>
  createCookie('demo-oidc-session', { path: DEMO_PATH, httpOnly: true, sameSite: 'lax', secrets: secrets(context) })

export type DemoSession = {
  sub: string
  sid: string
  name: string
  idToken: string
  refreshToken: string | null
  claims: Record<string, unknown>
  userinfo: Record<string, unknown>
  signedInAt: string
}

/** Where the demo notes the sessions the portal ended (back-channel logout): this Worker's cache. */
const loggedOutKey = (sid: string) => new Request(`https://demo-oidc.invalid/logged-out/${encodeURIComponent(sid)}`)

/** The Worker's cache (workerd's `caches.default`, which the DOM's CacheStorage type does not name). */
const workerCache = () => (globalThis.caches as CacheStorage & { default: Cache }).default

export async function noteLoggedOut(sid: string) {
  await workerCache().put(
    loggedOutKey(sid),
    new Response(new Date().toISOString(), { headers: { 'Cache-Control': 'max-age=36000' } }),
  )
}

export async function loggedOutAt(sid: string): Promise<string | null> {
  const hit = await workerCache().match(loggedOutKey(sid))
  return hit ? hit.text() : null
}
