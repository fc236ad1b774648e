import { createRoute, z } from '@hono/zod-openapi'
import { applicationIdParam, applicationListQuery, catalogueApplicationSchema } from '../contract/catalogue'
import { errors, json } from '../contract/common'
import { router } from '../lib/validation'
import { getApplication, listApplications } from '../services/catalogue'

/**
 * The catalogue: the applications the portal launches and the functions that grant them, managed by
 * root administrators (administrators with a current post on a root of the tree); any other caller 403.
 */
export const catalogueRoutes = router()
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/application',
      tags: ['Catalogue'],
      summary:
        'The catalogue of applications (root administrators); with page, one page of it (total in X-Total-Count)',
      security: [{ bearer: [] }],
      request: { query: applicationListQuery },
      responses: { 200: json(z.array(catalogueApplicationSchema), 'Applications'), ...errors(400, 401, 403) },
    }),
    async (c) => {
      const { items, total } = await listApplications(c.env, c.get('caller'), c.req.valid('query'))
      c.header('X-Total-Count', String(total))
      return c.json(items, 200)
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/application/{id}',
      tags: ['Catalogue'],
      summary: 'One application of the catalogue (root administrators)',
      security: [{ bearer: [] }],
      request: { params: applicationIdParam },
      responses: { 200: json(catalogueApplicationSchema, 'Application'), ...errors(400, 401, 403, 404) },
    }),
    async (c) => c.json(await getApplication(c.env, c.get('caller'), c.req.valid('param').id), 200),
  )
