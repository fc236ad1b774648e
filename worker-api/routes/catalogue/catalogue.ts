import { createRoute, z } from '@hono/zod-openapi'
import {
  applicationIdParam,
  applicationInputSchema,
  applicationListQuery,
  applicationQuery,
  applicationUpdateSchema,
  catalogueApplicationSchema,
  templateFonctionSchema,
  templateInputSchema,
  templatesSchema,
  typeIdParam,
} from '../../contract/catalogue/catalogue'
import { clientSecretSchema } from '../../contract/oidc/oidc'
import { router } from '../../lib/validation'
import { createApplication, deleteApplication, updateApplication } from '../../services/catalogue/application-writes'
import { getApplication, listApplications } from '../../services/catalogue/applications'
import { rotateSecret } from '../../services/catalogue/oidc-clients'
import { getTemplate, getTemplates, putTemplate } from '../../services/catalogue/templates'
import { errors, json, jsonBody, totalCount } from '../openapi'

/**
 * The catalogue: the applications the portal launches and the functions that grant them, managed by
 * root administrators (administrators with a current post on a root of the tree); any other caller 403.
 */
export const catalogueRoutes = router()
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/application',
      tags: ['Catalogue'],
      summary:
        'The catalogue of applications (root administrators); with page, one page of it (total in X-Total-Count)',
      security: [{ bearer: [] }],
      request: { query: applicationListQuery },
      responses: { 200: json(z.array(catalogueApplicationSchema), 'Applications'), ...errors(400, 401, 403) },
    }),
    async (c) => {
      const { items, total } = await listApplications(c.var.ctx, c.get('caller'), c.req.valid('query'))
      return c.json(items, 200, totalCount(total))
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/application/{id}',
      tags: ['Catalogue'],
      summary: 'One application of the catalogue (root administrators)',
      security: [{ bearer: [] }],
      request: { params: applicationIdParam, query: applicationQuery },
      responses: { 200: json(catalogueApplicationSchema, 'Application'), ...errors(400, 401, 403, 404) },
    }),
    async (c) =>
      c.json(
        await getApplication(c.var.ctx, c.get('caller'), c.req.valid('param').id, c.req.valid('query').fonctionsMax),
        200,
      ),
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/bd/application',
      tags: ['Catalogue'],
      summary:
        'Register an application, granted to the functions given (root administrators); 409 APPLICATION_LIBELLE_ALREADY_USED',
      security: [{ bearer: [] }],
      request: { body: jsonBody(applicationInputSchema) },
      responses: { 201: json(catalogueApplicationSchema, 'The new application'), ...errors(400, 401, 403, 409) },
    }),
    async (c) => {
      const application = await createApplication(c.var.ctx, c.get('caller'), c.req.valid('json'))
      return c.json(application, 201)
    },
  )
  .openapi(
    createRoute({
      method: 'put',
      path: '/rest/bd/application',
      tags: ['Catalogue'],
      summary:
        'Change an application and the functions that grant it (the whole list; root administrators). Switched off, its launch codes and sessions are revoked; 409 APPLICATION_LIBELLE_ALREADY_USED',
      security: [{ bearer: [] }],
      request: { body: jsonBody(applicationUpdateSchema) },
      responses: { 200: json(catalogueApplicationSchema, 'The application'), ...errors(400, 401, 403, 404, 409) },
    }),
    async (c) => {
      const application = await updateApplication(c.var.ctx, c.get('caller'), c.req.valid('json'))
      return c.json(application, 200)
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/rest/bd/application/{id}',
      tags: ['Catalogue'],
      summary:
        'Delete an application with its grants, launch codes and sessions; its log entries stay (root administrators)',
      security: [{ bearer: [] }],
      request: { params: applicationIdParam },
      responses: { 204: { description: 'Deleted' }, ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      await deleteApplication(c.var.ctx, c.get('caller'), c.req.valid('param').id)
      return c.body(null, 204)
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/bd/application/{id}/secret',
      tags: ['Catalogue'],
      summary:
        "A confidential OpenID Connect client's new secret, shown this once; the old one stops working at once (root administrators); 409 OIDC_CLIENT_NOT_CONFIDENTIAL for a public client or a launch-code application",
      security: [{ bearer: [] }],
      request: { params: applicationIdParam },
      responses: { 200: json(clientSecretSchema, 'The new secret'), ...errors(400, 401, 403, 404, 409) },
    }),
    async (c) => {
      const param = c.req.valid('param')
      return c.json(await rotateSecret(c.var.ctx, c.get('caller'), param.id), 200)
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/typestructure/fonctions',
      tags: ['Catalogue'],
      summary:
        'Every structure type with its template, and the applications a template may grant (root administrators)',
      security: [{ bearer: [] }],
      responses: { 200: json(templatesSchema, 'The templates'), ...errors(401, 403) },
    }),
    async (c) => c.json(await getTemplates(c.var.ctx, c.get('caller')), 200),
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/typestructure/{id}/fonctions',
      tags: ['Catalogue'],
      summary:
        'The functions a new structure of this type starts with, in order, and what each grants (root administrators)',
      security: [{ bearer: [] }],
      request: { params: typeIdParam },
      responses: { 200: json(z.array(templateFonctionSchema), 'The template'), ...errors(400, 401, 403, 404) },
    }),
    async (c) => c.json(await getTemplate(c.var.ctx, c.get('caller'), c.req.valid('param').id), 200),
  )
  .openapi(
    createRoute({
      method: 'put',
      path: '/rest/bd/typestructure/{id}/fonctions',
      tags: ['Catalogue'],
      summary:
        'Replace the template of a structure type (root administrators): a structure created from then on, in the portal or at a carrier’s authorisation, starts with these functions and grants',
      security: [{ bearer: [] }],
      request: {
        params: typeIdParam,
        body: jsonBody(templateInputSchema),
      },
      responses: { 200: json(z.array(templateFonctionSchema), 'The template'), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const template = await putTemplate(c.var.ctx, c.get('caller'), c.req.valid('param').id, c.req.valid('json'))
      return c.json(template, 200)
    },
  )
