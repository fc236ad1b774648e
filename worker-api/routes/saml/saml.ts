import { createRoute, z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { samlEnabled } from '../../lib/saml-keys'
import type { AppEnv } from '../../lib/types'
import { router } from '../../lib/validation'
import { idpMetadata } from '../../services/saml/metadata'

/**
 * The SAML 2.0 identity provider (issue 62): its endpoints speak SAML, not the API's JSON, and are documented in the
 * OpenAPI document outside the typed chain the portal's pages call. Without a key they answer 404.
 */
export const samlRoutes = router()

const xml = (description: string) => ({
  content: { 'application/samlmetadata+xml': { schema: z.string() } },
  description,
})
const off = { content: { 'text/plain': { schema: z.string() } }, description: 'SAML is not configured (no key)' }

/** The metadata is public and cacheable for a few minutes, as the OpenID Connect keys are. */
const PUBLIC_CACHE = 'public, max-age=300'

const routes: [ReturnType<typeof createRoute>, (c: Context<AppEnv>) => Response][] = [
  [
    createRoute({
      method: 'get',
      path: '/saml/metadata',
      tags: ['SAML 2.0'],
      summary:
        'The identity provider’s metadata: its entityID is this URL (at the origin the request came to), its signing certificates (two during a rotation), single sign-on and single logout by HTTP-Redirect and HTTP-POST',
      responses: { 200: xml('SAML 2.0 metadata'), 404: off },
    }),
    (c) => {
      const env = c.var.ctx.env
      if (!samlEnabled(env)) return c.text('SAML is not configured', 404)
      c.header('Cache-Control', PUBLIC_CACHE)
      // The entityID names the host the request came to: no shared cache may serve one host's to another.
      c.header('Vary', 'Host')
      return c.body(idpMetadata(env, c.var.ctx.request.origin), 200, {
        'Content-Type': 'application/samlmetadata+xml; charset=utf-8',
      })
    },
  ],
]
for (const [route, handle] of routes) {
  samlRoutes.openAPIRegistry.registerPath(route)
  samlRoutes.on(route.method.toUpperCase(), route.path, handle)
}
