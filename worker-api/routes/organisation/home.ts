import { createRoute } from '@hono/zod-openapi'
import { homeQuery, homeSchema } from '../../contract/organisation/home'
import { router } from '../../lib/validation'
import { readHome } from '../../services/organisation/home'
import { errors, json } from '../openapi'

/** The administration home (/pages/admin): the figures of the caller's scope, in one call. */
export const homeRoutes = router().openapi(
  createRoute({
    method: 'get',
    path: '/rest/bd/accueil',
    tags: ['Administration'],
    summary:
      "The administration home's figures in the caller's scope: users with a current post, without one, inactive (the user list's totals); registrations waiting and those whose link expires within 48 h; the posts ending within 30 days (10 a page); sign-ins per day and launches per application over the last 30 days",
    security: [{ bearer: [] }],
    request: { query: homeQuery },
    responses: { 200: json(homeSchema, 'Figures'), ...errors(400, 401, 403) },
  }),
  async (c) => c.json(await readHome(c.var.ctx, c.get('caller'), c.req.valid('query')), 200),
)
