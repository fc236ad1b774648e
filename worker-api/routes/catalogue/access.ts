import { createRoute } from '@hono/zod-openapi'
import { accessListSchema, accessQuery, launchQuery, launchSchema, userIdParam } from '../../contract/catalogue/access'
import { router } from '../../lib/validation'
import { accessOf, launch } from '../../services/catalogue/access'
import { launcherAccess } from '../../services/governance/requests'
import { launchResponse } from '../../services/saml/sso'
import { errors, json } from '../openapi'

export const accessRoutes = router()
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/acces/utilisateur/{userId}',
      tags: ['Access'],
      summary:
        "The applications a user may launch today (derived from the functions of their current posts); with futurs=true, those future posts will open; with demandes=N, on one's own list, the launcher's other applications and latest requests too",
      security: [{ bearer: [] }],
      request: { params: userIdParam, query: accessQuery },
      responses: {
        200: json(accessListSchema, 'Access list'),
        ...errors(400, 401, 403, 404),
      },
    }),
    async (c) => {
      const { userId } = c.req.valid('param')
      const { futurs, demandes } = c.req.valid('query')
      const ctx = c.var.ctx
      const caller = c.get('caller')
      return c.json(
        demandes === undefined
          ? await accessOf(ctx, caller, userId, futurs === 'true')
          : await launcherAccess(ctx, caller, userId, futurs === 'true', demandes),
        200,
      )
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/acces/application',
      tags: ['Access'],
      summary:
        'Launch an application: its URL carrying a single-use launch code (60 s); a SAML application’s, the signed response to post to its assertion consumer service',
      security: [{ bearer: [] }],
      request: { query: launchQuery },
      responses: {
        200: json(launchSchema, 'Launch URL and code'),
        ...errors(400, 401, 403, 404),
      },
    }),
    async (c) => {
      c.header('Cache-Control', 'no-store')
      const result = await launch(c.var.ctx, c.get('caller'), c.req.valid('query').idApplication, launchResponse)
      return c.json(result, 200)
    },
  )
