import { createRoute } from '@hono/zod-openapi'
import {
  webhookCreatedSchema,
  webhookCreateSchema,
  webhookDeliveriesQuery,
  webhookDeliveryListSchema,
  webhookDeliveryParam,
  webhookDeliverySchema,
  webhookIdParam,
  webhookListQuery,
  webhookListSchema,
  webhookSchema,
  webhookSecretAnswerSchema,
  webhookSecretSchema,
  webhookUpdateSchema,
} from '../../contract/machines/webhooks'
import { router } from '../../lib/validation'
import { listDeliveries, resendDelivery, WEBHOOK_LOG_PAGE } from '../../services/machines/webhook-log'
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  rotateWebhookSecret,
  updateWebhook,
} from '../../services/machines/webhooks'
import { errors, json, jsonBody, totalCount } from '../openapi'

/**
 * Webhook subscriptions: an https address subscribed to the portal's events about a sub-tree of the caller's scope,
 * each delivery signed in Standard Webhooks' form. Administrators only; a program's token is refused here.
 */
export const webhookRoutes = router()
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/webhook',
      tags: ['Webhooks'],
      summary:
        "The webhook subscriptions of the caller's scope (their structure's), by address; with page, one page (total in X-Total-Count); q searches the address and description",
      security: [{ bearer: [] }],
      request: { query: webhookListQuery },
      responses: { 200: json(webhookListSchema, 'Subscriptions'), ...errors(400, 401, 403) },
    }),
    async (c) => {
      const { items, total } = await listWebhooks(c.var.ctx, c.get('caller'), c.req.valid('query'))
      return c.json(items, 200, totalCount(total))
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/bd/webhook',
      tags: ['Webhooks'],
      summary:
        "Subscribes an https address of a public host to events about a structure's sub-tree of the caller's scope; its signing secret (whsec_…) is in this answer only",
      security: [{ bearer: [] }],
      request: { body: jsonBody(webhookCreateSchema) },
      responses: {
        201: json(webhookCreatedSchema, 'The subscription and its secret'),
        ...errors(400, 401, 403, 404, 503),
      },
    }),
    async (c) => {
      c.header('Cache-Control', 'no-store')
      return c.json(await createWebhook(c.var.ctx, c.get('caller'), c.req.valid('json')), 201)
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/webhook/{id}',
      tags: ['Webhooks'],
      summary: "One webhook subscription of the caller's scope (never its secret)",
      security: [{ bearer: [] }],
      request: { params: webhookIdParam },
      responses: { 200: json(webhookSchema, 'Subscription'), ...errors(400, 401, 403, 404) },
    }),
    async (c) => c.json(await getWebhook(c.var.ctx, c.get('caller'), c.req.valid('param').id), 200),
  )
  .openapi(
    createRoute({
      method: 'patch',
      path: '/rest/bd/webhook/{id}',
      tags: ['Webhooks'],
      summary: 'Changes a subscription: its address, its events, its description, or whether it is delivered to',
      security: [{ bearer: [] }],
      request: { params: webhookIdParam, body: jsonBody(webhookUpdateSchema) },
      responses: { 200: json(webhookSchema, 'The subscription as it is now'), ...errors(400, 401, 403, 404) },
    }),
    async (c) =>
      c.json(await updateWebhook(c.var.ctx, c.get('caller'), c.req.valid('param').id, c.req.valid('json')), 200),
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/rest/bd/webhook/{id}',
      tags: ['Webhooks'],
      summary: 'Deletes a subscription: nothing more is delivered to it; the history keeps its address',
      security: [{ bearer: [] }],
      request: { params: webhookIdParam },
      responses: { 204: { description: 'Deleted' }, ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      await deleteWebhook(c.var.ctx, c.get('caller'), c.req.valid('param').id)
      return c.body(null, 204)
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/bd/webhook/{id}/secret',
      tags: ['Webhooks'],
      summary:
        'A new signing secret, in this answer only; the former one signs beside it 24 h (both signatures sent) unless revoquerAncien',
      security: [{ bearer: [] }],
      request: { params: webhookIdParam, body: jsonBody(webhookSecretSchema) },
      responses: { 200: json(webhookSecretAnswerSchema, 'The new secret'), ...errors(400, 401, 403, 404, 503) },
    }),
    async (c) => {
      c.header('Cache-Control', 'no-store')
      const answer = await rotateWebhookSecret(c.var.ctx, c.get('caller'), c.req.valid('param').id, c.req.valid('json'))
      return c.json(answer, 200)
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/webhook/{id}/livraisons',
      tags: ['Webhooks'],
      summary: `Its delivery log, newest first, a page of ${WEBHOOK_LOG_PAGE} unless taille says (total in X-Total-Count): each event's state, attempts and the receiver's last answer`,
      security: [{ bearer: [] }],
      request: { params: webhookIdParam, query: webhookDeliveriesQuery },
      responses: { 200: json(webhookDeliveryListSchema, 'Deliveries'), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const { items, total } = await listDeliveries(
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
      method: 'post',
      path: '/rest/bd/webhook/{id}/livraisons/{livraisonId}/renvoi',
      tags: ['Webhooks'],
      summary:
        "Sends a delivery again: due at once, its attempts counted afresh, after its person's earlier events, while the subscription is on",
      security: [{ bearer: [] }],
      request: { params: webhookDeliveryParam },
      responses: { 202: json(webhookDeliverySchema, 'The delivery, due'), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const { id, livraisonId } = c.req.valid('param')
      return c.json(await resendDelivery(c.var.ctx, c.get('caller'), id, livraisonId), 202)
    },
  )
