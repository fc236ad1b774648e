import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/cloudflare'
import { createApp } from '../../worker-api/app'

/**
 * Under `remix vite:dev` only Remix is served: this resource route hands /portail-backend/* to the
 * API. The built Worker (server.ts) routes these paths before Remix and never reaches this module.
 */
const api = createApp()

function forward({ request, context }: LoaderFunctionArgs | ActionFunctionArgs) {
  const { env, ctx } = context.cloudflare
  return api.fetch(request, env, ctx as ExecutionContext)
}

export const loader = forward
export const action = forward
