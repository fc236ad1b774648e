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
