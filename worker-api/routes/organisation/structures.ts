import { createRoute, z } from '@hono/zod-openapi'
import {
  idStructureParam,
  nomParam,
  nomTakenSchema,
  posteInputSchema,
  posteUpdateSchema,
  structureIdParam,
  structureInputSchema,
  structureListQuery,
  structureSchema,
  structureUsersQuery,
  structureUsersSchema,
  typeIdParam,
  typeStructureSchema,
} from '../../contract/organisation/structure'
import { posteSchema } from '../../contract/organisation/user'
import { router } from '../../lib/validation'
import { createPoste, deletePoste, updatePoste } from '../../services/organisation/postes'
import { structureUsers } from '../../services/organisation/structure-users'
import { createStructure, deleteStructure, updateStructure } from '../../services/organisation/structure-writes'
import {
  getStructure,
  listStructures,
  moveCandidates,
  parentCandidates,
  structureNom,
  structureTypes,
} from '../../services/organisation/structures'
import { errors, json, jsonBody, totalCount } from '../openapi'

/**
 * The organisation tree (spec §7): structures, their types and functions, their users and posts.
 * Administrators only, each inside their scope (DESIGN §4): anything outside it answers 403 and never
 * appears in a list.
 */
export const structureRoutes = router()
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/structure/user/me',
      tags: ['Structures'],
      summary:
        "The structures of the caller's scope, sorted by path; with page, one page of them (total in X-Total-Count)",
      security: [{ bearer: [] }],
      request: { query: structureListQuery },
      responses: { 200: json(z.array(structureSchema), 'Structures'), ...errors(400, 401, 403) },
    }),
    async (c) => {
      const { items, total } = await listStructures(c.var.ctx, c.get('caller'), c.req.valid('query'))
      return c.json(items, 200, totalCount(total))
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/structure/nom/{nom}',
      tags: ['Structures'],
      summary: 'Name uniqueness: the name as a structure holds it (any case), or null when it is free',
      security: [{ bearer: [] }],
      request: { params: nomParam },
      responses: { 200: json(nomTakenSchema, 'Taken or free'), ...errors(400, 401, 403) },
    }),
    async (c) => c.json(await structureNom(c.var.ctx, c.get('caller'), c.req.valid('param').nom), 200),
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/structure/parent/{typeId}',
      tags: ['Structures'],
      summary: 'The structures of the caller’s scope a structure of this type may hang below, sorted by path',
      security: [{ bearer: [] }],
      request: { params: typeIdParam },
      responses: { 200: json(z.array(structureSchema), 'Parent candidates'), ...errors(400, 401, 403, 404) },
    }),
    async (c) => c.json(await parentCandidates(c.var.ctx, c.get('caller'), c.req.valid('param').typeId), 200),
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/structure/{id}/parents',
      tags: ['Structures'],
      summary:
        'The structures of the caller’s scope this structure may move under (of its type’s parent type, outside its own sub-tree), sorted by path',
      security: [{ bearer: [] }],
      request: { params: structureIdParam },
      responses: { 200: json(z.array(structureSchema), 'Parent candidates'), ...errors(400, 401, 403, 404) },
    }),
    async (c) => c.json(await moveCandidates(c.var.ctx, c.get('caller'), c.req.valid('param').id), 200),
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/structure/{id}',
      tags: ['Structures'],
      summary: 'A structure of the caller’s scope, with its number of users',
      security: [{ bearer: [] }],
      request: { params: structureIdParam },
      responses: { 200: json(structureSchema, 'Structure'), ...errors(400, 401, 403, 404) },
    }),
    async (c) => c.json(await getStructure(c.var.ctx, c.get('caller'), c.req.valid('param').id), 200),
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/bd/structure',
      tags: ['Structures'],
      summary:
        'Create a structure below a parent of the caller’s scope of the type its type requires; 409 STRUCTURE_NOM_ALREADY_USED',
      security: [{ bearer: [] }],
      request: { body: jsonBody(structureInputSchema) },
      responses: { 201: json(structureSchema, 'The new structure'), ...errors(400, 401, 403, 409) },
    }),
    async (c) => {
      const structure = await createStructure(c.var.ctx, c.get('caller'), c.req.valid('json'))
      return c.json(structure, 201)
    },
  )
  .openapi(
    createRoute({
      method: 'put',
      path: '/rest/bd/structure',
      tags: ['Structures'],
      summary:
        'Rename, retype or move a structure of the caller’s scope below a parent of that scope (400 STRUCTURE_PARENT_INVALID below itself or its sub-tree, or without a parent but for the root); the sub-tree’s paths follow',
      security: [{ bearer: [] }],
      request: { body: jsonBody(structureInputSchema) },
      responses: { 200: json(structureSchema, 'The updated structure'), ...errors(400, 401, 403, 404, 409) },
    }),
    async (c) => {
      const structure = await updateStructure(c.var.ctx, c.get('caller'), c.req.valid('json'))
      return c.json(structure, 200)
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/rest/bd/structure/{id}',
      tags: ['Structures'],
      summary:
        'Delete a structure of the caller’s scope: 409 STRUCTURE_HAS_CHILD with children, STRUCTURE_HAS_USERS with posts or registrations',
      security: [{ bearer: [] }],
      request: { params: structureIdParam },
      responses: { 204: { description: 'Deleted' }, ...errors(400, 401, 403, 404, 409) },
    }),
    async (c) => {
      await deleteStructure(c.var.ctx, c.get('caller'), c.req.valid('param').id)
      return c.body(null, 204)
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/typestructure/me',
      tags: ['Structures'],
      summary: 'The types a structure may be given (every type but the root’s), from the top of the hierarchy down',
      security: [{ bearer: [] }],
      responses: { 200: json(z.array(typeStructureSchema), 'Structure types'), ...errors(401, 403) },
    }),
    async (c) => c.json(await structureTypes(c.var.ctx, c.get('caller')), 200),
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/utilisateur/structure/{idStructure}',
      tags: ['Structures'],
      summary:
        'The current and future users of a structure of the caller’s scope (q filters, page pages both lists), the users a post may be given to, and the functions',
      security: [{ bearer: [] }],
      request: { params: idStructureParam, query: structureUsersQuery },
      responses: { 200: json(structureUsersSchema, 'Structure users'), ...errors(400, 401, 403, 404) },
    }),
    async (c) =>
      c.json(
        await structureUsers(c.var.ctx, c.get('caller'), c.req.valid('param').idStructure, c.req.valid('query')),
        200,
      ),
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/bd/poste',
      tags: ['Posts'],
      summary:
        'Give a user the caller may manage a function in a structure of the caller’s scope over dates; 409 POSTE_ALREADY_EXIST when it overlaps the same one',
      security: [{ bearer: [] }],
      request: { body: jsonBody(posteInputSchema) },
      responses: { 201: json(posteSchema, 'The new post'), ...errors(400, 401, 403, 409) },
    }),
    async (c) => c.json(await createPoste(c.var.ctx, c.get('caller'), c.req.valid('json')), 201),
  )
  .openapi(
    createRoute({
      method: 'put',
      path: '/rest/bd/poste',
      tags: ['Posts'],
      summary:
        'Change the period of a post of a user the caller may manage, in a structure of their scope (extend it); 409 POSTE_ALREADY_EXIST when it would overlap another post of the same function there',
      security: [{ bearer: [] }],
      request: { body: jsonBody(posteUpdateSchema) },
      responses: { 200: json(posteSchema, 'The post'), ...errors(400, 401, 403, 404, 409) },
    }),
    async (c) => c.json(await updatePoste(c.var.ctx, c.get('caller'), c.req.valid('json')), 200),
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/rest/bd/poste/suppression/{id}',
      tags: ['Posts'],
      summary: 'Delete a post of a user the caller may manage (modification), in a structure of their scope',
      security: [{ bearer: [] }],
      request: { params: structureIdParam },
      responses: { 204: { description: 'Deleted' }, ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      await deletePoste(c.var.ctx, c.get('caller'), c.req.valid('param').id)
      return c.body(null, 204)
    },
  )
