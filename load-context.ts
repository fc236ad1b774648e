import type { ExecutionContext } from '@cloudflare/workers-types'
import type { Meter } from './worker-api/db/meter'
import type { Env } from './worker-api/lib/types'

/** What Remix loaders and actions receive as `context`, in the Worker and under `remix vite:dev`. */
declare module '@remix-run/cloudflare' {
  interface AppLoadContext {
    cloudflare: { env: Env; ctx: Pick<ExecutionContext, 'waitUntil' | 'passThroughOnException'> }
    /** Per-response nonce for the inline scripts Remix renders (CSP). */
    cspNonce?: string
    /** The REST API, called in-process (one instance, provided by the Worker or the dev server). */
    api: { fetch(request: Request, env: Env, ctx: ExecutionContext): Response | Promise<Response> }
    /**
     * The origins beyond its own the page's forms may post to (its CSP's form-action): a SAML response goes to the
     * application's address. A loader adds to it (`allowFormTarget`); absent under `remix vite:dev`, which sets no CSP.
     */
    formTargets?: Set<string>
    /** What the request costs so far (Server-Timing); absent under `remix vite:dev`. */
    meter?: Meter
  }
}
