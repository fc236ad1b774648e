import { createRoute, z } from '@hono/zod-openapi'
import {
  fonctionIdParam,
  fonctionInputSchema,
  fonctionUpdateSchema,
  structureFonctionSchema,
  structureIdParam,
} from '../../contract/organisation/structure'
import { router } from '../../lib/validation'
import {
  createFonction,
  deleteFonction,
  structureFonctions,
  updateFonction,
} from '../../services/organisation/fonctions'
import { errors, json, jsonBody } from '../openapi'

/**
 * The functions of a structure: every administrator manages those of the structures in their scope;
 * which applications a function grants, root administrators alone.
 */
export const fonctionRoutes = router()
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/fonction/structure/{id}',
      tags: ['Structures'],
      summary:
        'The functions of a structure of the caller’s scope, by name, each with the applications it grants and the posts that hold it',
      security: [{ bearer: [] }],
      request: { params: structureIdParam },
      responses: { 200: json(z.array(structureFonctionSchema), 'Functions'), ...errors(400, 401, 403, 404) },
    }),
    async (c) => c.json(await structureFonctions(c.var.ctx, c.get('caller'), c.req.valid('param').id), 200),
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/bd/fonction',
      tags: ['Structures'],
      summary:
        'Create a function in a structure of the caller’s scope; 409 FONCTION_LIBELLE_ALREADY_USED when the structure has one of that name (any case)',
      security: [{ bearer: [] }],
      request: { body: jsonBody(fonctionInputSchema) },
      responses: { 201: json(structureFonctionSchema, 'The new function'), ...errors(400, 401, 403, 409) },
    }),
    async (c) => {
      const fonction = await createFonction(c.var.ctx, c.get('caller'), c.req.valid('json'))
      return c.json(fonction, 201)
    },
  )
  .openapi(
    createRoute({
      method: 'put',
      path: '/rest/bd/fonction',
      tags: ['Structures'],
      summary:
        'Rename a function of a structure of the caller’s scope; with applications, set what it grants (root administrators); 409 FONCTION_LIBELLE_ALREADY_USED',
      security: [{ bearer: [] }],
      request: { body: jsonBody(fonctionUpdateSchema) },
      responses: { 200: json(structureFonctionSchema, 'The function'), ...errors(400, 401, 403, 404, 409) },
    }),
    async (c) => {
      const fonction = await updateFonction(c.var.ctx, c.get('caller'), c.req.valid('json'))
      return c.json(fonction, 200)
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/rest/bd/fonction/{id}',
      tags: ['Structures'],
      summary:
        'Delete a function of a structure of the caller’s scope with its grants; 409 FONCTION_HAS_POSTES while posts (past ones too) hold it, their count in attributs',
      security: [{ bearer: [] }],
      request: { params: fonctionIdParam },
      responses: { 204: { description: 'Deleted' }, ...errors(400, 401, 403, 404, 409) },
    }),
    async (c) => {
      await deleteFonction(c.var.ctx, c.get('caller'), c.req.valid('param').id)
      return c.body(null, 204)
    },
  )
