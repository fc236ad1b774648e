import { createRoute } from '@hono/zod-openapi'
import { z } from 'zod'
import { mailConfigProblem } from '../lib/mail/providers'
import { router } from '../lib/validation'
import { json } from './openapi'

export const healthRoutes = router().openapi(
  createRoute({
    method: 'get',
    path: '/rest/public/health',
    tags: ['Operations'],
    summary: 'Answers 200 once the database is reachable; `mail` says whether mail can go out',
    responses: {
      200: json(
        z.object({
          status: z.literal('ok'),
          mail: z.enum(['ok', 'unconfigured']).describe('unconfigured: mail waits in the outbox (see the logs)'),
        }),
        'Healthy',
      ),
      503: json(z.object({ status: z.literal('unavailable') }), 'Database unreachable'),
    },
  }),
  async (c) => {
    c.header('Cache-Control', 'no-store')
    try {
      await c.var.ctx.d1.prepare('SELECT 1').first()
      return c.json(
        { status: 'ok' as const, mail: mailConfigProblem(c.var.ctx.env) ? ('unconfigured' as const) : ('ok' as const) },
        200,
      )
    } catch {
      return c.json({ status: 'unavailable' as const }, 503)
    }
  },
)
