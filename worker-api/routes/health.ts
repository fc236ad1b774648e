import { createRoute } from '@hono/zod-openapi'
import { z } from 'zod'
import {
  D1_LIMIT_BYTES,
  STORAGE_CRITICAL_SHARE,
  STORAGE_WARNING_SHARE,
  storageState,
} from '../contract/history/storage'
import { mailConfigProblem } from '../lib/mail/providers'
import { router } from '../lib/validation'
import { json } from './openapi'

/** The storage states as the health check says them. */
const DATABASE_STATUS = { ok: 'ok', attention: 'warning', critique: 'critical' } as const

export const healthRoutes = router().openapi(
  createRoute({
    method: 'get',
    path: '/rest/public/health',
    tags: ['Operations'],
    summary:
      'Answers 200 once the database is reachable; `mail` says whether mail can go out, `database` how full the database is',
    responses: {
      200: json(
        z.object({
          status: z.literal('ok'),
          mail: z.enum(['ok', 'unconfigured']).describe('unconfigured: mail waits in the outbox (see the logs)'),
          database: z.object({
            status: z
              .enum(['ok', 'warning', 'critical'])
              .describe(
                `warning from ${STORAGE_WARNING_SHARE * 100} % of D1's limit of ${D1_LIMIT_BYTES / 1000 ** 3} GB, critical from ${STORAGE_CRITICAL_SHARE * 100} %: archive more of the history (historiqueMoisEnLigne)`,
              ),
            used: z.number().describe("The share of D1's limit the database takes, two decimals"),
          }),
        }),
        'Healthy',
      ),
      503: json(z.object({ status: z.literal('unavailable') }), 'Database unreachable'),
    },
  }),
  async (c) => {
    c.header('Cache-Control', 'no-store')
    try {
      const { meta } = await c.var.ctx.d1.prepare('SELECT 1').run()
      const bytes = meta.size_after ?? 0
      return c.json(
        {
          status: 'ok' as const,
          mail: mailConfigProblem(c.var.ctx.env) ? ('unconfigured' as const) : ('ok' as const),
          database: {
            status: DATABASE_STATUS[storageState(bytes)],
            used: Math.round((bytes / D1_LIMIT_BYTES) * 100) / 100,
          },
        },
        200,
      )
    } catch {
      return c.json({ status: 'unavailable' as const }, 503)
    }
  },
)
