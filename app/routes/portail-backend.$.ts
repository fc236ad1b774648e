import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/cloudflare'

/**
 * Under `remix vite:dev` only Remix is served: this resource route hands /portail-backend/* to the
 * API (given to Remix in the load context). The built Worker (server.ts) routes these paths before
 * Remix and never reaches this module.
 */
function forward({ request, context }: LoaderFunctionArgs | ActionFunctionArgs) {
  const { env, ctx } = context.cloudflare
  return context.api.fetch(request, env, ctx as ExecutionContext)
}

export const loader = forward
export const action = forward
