import { createRequestHandler, type ServerBuild } from '@remix-run/cloudflare'
// The server build exists after `remix vite:build` (typecheck may run before it).
// biome-ignore lint/suspicious/noTsIgnore: the build is absent on a fresh clone, present after a build
// @ts-ignore
import * as build from './build/server'
import { createApp } from './worker-api/app'
import { API_BASE } from './worker-api/base'
import type { Env } from './worker-api/env'
import { configurationProblems } from './worker-api/env'
import { isSameOriginWrite, securityHeaders, withBoundedBody, withOwnOrigin } from './worker-api/lib/security-headers'
import { purgeExpired } from './worker-api/services/maintenance'
import { deliverOutbox } from './worker-api/services/outbox'

/** The hourly trigger of wrangler.toml; the other one runs every minute. */
const PRUNE_CRON = '17 * * * *'

const api = createApp()
const handleRemix = createRequestHandler(build as unknown as ServerBuild)

function nonce() {
  return btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))))
}

/** The Worker: /portail-backend/* is the REST API, everything else is the Remix UI. */
export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const problems = configurationProblems(env)
    if (problems.length > 0) {
      // Named in the logs only: the public answer says nothing about the configuration.
      console.error(`Refusing to serve until the configuration is fixed: ${problems.join('; ')}`)
      return new Response('Service unavailable: server misconfigured', { status: 503 })
    }
    const url = new URL(request.url)
    if (url.pathname === API_BASE || url.pathname.startsWith(`${API_BASE}/`)) {
      return api.fetch(request, env, ctx)
    }
    if (!isSameOriginWrite(request, url)) return new Response('Cross-origin request refused', { status: 403 })
    const bounded = await withBoundedBody(request)
    if (!bounded) return new Response('Request too large', { status: 413 })
    const cspNonce = nonce()
    // The one API instance also serves the UI's in-process calls (DESIGN §1).
    const response = await handleRemix(withOwnOrigin(bounded, url), { cloudflare: { env, ctx }, cspNonce, api })
    return securityHeaders(response, {
      nonce: cspNonce,
      https: url.protocol === 'https:',
      path: url.pathname,
      turnstile: env.CAPTCHA_PROVIDER === 'turnstile',
    })
  },
  /**
   * wrangler.toml [triggers]: every minute, mail that failed is retried once due (DESIGN §5); once an
   * hour, expired tokens, captchas, counters and old mail are pruned.
   */
  async scheduled(controller: ScheduledController, env: Env, ctx: ExecutionContext) {
    const problems = configurationProblems(env)
    if (problems.length > 0) {
      console.error(`Scheduled work skipped until the configuration is fixed: ${problems.join('; ')}`)
      return
    }
    ctx.waitUntil(
      deliverOutbox(env).then(({ sent, failed }) => {
        if (sent + failed > 0) console.log(`Outbox: ${sent} sent, ${failed} failed`)
      }),
    )
    if (controller.cron === PRUNE_CRON) {
      ctx.waitUntil(purgeExpired(env).then((deleted) => console.log('Pruned expired rows', deleted)))
    }
  },
} satisfies ExportedHandler<Env>
