import { createRoute } from '@hono/zod-openapi'
import { errors, json } from '../contract/common'
import { idParam, userSchema } from '../contract/user'
import { getDb } from '../db/client'
import { router } from '../lib/validation'
import { getUser } from '../services/users'

export const userRoutes = router().openapi(
  createRoute({
    method: 'get',
    path: '/rest/bd/utilisateur/{id}',
    tags: ['Users'],
    summary: 'A user with current and future posts; modification says whether the caller may edit',
    security: [{ bearer: [] }],
    request: { params: idParam },
    responses: { 200: json(userSchema, 'User'), ...errors(400, 401, 403, 404) },
  }),
  async (c) => c.json(await getUser(getDb(c.env.DB), c.get('actor'), c.req.valid('param').id), 200),
)
