import { createRoute, z } from '@hono/zod-openapi'
import {
  authorizeResultSchema,
  authorizeSchema,
  carrierStructureSchema,
  offeredFonctionSchema,
  pendingUserSchema,
  registeredSchema,
  registrationIdParam,
  registrationListQuery,
  registrationSchema,
} from '../../contract/organisation/registration'
import { router } from '../../lib/validation'
import { carrierStructures, register } from '../../services/organisation/registration'
import { authorizeRegistration } from '../../services/organisation/registration-authorize'
import { listRegistrations, registrationFonctions } from '../../services/organisation/registration-queue'
import { errors, json, jsonBody, totalCount } from '../openapi'

/**
 * Carrier self-registration (spec §1, §4, §7): the public form's two calls, and the authorisation
 * queue of the administrators whose scope holds the carrier's company.
 */
export const registrationRoutes = router()
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/public/bd/transporteur/structures',
      tags: ['Registration'],
      summary: 'The carrier companies a visitor may register with, by name',
      responses: { 200: json(z.array(carrierStructureSchema), 'Carrier companies') },
    }),
    async (c) => c.json(await carrierStructures(c.var.ctx), 200),
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/public/bd/transporteur/inscription',
      tags: ['Registration'],
      summary:
        'Register a carrier: a pending, inactive account waiting for an administrator, with an existing company or a new one. Captcha required; limited per client. 409 MAIL_ALREADY_USED, STRUCTURE_NOM_ALREADY_USED',
      request: { body: jsonBody(registrationSchema) },
      responses: { 201: json(registeredSchema, 'Registered'), ...errors(400, 409, 429, 503) },
    }),
    async (c) => c.json(await register(c.var.ctx, c.req.valid('json')), 201),
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/authorize/get/user/all',
      tags: ['Registration'],
      summary:
        "The pending registrations of the caller's scope, those with a link first by expiry; with page, one page (total in X-Total-Count)",
      security: [{ bearer: [] }],
      request: { query: registrationListQuery },
      responses: { 200: json(z.array(pendingUserSchema), 'Pending registrations'), ...errors(400, 401, 403) },
    }),
    async (c) => {
      const { items, total } = await listRegistrations(c.var.ctx, c.get('caller'), c.req.valid('query'))
      return c.json(items, 200, totalCount(total))
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/authorize/user/{id}/fonctions',
      tags: ['Registration'],
      summary:
        "The functions an authorisation may give a pending registration a post of: its company's, or the carrier template's names for a company created then (id null)",
      security: [{ bearer: [] }],
      request: { params: registrationIdParam },
      responses: { 200: json(z.array(offeredFonctionSchema), 'Functions'), ...errors(400, 401, 403, 404) },
    }),
    async (c) => c.json(await registrationFonctions(c.var.ctx, c.get('caller'), c.req.valid('param').id), 200),
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/bd/authorize/user',
      tags: ['Registration'],
      summary:
        'Authorise a pending registration of the caller’s scope (send or renew its set-password link, valid 7 days) or refuse it (delete it); 404 once refused or deleted, 409 LISTE_UPDATE_FAILED once completed',
      security: [{ bearer: [] }],
      request: { body: jsonBody(authorizeSchema) },
      responses: { 200: json(authorizeResultSchema, 'The outcome'), ...errors(400, 401, 403, 404, 409, 429) },
    }),
    async (c) => {
      const result = await authorizeRegistration(c.var.ctx, c.get('caller'), c.req.valid('json'))
      return c.json(result, 200)
    },
  )
