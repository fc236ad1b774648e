import { createRoute, z } from '@hono/zod-openapi'
import {
  confirmMailSchema,
  idParam,
  mailChangeSchema,
  profileSchema,
  userSchema,
} from '../../contract/organisation/user'
import { tokenParam, updatePasswordSchema } from '../../contract/sign-in/password'
import { userReadQuery, userWithSessionsSchema } from '../../contract/sign-in/sessions'
import { router } from '../../lib/validation'
import { actorOf } from '../../services/core/actor'
import { getUser } from '../../services/core/users'
import { confirmMailChange, mailChangeOf } from '../../services/organisation/mail-change'
import { updateProfile } from '../../services/organisation/profile'
import { updatePassword } from '../../services/sign-in/password'
import { userWithSessions } from '../../services/sign-in/sessions'
import { errors, json, jsonBody } from '../openapi'

export const userRoutes = router()
  // Before `utilisateur/{id}`, which would take "updatePassword" for an id.
  .openapi(
    createRoute({
      method: 'put',
      path: '/rest/bd/utilisateur/updatePassword',
      tags: ['Users'],
      summary: "Change the caller's password; answers their id. The caller's other sessions end",
      security: [{ bearer: [] }],
      request: { body: jsonBody(updatePasswordSchema) },
      responses: { 200: json(z.number().int(), 'The user id'), ...errors(400, 401, 429) },
    }),
    async (c) => {
      const { id } = await updatePassword(c.var.ctx, await actorOf(c.var.ctx, c.get('caller')), c.req.valid('json'))
      return c.json(id, 200)
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/utilisateur/{id}',
      tags: ['Users'],
      summary:
        'A user with current and future posts; modification says whether the caller may edit; sessions=true adds their open sessions',
      security: [{ bearer: [] }],
      request: { params: idParam, query: userReadQuery },
      responses: { 200: json(userWithSessionsSchema, 'User'), ...errors(400, 401, 403, 404) },
    }),
    async (c) =>
      c.json(
        await (c.req.valid('query').sessions === 'true' ? userWithSessions : getUser)(
          c.var.ctx,
          c.get('caller'),
          c.req.valid('param').id,
        ),
        200,
      ),
  )
  .openapi(
    createRoute({
      method: 'put',
      path: '/rest/bd/utilisateur/{id}',
      tags: ['Users'],
      summary:
        "Update nom, prenom and mail (the profile form): oneself, or a user one may modify. One's own new mail waits for the link sent to it (mailEnAttente)",
      security: [{ bearer: [] }],
      request: {
        params: idParam,
        body: jsonBody(profileSchema),
      },
      responses: { 200: json(userSchema, 'The updated user'), ...errors(400, 401, 403, 404, 409, 429) },
    }),
    async (c) => {
      const { id } = c.req.valid('param')
      const user = await updateProfile(c.var.ctx, c.get('caller'), id, c.req.valid('json'))
      return c.json(user, 200)
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/public/bd/utilisateur/mail/token/{token}',
      tags: ['Users'],
      summary:
        'The new address a mail-change link confirms: 404 TOKEN_NOT_FOUND, 410 TOKEN_USED or TOKEN_EXPIRED otherwise',
      request: { params: tokenParam },
      responses: { 200: json(mailChangeSchema, 'The link is usable'), ...errors(400, 404, 410) },
    }),
    async (c) => {
      c.header('Referrer-Policy', 'no-referrer')
      return c.json(await mailChangeOf(c.var.ctx, c.req.valid('param').token), 200)
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/public/bd/utilisateur/mail/confirm/',
      tags: ['Users'],
      summary: "Confirm a new mail address with the link sent to it (single use): it becomes the account's",
      request: { body: jsonBody(confirmMailSchema) },
      responses: {
        200: json(mailChangeSchema, 'The address is now the account’s'),
        ...errors(400, 403, 404, 409, 410),
      },
    }),
    async (c) => {
      const changed = await confirmMailChange(c.var.ctx, c.req.valid('json').token)
      return c.json(changed, 200)
    },
  )
