import { createRoute } from '@hono/zod-openapi'
import { EVENT_KEPT_DAYS, eventsPageSchema, eventsQuery } from '../../contract/machines/events'
import { router } from '../../lib/validation'
import { listEvents } from '../../services/machines/events'
import { errors, json } from '../openapi'

/** The portal's events, pulled: what a webhook delivers, for a program (or an administrator) that prefers to poll. */
export const eventRoutes = router().openapi(
  createRoute({
    method: 'get',
    path: '/rest/bd/evenements',
    tags: ['Webhooks'],
    summary: `The events of the caller's scope after depuis, oldest first, kept ${EVENT_KEPT_DAYS} days; resume with suivant`,
    security: [{ bearer: [] }],
    request: { query: eventsQuery },
    responses: { 200: json(eventsPageSchema, 'A page of events'), ...errors(400, 401, 403) },
  }),
  async (c) => c.json(await listEvents(c.var.ctx, c.get('caller'), c.req.valid('query')), 200),
)
