import { createRoute } from '@hono/zod-openapi'
import { idParam } from '../../contract/organisation/user'
import { portalSessionListSchema, sessionIdParam } from '../../contract/sign-in/sessions'
import { router } from '../../lib/validation'
import { endOtherSessions, endOwnSession, endUserSessions } from '../../services/sign-in/session-end'
import { ownSessions, sessionsOfUser } from '../../services/sign-in/sessions'
import { errors, json } from '../openapi'

/**
 * The list of a user's open sessions and their ending (DESIGN §3): the caller's own, and those of a
 * user an administrator manages. Ending a session ends what was launched from it (single logout).
 */
export const sessionRoutes = router()
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/session/liste',
      tags: ['Session'],
      summary:
        "The caller's open portal sessions (browser, sign-in, last use, the applications opened from each), the latest used first; courante marks the one of the caller's token",
      security: [{ bearer: [] }],
      responses: { 200: json(portalSessionListSchema, 'Open sessions'), ...errors(401, 403) },
    }),
    async (c) => c.json(await ownSessions(c.var.ctx, c.get('caller')), 200),
  )
  // Before `session/{id}`, which would take "autres" for an id (tests/api/route-order.test.ts).
  .openapi(
    createRoute({
      method: 'delete',
      path: '/rest/bd/session/autres',
      tags: ['Session'],
      summary:
        "End every open session of the caller but the one of their token, and the applications' sessions opened from them (audited)",
      security: [{ bearer: [] }],
      responses: { 204: { description: 'Ended' }, ...errors(401, 403) },
    }),
    async (c) => {
      await endOtherSessions(c.var.ctx, c.get('caller'))
      return c.body(null, 204)
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/rest/bd/session/{id}',
      tags: ['Session'],
      summary:
        "End one of the caller's open sessions (an id of session/liste) and the applications' sessions opened from it (audited); 404 for any other id",
      security: [{ bearer: [] }],
      request: { params: sessionIdParam },
      responses: { 204: { description: 'Ended' }, ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      await endOwnSession(c.var.ctx, c.get('caller'), c.req.valid('param').id)
      return c.body(null, 204)
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/utilisateur/{id}/sessions',
      tags: ['Users'],
      summary:
        'The open portal sessions of a user the caller manages (modification), as session/liste answers them (courante always false)',
      security: [{ bearer: [] }],
      request: { params: idParam },
      responses: { 200: json(portalSessionListSchema, 'Open sessions'), ...errors(400, 401, 403, 404) },
    }),
    async (c) => c.json(await sessionsOfUser(c.var.ctx, c.get('caller'), c.req.valid('param').id), 200),
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/rest/bd/utilisateur/{id}/sessions',
      tags: ['Users'],
      summary:
        "End every session of a user the caller manages (the portal's, the applications', open launch codes); the user is told by mail who did it (audited)",
      security: [{ bearer: [] }],
      request: { params: idParam },
      responses: { 204: { description: 'Ended' }, ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      await endUserSessions(c.var.ctx, c.get('caller'), c.req.valid('param').id)
      return c.body(null, 204)
    },
  )
