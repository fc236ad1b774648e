import { createRoute, z } from '@hono/zod-openapi'
import {
  decisionInputSchema,
  decisionResultSchema,
  ownRequestSchema,
  ownRequestsQuery,
  pendingRequestSchema,
  pendingRequestsQuery,
  REQUEST_EXPIRY_DAYS,
  requestableSchema,
  requestCreatedSchema,
  requestDetailQuery,
  requestDetailSchema,
  requestIdParam,
  requestInputSchema,
} from '../../contract/governance/access-requests'
import { router } from '../../lib/validation'
import { decideRequest } from '../../services/governance/request-decisions'
import { pendingRequests, requestDetail } from '../../services/governance/request-reads'
import {
  createRequest,
  ownRequests,
  requestableApplications,
  withdrawRequest,
} from '../../services/governance/requests'
import { errors, json, jsonBody, totalCount } from '../openapi'

/**
 * Access requests: a user asks for a demandable application from their launcher; an administrator who manages them
 * grants it (a post) or refuses it; undecided, it expires after REQUEST_EXPIRY_DAYS days. The fixed paths come before
 * `demande/{id}`.
 */
export const accessRequestRoutes = router()
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/demande/applications',
      tags: ['Access requests'],
      summary:
        'The demandable applications the caller cannot launch today, each with their request of it waiting (if any) and the longest period one may ask for',
      security: [{ bearer: [] }],
      responses: { 200: json(z.array(requestableSchema), 'Demandable applications'), ...errors(401, 403) },
    }),
    async (c) => c.json(await requestableApplications(c.var.ctx, c.get('caller')), 200),
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/demande/miennes',
      tags: ['Access requests'],
      summary:
        "The caller's requests, newest first; with page, one page (total in X-Total-Count); with taille alone, that many of the newest, uncounted",
      security: [{ bearer: [] }],
      request: { query: ownRequestsQuery },
      responses: { 200: json(z.array(ownRequestSchema), 'Requests'), ...errors(400, 401, 403) },
    }),
    async (c) => {
      const { items, total } = await ownRequests(c.var.ctx, c.get('caller'), c.req.valid('query'))
      return c.json(items, 200, totalCount(total))
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/demande/aTraiter',
      tags: ['Access requests'],
      summary:
        "The requests waiting for a decision whose requester the caller manages (never their own), oldest first; with page, one page (total in X-Total-Count); q searches the requester's names and mail and the application",
      security: [{ bearer: [] }],
      request: { query: pendingRequestsQuery },
      responses: { 200: json(z.array(pendingRequestSchema), 'Requests to decide'), ...errors(400, 401, 403) },
    }),
    async (c) => {
      const { items, total } = await pendingRequests(c.var.ctx, c.get('caller'), c.req.valid('query'))
      return c.json(items, 200, totalCount(total))
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/bd/demande',
      tags: ['Access requests'],
      summary: `Ask for a demandable application: why, and the period wanted (from today, within a year, no longer than dureeMaxJours). One request waits per application (409 DEMANDE_EN_COURS); one the caller may launch already is 409 ACCES_DEJA_OUVERT. Undecided, it expires after ${REQUEST_EXPIRY_DAYS} days`,
      security: [{ bearer: [] }],
      request: { body: jsonBody(requestInputSchema) },
      responses: { 201: json(requestCreatedSchema, 'The request, waiting'), ...errors(400, 401, 403, 409) },
    }),
    async (c) => c.json(await createRequest(c.var.ctx, c.get('caller'), c.req.valid('json')), 201),
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/demande/{id}',
      tags: ['Access requests'],
      summary:
        'A request the caller may decide (any state), with the functions of their scope that open the application, the requester’s own structures first; q searches them',
      security: [{ bearer: [] }],
      request: { params: requestIdParam, query: requestDetailQuery },
      responses: { 200: json(requestDetailSchema, 'The request'), ...errors(400, 401, 403, 404) },
    }),
    async (c) =>
      c.json(await requestDetail(c.var.ctx, c.get('caller'), c.req.valid('param').id, c.req.valid('query').q), 200),
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/rest/bd/demande/{id}',
      tags: ['Access requests'],
      summary: "Withdraw one's own request while it waits (409 DEMANDE_TRAITEE once decided)",
      security: [{ bearer: [] }],
      request: { params: requestIdParam },
      responses: { 204: { description: 'Withdrawn' }, ...errors(400, 401, 403, 404, 409) },
    }),
    async (c) => {
      await withdrawRequest(c.var.ctx, c.get('caller'), c.req.valid('param').id)
      return c.body(null, 204)
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/bd/demande/{id}/decision',
      tags: ['Access requests'],
      summary:
        'Grant (a post of a function that opens the application, in a structure of the caller’s scope; the request’s dates unless given) or refuse (with the reason). The requester is told by mail. Decided meanwhile: 409 DEMANDE_TRAITEE; nobody decides their own (403)',
      security: [{ bearer: [] }],
      request: { params: requestIdParam, body: jsonBody(decisionInputSchema) },
      responses: { 200: json(decisionResultSchema, 'The decision'), ...errors(400, 401, 403, 404, 409) },
    }),
    async (c) =>
      c.json(await decideRequest(c.var.ctx, c.get('caller'), c.req.valid('param').id, c.req.valid('json')), 200),
  )
