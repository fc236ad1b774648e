import type { AppLoadContext } from '@remix-run/cloudflare'

/** The development mailbox exists only with ENVIRONMENT=development (DESIGN §5); elsewhere a 404. */
export function requireDevelopment(context: AppLoadContext) {
  if (context.cloudflare.env.ENVIRONMENT !== 'development') throw new Response('Not found', { status: 404 })
}
