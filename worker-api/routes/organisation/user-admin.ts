import { createRoute, z } from '@hono/zod-openapi'
import { idParam, userSchema } from '../../contract/organisation/user'
import {
  createUserSchema,
  mailCheckQuery,
  mailCheckSchema,
  userAdminSchema,
  userListQuery,
  userStateSchema,
} from '../../contract/organisation/user-admin'
import { router } from '../../lib/validation'
import {
  deleteUser,
  resendInvitation,
  restoreUser,
  setUserAdmin,
  setUserState,
} from '../../services/organisation/user-admin'
import { checkMail, createUser } from '../../services/organisation/user-creation'
import { listUsers } from '../../services/organisation/user-list'
import { errors, json, jsonBody, totalCount } from '../openapi'

/**
 * User administration (spec §6, §7): administrators only, each on the users of their scope whose
 * `modification` flag they get (DESIGN §4); nobody deletes, deactivates or demotes themself. Mounted
 * before `utilisateur/{id}`, which would take "liste" or "state" for an id.
 */
export const userAdminRoutes = router()
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/bd/utilisateur',
      tags: ['Users'],
      summary:
        'Create a user with their first post in a structure of the caller’s scope; an active one gets an invitation (valid 7 days) to choose their password, an inactive one gets it on activation. 409 MAIL_ALREADY_USED',
      security: [{ bearer: [] }],
      request: { body: jsonBody(createUserSchema) },
      responses: { 201: json(userSchema, 'The new user'), ...errors(400, 401, 403, 409) },
    }),
    async (c) => {
      const user = await createUser(c.var.ctx, c.get('caller'), c.req.valid('json'))
      return c.json(user, 201)
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/utilisateur/liste',
      tags: ['Users'],
      summary:
        "The users of the caller's scope with their current and future posts, by name; with page, one page of them filtered and sorted (total in X-Total-Count)",
      security: [{ bearer: [] }],
      request: { query: userListQuery },
      responses: { 200: json(z.array(userSchema), 'Users'), ...errors(400, 401, 403) },
    }),
    async (c) => {
      const { items, total } = await listUsers(c.var.ctx, c.get('caller'), c.req.valid('query'))
      return c.json(items, 200, totalCount(total))
    },
  )
  .openapi(
    createRoute({
      method: 'put',
      path: '/rest/bd/utilisateur/state',
      tags: ['Users'],
      summary:
        'Activate or deactivate a user the caller may manage (not an administrator); deactivating ends their sessions. A user without a password yet is invited on activation; deactivating voids the invitation',
      security: [{ bearer: [] }],
      request: { body: jsonBody(userStateSchema) },
      responses: { 200: json(userSchema, 'The user'), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const user = await setUserState(c.var.ctx, c.get('caller'), c.req.valid('json'))
      return c.json(user, 200)
    },
  )
  .openapi(
    createRoute({
      method: 'put',
      path: '/rest/bd/utilisateur/admin',
      tags: ['Users'],
      summary: 'Give or take the "admin des niveaux inférieurs" flag of a user the caller may manage',
      security: [{ bearer: [] }],
      request: { body: jsonBody(userAdminSchema) },
      responses: { 200: json(userSchema, 'The user'), ...errors(400, 401, 403, 404) },
    }),
    async (c) => c.json(await setUserAdmin(c.var.ctx, c.get('caller'), c.req.valid('json')), 200),
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/rest/bd/utilisateur/suppression/{id}',
      tags: ['Users'],
      summary: 'Delete a user the caller may manage, restorably: posts and history stay, sessions and links end',
      security: [{ bearer: [] }],
      request: { params: idParam },
      responses: { 204: { description: 'Deleted' }, ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      await deleteUser(c.var.ctx, c.get('caller'), c.req.valid('param').id)
      return c.body(null, 204)
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/rest/bd/utilisateur/retablir/{id}',
      tags: ['Users'],
      summary: 'Restore a deleted user the caller may manage, as they were',
      security: [{ bearer: [] }],
      request: { params: idParam },
      responses: { 204: { description: 'Restored' }, ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      await restoreUser(c.var.ctx, c.get('caller'), c.req.valid('param').id)
      return c.body(null, 204)
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/bd/utilisateur/{id}/invitation',
      tags: ['Users'],
      summary:
        'Send again the invitation of a user who has not chosen a password yet (the earlier link dies); 409 INVITATION_NOT_PENDING otherwise, INVITATION_WAITS_ACTIVATION for an inactive user',
      security: [{ bearer: [] }],
      request: { params: idParam },
      responses: { 204: { description: 'Sent' }, ...errors(400, 401, 403, 404, 409, 429) },
    }),
    async (c) => {
      await resendInvitation(c.var.ctx, c.get('caller'), c.req.valid('param').id)
      return c.body(null, 204)
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/public/bd/utilisateur/mail',
      tags: ['Users'],
      summary:
        'Mail availability (spec §4): the account holding the address and whether it is active, or nulls when it is free. Limited per client',
      request: { query: mailCheckQuery },
      responses: { 200: json(mailCheckSchema, 'Taken or free'), ...errors(400, 429) },
    }),
    async (c) =>
      c.json(await checkMail(c.var.ctx, c.req.valid('query').mail, c.req.header('CF-Connecting-IP') ?? null), 200),
  )
