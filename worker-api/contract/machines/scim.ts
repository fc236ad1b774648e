import { z } from 'zod'

/** SCIM 2.0 (RFC 7643, RFC 7644) as the portal serves it at `/portail-backend/scim/v2`. */

export const SCIM_USER = 'urn:ietf:params:scim:schemas:core:2.0:User'
export const SCIM_GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group'
/** The portal's extension of a user: their posts. */
export const SCIM_PORTAL_USER = 'urn:ietf:params:scim:schemas:extension:portail:2.0:User'
export const SCIM_LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse'
export const SCIM_PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp'

/** The most resources a list answers at once (`count`, and the default). */
export const SCIM_MAX_RESULTS = 200

/** GET Users and Groups: RFC 7644 §3.4.2's parameters, as sent (bounded, read leniently). */
export const scimListQuery = z.object({
  filter: z.string().max(2000).optional(),
  startIndex: z.string().max(12).optional().describe('1-based; below 1 is 1'),
  count: z.string().max(12).optional().describe(`At most ${SCIM_MAX_RESULTS} (also the default); 0: the total only`),
  sortBy: z.string().max(200).optional(),
  sortOrder: z.string().max(20).optional().describe('ascending (default) or descending'),
  attributes: z.string().max(2000).optional(),
  excludedAttributes: z.string().max(2000).optional(),
})
export type ScimListQuery = z.infer<typeof scimListQuery>

export const scimIdParam = z.object({ id: z.string().max(40) })

/** A post in the portal's extension of a user. */
export type ScimPoste = {
  structure: { value: string; display: string }
  fonction: { value: string; display: string }
  /** ISO dates, 'YYYY-MM-DD'. */
  dateDebut: string
  dateFin: string
}

export type ScimUser = {
  schemas: string[]
  id: string
  externalId?: string
  userName: string
  name: { givenName: string; familyName: string; formatted: string }
  displayName: string
  emails: { value: string; type: 'work'; primary: true }[]
  active: boolean
  [SCIM_PORTAL_USER]: { postes: ScimPoste[] }
  meta: { resourceType: 'User'; created: string; lastModified: string; location: string; version: string }
}

/** A member of a group: a user with a current post in its function. */
export type ScimGroupMember = { value: string; display: string; $ref: string }

/** A group (RFC 7643 §4.2): a function of a structure; `members` only when they are answered. */
export type ScimGroup = {
  schemas: string[]
  id: string
  displayName: string
  members?: ScimGroupMember[]
  meta: { resourceType: 'Group'; location: string }
}

/** A ListResponse (RFC 7644 §3.4.2) of `R`. */
export type ScimListResponse<R> = {
  schemas: string[]
  totalResults: number
  startIndex: number
  itemsPerPage: number
  Resources: R[]
}

/** What an error says is wrong (RFC 7644 §3.12, table 9). */
export type ScimType =
  | 'invalidFilter'
  | 'invalidPath'
  | 'invalidValue'
  | 'invalidSyntax'
  | 'uniqueness'
  | 'mutability'
  | 'tooMany'
  | 'noTarget'

/** An error's body (RFC 7644 §3.12): `status` the HTTP status as a string. */
export type ScimErrorAnswer = { schemas: string[]; status: string; scimType?: ScimType; detail: string }

/** What the service provider supports (RFC 7643 §5). */
export type ScimServiceProviderConfig = {
  schemas: string[]
  patch: { supported: boolean }
  bulk: { supported: boolean; maxOperations: number; maxPayloadSize: number }
  filter: { supported: boolean; maxResults: number }
  changePassword: { supported: boolean }
  sort: { supported: boolean }
  etag: { supported: boolean }
  authenticationSchemes: {
    type: string
    name: string
    description: string
    specUri: string
    primary: boolean
  }[]
  meta: { resourceType: 'ServiceProviderConfig'; location: string }
}

/** A resource type (RFC 7643 §6). */
export type ScimResourceType = {
  schemas: string[]
  id: string
  name: string
  endpoint: string
  description: string
  schema: string
  schemaExtensions?: { schema: string; required: boolean }[]
  meta: { resourceType: 'ResourceType'; location: string }
}

/** An attribute of a schema (RFC 7643 §7). */
export type ScimAttribute = {
  name: string
  type: 'string' | 'boolean' | 'complex' | 'dateTime' | 'reference'
  multiValued: boolean
  required: boolean
  caseExact: boolean
  mutability: 'readOnly' | 'readWrite' | 'immutable' | 'writeOnly'
  returned: 'always' | 'default' | 'never' | 'request'
  uniqueness: 'none' | 'server' | 'global'
  description: string
  subAttributes?: ScimAttribute[]
}

/** A schema (RFC 7643 §7): a resource's attributes, or an extension's. */
export type ScimSchema = {
  schemas: string[]
  id: string
  name: string
  description: string
  attributes: ScimAttribute[]
  meta: { resourceType: 'Schema'; location: string }
}
