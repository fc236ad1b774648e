import { createRequestHandler, type ServerBuild } from '@remix-run/cloudflare'
// The server build exists after `remix vite:build` (typecheck may run before it).
// biome-ignore lint/suspicious/noTsIgnore: the build is absent on a fresh clone, present after a build
// @ts-ignore
import * as build from './build/server'
import { API_BASE, createApp } from './worker-api/app'
import type { Env } from './worker-api/env'
import { missingSecrets } from './worker-api/env'
import { securityHeaders } from './worker-api/lib/security-headers'

const api = createApp()
const handleRemix = createRequestHandler(build as unknown as ServerBuild)

function nonce() {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))))
}

/** The Worker: /portail-backend/* is the REST API, everything else is the Remix UI. */
export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const missing = missingSecrets(env)
    if (missing.length > 0) {
      // Named in the logs only: the public answer says nothing about the configuration.
      console.error(`Missing or too short (< 32 characters) secrets: ${missing.join(', ')}`)
      return new Response('Service unavailable: server misconfigured', { status: 503 })
    }
    const url = new URL(request.url)
    if (url.pathname === API_BASE || url.pathname.startsWith(`${API_BASE}/`)) {
      return api.fetch(request, env, ctx)
    }
    // Cookie-authenticated forms: refuse cross-site writes (DESIGN §3).
    const origin = request.headers.get('Origin')
    if (request.method !== 'GET' && request.method !== 'HEAD' && origin && origin !== url.origin) {
      return new Response('Cross-origin request refused', { status: 403 })
    }
    const cspNonce = nonce()
    const response = await handleRemix(request, { cloudflare: { env, ctx }, cspNonce })
    return securityHeaders(response, {
      nonce: cspNonce,
      https: url.protocol === 'https:',
      path: url.pathname,
      turnstile: env.CAPTCHA_PROVIDER === 'turnstile',
    })
  },
} satisfies ExportedHandler<Env>
