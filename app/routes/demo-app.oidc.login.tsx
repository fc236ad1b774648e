import { type LoaderFunctionArgs, redirect } from '@remix-run/cloudflare'
import * as client from 'openid-client'
import { DEMO_PATH, demoClient, demoRedirectUri, flowCookie } from '~/features/demo/demo-oidc.server'

/**
 * The demo application starts its sign-in: from its own button, or from the portal's launcher
 * (third-party-initiated login, `iss` and `target_link_uri`): an authorization request with PKCE,
 * state and nonce, kept in a cookie until the callback.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const url = new URL(request.url)
  const iss = url.searchParams.get('iss')
  // Started by an issuer: only the one the demo trusts, this portal.
  if (iss !== null && iss !== url.origin) throw new Response('Unknown issuer', { status: 400 })
  const config = await demoClient(request, context)
  const verifier = client.randomPKCECodeVerifier()
  const state = client.randomState()
  const nonce = client.randomNonce()
  const authorization = client.buildAuthorizationUrl(config, {
    redirect_uri: demoRedirectUri(request),
    scope: 'openid profile email postes',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  })
  const cookie = await flowCookie(context).serialize({ verifier, state, nonce })
  // The authorization page is the portal's own: a same-origin address.
  return redirect(`${authorization.pathname}${authorization.search}`, {
    headers: { 'Set-Cookie': cookie, 'Cache-Control': 'no-store' },
  })
}

export const action = () => redirect(`${DEMO_PATH}/login`)
