import { createRoute, z } from '@hono/zod-openapi'
import type { Context, TypedResponse } from 'hono'
import { scimIdParam, scimListQuery } from '../../contract/machines/scim'
import type { AppEnv } from '../../lib/types'
import { router } from '../../lib/validation'
import { actorOf, callerChecked, callerFromBearer } from '../../services/core/actor'
import { resourceTypes, schemas, serviceProviderConfig } from '../../services/machines/scim/discovery'
import { SCIM_CONTENT_TYPE, ScimError } from '../../services/machines/scim/errors'
import { getScimGroup, groupsReadOnly, listScimGroups } from '../../services/machines/scim/groups'
import { listResponse } from '../../services/machines/scim/page'
import { createScimUser } from '../../services/machines/scim/user-create'
import { deleteScimUser, patchScimUser, precondition, replaceScimUser } from '../../services/machines/scim/user-writes'
import { getScimUser, listScimUsers } from '../../services/machines/scim/users'
import { serviceAccountWrites, serviceScopes } from '../../services/machines/service-calls'

/**
 * The SCIM 2.0 service provider (RFC 7644) at `/portail-backend/scim/v2`: for service accounts whose
 * token carries the scope `scim`, within their structure's sub-tree. Answers and errors are SCIM's
 * (`application/scim+json`; errors rendered by app.ts).
 */

const scimJson = (description: string) => ({
  content: { [SCIM_CONTENT_TYPE]: { schema: z.record(z.string(), z.unknown()) } },
  description,
})
const scimErrors = Object.fromEntries(
  ([400, 401, 403, 404, 429] as const).map((status) => [status, scimJson('SCIM error (RFC 7644 §3.12)')]),
)

/** An answer in SCIM's content type. */
function scim<T extends Record<string, unknown>, S extends 200 | 201 = 200>(
  c: Context<AppEnv>,
  body: T,
  headers: Record<string, string> = {},
  status: S = 200 as S,
) {
  const answer = c.json(body as Record<string, never>, status)
  answer.headers.set('Content-Type', SCIM_CONTENT_TYPE)
  for (const [name, value] of Object.entries(headers)) answer.headers.set(name, value)
  return answer
}

/** An answer in SCIM's content type whose JSON is written already (a page of users, as SQLite wrote them). */
const scimText = (c: Context<AppEnv>, text: string) =>
  c.body(text, 200, { 'Content-Type': SCIM_CONTENT_TYPE }) as unknown as TypedResponse<
    Record<string, never>,
    200,
    'json'
  >

/** A body in SCIM's content type (or plain JSON), read as it comes: the service reads its attributes. */
const scimBody = (description: string) => ({
  required: true,
  description,
  content: {
    [SCIM_CONTENT_TYPE]: { schema: z.record(z.string(), z.unknown()) },
    'application/json': { schema: z.record(z.string(), z.unknown()) },
  },
})
const writeErrors = Object.fromEntries(
  ([409, 412] as const).map((status) => [status, scimJson('SCIM error (RFC 7644 §3.12)')]),
)
const ifMatch = z.object({
  'if-match': z.string().max(200).optional().describe('W/"version": the write takes place only at that version (412)'),
})

const tags = ['SCIM 2.0']
const security = [{ bearer: [] }]

export const scimRoutes = router()

scimRoutes.use('/scim/v2/*', async (c, next) => {
  const ctx = c.var.ctx
  const caller = await callerFromBearer(ctx, c.req.header('Authorization')).catch(() => {
    throw new ScimError(401, 'A bearer access token is required', undefined, { 'WWW-Authenticate': 'Bearer' })
  })
  if (!serviceScopes(caller)?.includes('scim')) {
    throw new ScimError(403, 'SCIM takes the token of a service account with the scope scim')
  }
  if (!serviceAccountWrites(caller, c.req.method)) throw new ScimError(403, 'A read-only service account only reads')
  c.set('caller', caller)
  await next()
  if (callerChecked(ctx, caller)) return
  // Fail closed, as on the REST API: an answer given without checking the account could serve a deleted one.
  if (c.res.ok) {
    console.error(`${c.req.method} ${c.req.path} answered without checking its caller`)
    throw new ScimError(500, 'Technical error')
  }
  // A call refused before its check (a filter or a body it cannot read) counts against the account's rate all the
  // same; the check's own refusal (429, an account gone) answers instead.
  await actorOf(ctx, caller)
})

