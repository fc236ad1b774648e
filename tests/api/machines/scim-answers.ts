import { z } from 'zod'
import {
  SCIM_PORTAL_USER,
  type ScimAttribute,
  type ScimErrorAnswer,
  type ScimGroup,
  type ScimListResponse,
  type ScimPoste,
  type ScimResourceType,
  type ScimSchema,
  type ScimServiceProviderConfig,
  type ScimType,
  type ScimUser,
} from '../../../worker-api/contract/machines/scim'

/**
 * SCIM's answers (RFC 7643, RFC 7644), which the typed client does not cover: their endpoints answer in SCIM's content
 * type, outside the API's typed chain. Each is read through a schema tied to the type the Worker builds (`satisfies`),
 * so a changed answer fails the typecheck, and an answer of another shape fails the test where it is read, never a
 * cast. Objects are read strictly: a key the type lacks fails the read too, and a test comparing an answer whole
 * compares all of it.
 */

/** A reference to a structure or a function in a post: its id and its name. */
const reference = z.strictObject({ value: z.string(), display: z.string() })

/** A post in the portal's extension of a user. */
const scimPoste = z.strictObject({
  structure: reference,
  fonction: reference,
  dateDebut: z.string(),
  dateFin: z.string(),
}) satisfies z.ZodType<ScimPoste>

/** A user, whole: as written (POST, PUT, PATCH), read alone or listed without `attributes`. */
export const scimUser = z.strictObject({
  schemas: z.array(z.string()),
  id: z.string(),
  externalId: z.string().optional(),
  userName: z.string(),
  name: z.strictObject({ givenName: z.string(), familyName: z.string(), formatted: z.string() }),
  displayName: z.string(),
  emails: z.array(z.strictObject({ value: z.string(), type: z.literal('work'), primary: z.literal(true) })),
  active: z.boolean(),
  [SCIM_PORTAL_USER]: z.strictObject({ postes: z.array(scimPoste) }),
  meta: z.strictObject({
    resourceType: z.literal('User'),
    created: z.string(),
    lastModified: z.string(),
    location: z.string(),
    version: z.string(),
  }),
}) satisfies z.ZodType<ScimUser>

/**
 * A user as `attributes` or `excludedAttributes` may leave it: `id` and `schemas` always, the rest as asked (a
 * sub-attribute keeps its parent with that part only), kept as answered.
 */
export const projectedUser = z.looseObject({ schemas: z.array(z.string()), id: z.string() }) satisfies z.ZodType<
  Partial<ScimUser>
>

/** A group; `members` only when they are answered. */
export const scimGroup = z.strictObject({
  schemas: z.array(z.string()),
  id: z.string(),
  displayName: z.string(),
  members: z.array(z.strictObject({ value: z.string(), display: z.string(), $ref: z.string() })).optional(),
  meta: z.strictObject({ resourceType: z.literal('Group'), location: z.string() }),
}) satisfies z.ZodType<ScimGroup>

/** A ListResponse of `item`s. */
const scimList = <T>(item: z.ZodType<T>) =>
  z.strictObject({
    schemas: z.array(z.string()),
    totalResults: z.number(),
    startIndex: z.number(),
    itemsPerPage: z.number(),
    Resources: z.array(item),
  }) satisfies z.ZodType<ScimListResponse<T>>

/** The error keywords the Worker answers: the record's type makes the list whole. */
const SCIM_TYPES: { [T in ScimType]: T } = {
  invalidFilter: 'invalidFilter',
  invalidPath: 'invalidPath',
  invalidValue: 'invalidValue',
  invalidSyntax: 'invalidSyntax',
  uniqueness: 'uniqueness',
  mutability: 'mutability',
  tooMany: 'tooMany',
  noTarget: 'noTarget',
}

/** A SCIM error's body (RFC 7644 §3.12). */
export const scimError = z.strictObject({
  schemas: z.array(z.string()),
  status: z.string(),
  scimType: z.enum(SCIM_TYPES).optional(),
  detail: z.string(),
}) satisfies z.ZodType<ScimErrorAnswer>

/** What the service provider says it supports. */
const serviceProviderConfig = z.strictObject({
  schemas: z.array(z.string()),
  patch: z.strictObject({ supported: z.boolean() }),
  bulk: z.strictObject({ supported: z.boolean(), maxOperations: z.number(), maxPayloadSize: z.number() }),
  filter: z.strictObject({ supported: z.boolean(), maxResults: z.number() }),
  changePassword: z.strictObject({ supported: z.boolean() }),
  sort: z.strictObject({ supported: z.boolean() }),
  etag: z.strictObject({ supported: z.boolean() }),
  authenticationSchemes: z.array(
    z.strictObject({
      type: z.string(),
      name: z.string(),
      description: z.string(),
      specUri: z.string(),
      primary: z.boolean(),
    }),
  ),
  meta: z.strictObject({ resourceType: z.literal('ServiceProviderConfig'), location: z.string() }),
}) satisfies z.ZodType<ScimServiceProviderConfig>

/** A resource type, as `/ResourceTypes` lists them. */
export const scimResourceType = z.strictObject({
  schemas: z.array(z.string()),
  id: z.string(),
  name: z.string(),
  endpoint: z.string(),
  description: z.string(),
  schema: z.string(),
  schemaExtensions: z.array(z.strictObject({ schema: z.string(), required: z.boolean() })).optional(),
  meta: z.strictObject({ resourceType: z.literal('ResourceType'), location: z.string() }),
}) satisfies z.ZodType<ScimResourceType>

/** An attribute of a schema, with its own sub-attributes (its type named, not `satisfies`: the schema is recursive). */
const scimAttribute: z.ZodType<ScimAttribute> = z.strictObject({
  name: z.string(),
  type: z.enum(['string', 'boolean', 'complex', 'dateTime', 'reference']),
  multiValued: z.boolean(),
  required: z.boolean(),
  caseExact: z.boolean(),
  mutability: z.enum(['readOnly', 'readWrite', 'immutable', 'writeOnly']),
  returned: z.enum(['always', 'default', 'never', 'request']),
  uniqueness: z.enum(['none', 'server', 'global']),
  description: z.string(),
  get subAttributes() {
    return z.array(scimAttribute).optional()
  },
})

/** A schema, as `/Schemas` lists them. */
export const scimSchema = z.strictObject({
  schemas: z.array(z.string()),
  id: z.string(),
  name: z.string(),
  description: z.string(),
  attributes: z.array(scimAttribute),
  meta: z.strictObject({ resourceType: z.literal('Schema'), location: z.string() }),
}) satisfies z.ZodType<ScimSchema>

/** The user of an answer (its status and content type checked by the caller). */
export async function scimUserBody(response: Response): Promise<ScimUser> {
  return scimUser.parse(await response.json())
}

/** The ListResponse of an answer, its resources read as `item`. */
export async function scimListBody<T>(response: Response, item: z.ZodType<T>): Promise<ScimListResponse<T>> {
  return scimList(item).parse(await response.json())
}

/** The body of a SCIM error's answer (its status checked by the caller). */
export async function scimErrorBody(response: Response): Promise<ScimErrorAnswer> {
  return scimError.parse(await response.json())
}

/** The ServiceProviderConfig of an answer. */
export async function serviceProviderConfigBody(response: Response): Promise<ScimServiceProviderConfig> {
  return serviceProviderConfig.parse(await response.json())
}
