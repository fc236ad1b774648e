import { createRoute } from '@hono/zod-openapi'
import { z } from 'zod'
import { errors, json } from '../contract/common'
import { router } from '../lib/validation'
import { actorOf } from '../services/actor'
import { writeClientLog } from '../services/logs'

const logInput = z.object({
  nomLog: z.string().trim().min(1).max(100),
  commentaire: z.string().max(500).nullish(),
  nomNavigateur: z.string().max(100).nullish(),
  versionNavigateur: z.string().max(50).nullish(),
})

export const logRoutes = router().openapi(
  createRoute({
    method: 'post',
    path: '/rest/bd/logs/',
    tags: ['History'],
    summary: 'Record an action of the caller (type derived from nomLog, spec §9)',
    security: [{ bearer: [] }],
    request: { body: { content: { 'application/json': { schema: logInput } }, required: true } },
    responses: { 201: json(z.object({ id: z.number().int() }), 'Recorded'), ...errors(400, 401) },
  }),
  async (c) =>
    c.json(
      await writeClientLog(
        c.env,
        await actorOf(c.env, c.get('caller')),
        c.req.valid('json'),
        c.req.header('User-Agent') ?? null,
      ),
      201,
    ),
)
