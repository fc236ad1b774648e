import { createRoute } from '@hono/zod-openapi'
import {
  serviceAccountCreatedSchema,
  serviceAccountCreateSchema,
  serviceAccountIdParam,
  serviceAccountListQuery,
  serviceAccountListSchema,
  serviceAccountSchema,
  serviceAccountUpdateSchema,
  serviceHandoverAnswerSchema,
  serviceHandoverSchema,
  serviceHeirListSchema,
  serviceHeirsQuery,
  serviceSecretAnswerSchema,
  serviceSecretSchema,
} from '../../contract/machines/service-accounts'
import { router } from '../../lib/validation'
import { handOverServiceAccount, listServiceHeirs } from '../../services/machines/service-account-handover'
import {
  createServiceAccount,
  deleteServiceAccount,
  rotateServiceSecret,
  updateServiceAccount,
} from '../../services/machines/service-account-writes'
import { getServiceAccount, listServiceAccounts } from '../../services/machines/service-accounts'
import { errors, json, jsonBody, totalCount } from '../openapi'

/**
 * Service accounts: the programs of the caller's scope that call the API with client credentials
 * (`POST /oidc/token`, grant_type=client_credentials). Administrators only; a service account's own
 * token is refused here (a program does not make programs).
 */
export const serviceAccountRoutes = router()
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/compteService',
      tags: ['Service accounts'],
      summary:
        "The service accounts of the caller's scope, by name; with page, one page (total in X-Total-Count); q searches name, client id and structure; responsable and suspendu keep the accounts acting for one administrator, stopped or working",
      security: [{ bearer: [] }],
      request: { query: serviceAccountListQuery },
      responses: { 200: json(serviceAccountListSchema, 'Service accounts'), ...errors(400, 401, 403) },
    }),
    async (c) => {
      const { items, total } = await listServiceAccounts(c.var.ctx, c.get('caller'), c.req.valid('query'))
      return c.json(items, 200, totalCount(total))
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/bd/compteService',
      tags: ['Service accounts'],
      summary:
        "A service account on a structure of the caller's scope; its client secret is in this answer only (none when it registers keys). An administrator account asks for the caller's password or current code (preuve)",
      security: [{ bearer: [] }],
      request: { body: jsonBody(serviceAccountCreateSchema) },
      responses: {
        201: json(serviceAccountCreatedSchema, 'The account, its client id and secret'),
        ...errors(400, 401, 403, 404, 429),
      },
    }),
    async (c) => {
      c.header('Cache-Control', 'no-store')
      return c.json(await createServiceAccount(c.var.ctx, c.get('caller'), c.req.valid('json')), 201)
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/compteService/{id}',
      tags: ['Service accounts'],
      summary: "One service account of the caller's scope",
      security: [{ bearer: [] }],
      request: { params: serviceAccountIdParam },
      responses: { 200: json(serviceAccountSchema, 'Service account'), ...errors(400, 401, 403, 404) },
    }),
    async (c) => c.json(await getServiceAccount(c.var.ctx, c.get('caller'), c.req.valid('param').id), 200),
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/rest/bd/compteService/{id}',
      tags: ['Service accounts'],
      summary: 'Deletes a service account: it stops at its next call, its tokens with it; the history keeps its name',
      security: [{ bearer: [] }],
      request: { params: serviceAccountIdParam },
      responses: { 204: { description: 'Deleted' }, ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      await deleteServiceAccount(c.var.ctx, c.get('caller'), c.req.valid('param').id)
      return c.body(null, 204)
    },
  )
  .openapi(
    createRoute({
      method: 'patch',
      path: '/rest/bd/compteService/{id}',
      tags: ['Service accounts'],
      summary:
        "Changes an account of the caller's scope under the same client id: its name, description, scopes (from its next token), keys (a keys-only account's, replaced) or whether it is on (off: refused at its next call). Widening an administrator account asks for the caller's password or current code (preuve)",
      security: [{ bearer: [] }],
      request: { params: serviceAccountIdParam, body: jsonBody(serviceAccountUpdateSchema) },
      responses: {
        200: json(serviceAccountSchema, 'The account as it is now'),
        ...errors(400, 401, 403, 404, 409, 429),
      },
    }),
    async (c) =>
      c.json(await updateServiceAccount(c.var.ctx, c.get('caller'), c.req.valid('param').id, c.req.valid('json')), 200),
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/bd/compteService/{id}/secret',
      tags: ['Service accounts'],
      summary:
        "A new client secret, in this answer only; the former one keeps working 24 h unless revoquerAncien. An administrator account's asks for the caller's password or current code (preuve)",
      security: [{ bearer: [] }],
      request: {
        params: serviceAccountIdParam,
        body: jsonBody(serviceSecretSchema),
      },
      responses: { 200: json(serviceSecretAnswerSchema, 'The new secret'), ...errors(400, 401, 403, 404, 429) },
    }),
    async (c) => {
      c.header('Cache-Control', 'no-store')
      const answer = await rotateServiceSecret(c.var.ctx, c.get('caller'), c.req.valid('param').id, c.req.valid('json'))
      return c.json(answer, 200)
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/compteService/{id}/responsables',
      tags: ['Service accounts'],
      summary:
        'The administrators the caller may hand the account to: active administrators of its structure whom the caller sees, the caller and its current one aside, by name; with page, one page (total in X-Total-Count); q searches names and mail',
      security: [{ bearer: [] }],
      request: { params: serviceAccountIdParam, query: serviceHeirsQuery },
      responses: { 200: json(serviceHeirListSchema, 'Administrators'), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const { items, total } = await listServiceHeirs(
        c.var.ctx,
        c.get('caller'),
        c.req.valid('param').id,
        c.req.valid('query'),
      )
      return c.json(items, 200, totalCount(total))
    },
  )
  .openapi(
    createRoute({
      method: 'put',
      path: '/rest/bd/compteService/{id}/responsable',
      tags: ['Service accounts'],
      summary:
        "Hands the account to another administrator of its structure (or the caller), for whom it acts from then on; its secret renewed, in this answer only, the former ones stopped. An administrator account's asks for the caller's password or current code (preuve)",
      security: [{ bearer: [] }],
      request: { params: serviceAccountIdParam, body: jsonBody(serviceHandoverSchema) },
      responses: {
        200: json(serviceHandoverAnswerSchema, 'Handed over; the new secret if it has one'),
        ...errors(400, 401, 403, 404, 429),
      },
    }),
    async (c) => {
      c.header('Cache-Control', 'no-store')
      const answer = await handOverServiceAccount(
        c.var.ctx,
        c.get('caller'),
        c.req.valid('param').id,
        c.req.valid('json'),
      )
      return c.json(answer, 200)
    },
  )
