import { createRoute, z } from '@hono/zod-openapi'
import {
  fournisseurIdParam,
  fournisseurInputSchema,
  fournisseurListQuery,
  fournisseurSchema,
  fournisseurUpdateSchema,
} from '../../contract/federation/providers'
import { router } from '../../lib/validation'
import {
  createFournisseur,
  deleteFournisseur,
  getFournisseur,
  listFournisseurs,
  updateFournisseur,
} from '../../services/federation/providers'
import { errors, json, jsonBody, totalCount } from '../openapi'

/**
 * Partners' identity providers (issue 63), administered by root administrators (administrators with a current post on
 * a root of the tree); any other caller 403.
 */
export const providerRoutes = router()
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/fournisseur',
      tags: ['Identity providers'],
      summary:
        'The identity providers (root administrators), searched by name, issuer or domain; with page, one page (total in X-Total-Count)',
      security: [{ bearer: [] }],
      request: { query: fournisseurListQuery },
      responses: { 200: json(z.array(fournisseurSchema), 'Identity providers'), ...errors(400, 401, 403) },
    }),
    async (c) => {
      const { items, total } = await listFournisseurs(c.var.ctx, c.get('caller'), c.req.valid('query'))
      return c.json(items, 200, totalCount(total))
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/fournisseur/{id}',
      tags: ['Identity providers'],
      summary: 'One identity provider (root administrators)',
      security: [{ bearer: [] }],
      request: { params: fournisseurIdParam },
      responses: { 200: json(fournisseurSchema, 'Identity provider'), ...errors(400, 401, 403, 404) },
    }),
    async (c) => c.json(await getFournisseur(c.var.ctx, c.get('caller'), c.req.valid('param').id), 200),
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/bd/fournisseur',
      tags: ['Identity providers'],
      summary:
        'Register an OpenID Connect provider (root administrators): its discovery document is read and checked first (400 IDP_DISCOVERY_FAILED with the reason); 409 IDP_ISSUER_ALREADY_USED, IDP_DOMAIN_ALREADY_USED (a domain belongs to one provider)',
      security: [{ bearer: [] }],
      request: { body: jsonBody(fournisseurInputSchema) },
      responses: { 201: json(fournisseurSchema, 'The new provider'), ...errors(400, 401, 403, 409) },
    }),
    async (c) => c.json(await createFournisseur(c.var.ctx, c.get('caller'), c.req.valid('json')), 201),
  )
  .openapi(
    createRoute({
      method: 'put',
      path: '/rest/bd/fournisseur',
      tags: ['Identity providers'],
      summary:
        'Change an identity provider (root administrators), its discovery document read again; without a secret the one set stays. Switched off, its sign-ins stop at once',
      security: [{ bearer: [] }],
      request: { body: jsonBody(fournisseurUpdateSchema) },
      responses: { 200: json(fournisseurSchema, 'The provider'), ...errors(400, 401, 403, 404, 409) },
    }),
    async (c) => c.json(await updateFournisseur(c.var.ctx, c.get('caller'), c.req.valid('json')), 200),
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/rest/bd/fournisseur/{id}',
      tags: ['Identity providers'],
      summary:
        "Delete an identity provider with its domains and its users' links (root administrators); the users keep their accounts and their other ways in",
      security: [{ bearer: [] }],
      request: { params: fournisseurIdParam },
      responses: { 204: { description: 'Deleted' }, ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      await deleteFournisseur(c.var.ctx, c.get('caller'), c.req.valid('param').id)
      return c.body(null, 204)
    },
  )