scimRoutes
  .openapi(
    createRoute({
      method: 'get',
      path: '/scim/v2/ServiceProviderConfig',
      tags,
      summary: 'SCIM: what the service provider supports (filter, sort, ETag; no bulk, no password change)',
      security,
      responses: { 200: scimJson('ServiceProviderConfig'), ...scimErrors },
    }),
    async (c) => {
      await checked(c)
      return scim(c, serviceProviderConfig(c.var.ctx.request.origin))
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/scim/v2/ResourceTypes',
      tags,
      summary: 'SCIM: the resource types (User, with the portal’s extension of posts)',
      security,
      responses: { 200: scimJson('ListResponse of ResourceType'), ...scimErrors },
    }),
    async (c) => {
      await checked(c)
      return scim(c, listResponse(resourceTypes(c.var.ctx.request.origin)))
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/scim/v2/Schemas',
      tags,
      summary: 'SCIM: the schemas of the resources, attribute by attribute',
      security,
      responses: { 200: scimJson('ListResponse of Schema'), ...scimErrors },
    }),
    async (c) => {
      await checked(c)
      return scim(c, listResponse(schemas(c.var.ctx.request.origin)))
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/scim/v2/Users',
      tags,
      summary:
        "SCIM: the users of the account's scope; filter (eq ne co sw ew pr gt ge lt le, and or not, parentheses) on userName, externalId, emails.value, name.familyName, name.givenName, active, meta.lastModified; startIndex, count (≤ 200), sortBy, sortOrder, attributes, excludedAttributes",
      security,
      request: { query: scimListQuery },
      responses: { 200: scimJson('ListResponse of User'), ...scimErrors },
    }),
    async (c) => scimText(c, await listScimUsers(c.var.ctx, c.get('caller'), c.req.valid('query'))),
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/scim/v2/Users/{id}',
      tags,
      summary: "SCIM: one user of the account's scope, with its ETag",
      security,
      request: { params: scimIdParam, query: scimListQuery.pick({ attributes: true, excludedAttributes: true }) },
      responses: { 200: scimJson('User'), ...scimErrors },
    }),
    async (c) => {
      const { user, version } = await getScimUser(
        c.var.ctx,
        c.get('caller'),
        c.req.valid('param').id,
        c.req.valid('query'),
      )
      return scim(c, user, { ETag: version })
    },
  )

scimRoutes
  .openapi(
    createRoute({
      method: 'post',
      path: '/scim/v2/Users',
      tags,
      summary:
        "SCIM: a new user (userName their login, emails their address) with their posts in the account's scope (the portal's extension); an active user with no password gets the invitation mail",
      security,
      request: { body: scimBody('User') },
      responses: { 201: scimJson('User'), ...scimErrors, ...writeErrors },
    }),
    async (c) => {
      const { user, version } = await createScimUser(c.var.ctx, c.get('caller'), c.req.valid('json'))
      return scim(c, user, { ETag: version, Location: user.meta.location }, 201)
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/scim/v2/Users/{id}',
      tags,
      summary: 'SCIM: the user deleted as the portal deletes (restorable by an administrator); If-Match',
      security,
      request: { params: scimIdParam, headers: ifMatch },
      responses: { 204: { description: 'Deleted' }, ...scimErrors, ...writeErrors },
    }),
    async (c) => {
      await deleteScimUser(c.var.ctx, c.get('caller'), c.req.valid('param').id, precondition(c.req.header('If-Match')))
      return c.body(null, 204)
    },
  )

/** PUT and PATCH of a user: the same request and answer, the body read as a resource or as operations. */
for (const [method, body, write, summary] of [
  [
    'put',
    'User',
    replaceScimUser,
    "SCIM: the user replaced (login, names, mail, active, externalId; the posts when the portal's extension is given); If-Match",
  ],
  [
    'patch',
    'PatchOp',
    patchScimUser,
    'SCIM: add, replace, remove (op in any case; paths such as emails[type eq "work"].value, name.familyName, the extension\'s postes; a path-less replace; active as "False"); If-Match',
  ],
] as const) {
  scimRoutes.openapi(
    createRoute({
      method,
      path: '/scim/v2/Users/{id}',
      tags,
      summary,
      security,
      request: { params: scimIdParam, headers: ifMatch, body: scimBody(body) },
      responses: { 200: scimJson('User'), ...scimErrors, ...writeErrors },
    }),
    async (c) => {
      const { user, version } = await write(
        c.var.ctx,
        c.get('caller'),
        c.req.valid('param').id,
        c.req.valid('json'),
        precondition(c.req.header('If-Match')),
      )
      return scim(c, user, { ETag: version })
    },
  )
}

scimRoutes
  .openapi(
    createRoute({
      method: 'get',
      path: '/scim/v2/Groups',
      tags,
      summary:
        "SCIM: the groups of the account's scope, one per function of a structure (displayName 'Structure / Fonction'), members the users with a current post there; filter on displayName and id",
      security,
      request: { query: scimListQuery },
      responses: { 200: scimJson('ListResponse of Group'), ...scimErrors },
    }),
    async (c) => scim(c, await listScimGroups(c.var.ctx, c.get('caller'), c.req.valid('query'))),
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/scim/v2/Groups/{id}',
      tags,
      summary: "SCIM: one group of the account's scope",
      security,
      request: { params: scimIdParam, query: scimListQuery.pick({ attributes: true, excludedAttributes: true }) },
      responses: { 200: scimJson('Group'), ...scimErrors },
    }),
    async (c) => scim(c, await getScimGroup(c.var.ctx, c.get('caller'), c.req.valid('param').id, c.req.valid('query'))),
  )

/** Groups are read-only: each write answers 501, once the caller is known to be an account of SCIM. */
for (const [method, path] of [
  ['post', '/scim/v2/Groups'],
  ['put', '/scim/v2/Groups/{id}'],
  ['patch', '/scim/v2/Groups/{id}'],
  ['delete', '/scim/v2/Groups/{id}'],
] as const) {
  scimRoutes.openapi(
    createRoute({
      method,
      path,
      tags,
      summary: 'SCIM: 501, groups are read-only (posts are written through the user’s extension, with their dates)',
      security,
      ...(path.endsWith('{id}') ? { request: { params: scimIdParam } } : {}),
      responses: { 501: scimJson('SCIM error: not implemented'), ...scimErrors },
    }),
    async (c) => {
      await checked(c)
      throw groupsReadOnly()
    },
  )
}

/** The account checked (live, counted) for an answer that reads nothing else. */
async function checked(c: Context<AppEnv>) {
  await actorOf(c.var.ctx, c.get('caller'))
}
