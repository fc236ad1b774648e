import {
  SCIM_GROUP,
  SCIM_MAX_RESULTS,
  SCIM_PORTAL_USER,
  SCIM_USER,
  type ScimAttribute,
  type ScimResourceType,
  type ScimSchema,
  type ScimServiceProviderConfig,
} from '../../../contract/machines/scim'
import { scimBase } from './users'

/**
 * SCIM's discovery (RFC 7644 §4, RFC 7643 §5–7): what the portal supports, said truthfully — a client
 * (Entra ID, Okta) reads it to decide what to send.
 */

const CONFIG = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'
const RESOURCE_TYPE = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType'
const SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema'

export function serviceProviderConfig(origin: string): ScimServiceProviderConfig {
  return {
    schemas: [CONFIG],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: SCIM_MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: true },
    etag: { supported: true },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'OAuth Bearer Token',
        description:
          "A service account's access token with the scope scim (client credentials at /portail-backend/oidc/token)",
        specUri: 'https://www.rfc-editor.org/info/rfc6750',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${scimBase(origin)}/ServiceProviderConfig` },
  }
}

export function resourceTypes(origin: string): ScimResourceType[] {
  return [
    {
      schemas: [RESOURCE_TYPE],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      description: "The portal's users: its staff and the carriers' drivers",
      schema: SCIM_USER,
      schemaExtensions: [{ schema: SCIM_PORTAL_USER, required: false }],
      meta: { resourceType: 'ResourceType', location: `${scimBase(origin)}/ResourceTypes/User` },
    },
    {
      schemas: [RESOURCE_TYPE],
      id: 'Group',
      name: 'Group',
      endpoint: '/Groups',
      description: 'The functions of the structures, each with the users holding a current post in it (read-only)',
      schema: SCIM_GROUP,
      meta: { resourceType: 'ResourceType', location: `${scimBase(origin)}/ResourceTypes/Group` },
    },
  ]
}

const attribute = (name: string, description: string, rest: Partial<ScimAttribute> = {}): ScimAttribute => ({
  name,
  type: 'string',
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  description,
  ...rest,
})

const USER_ATTRIBUTES: ScimAttribute[] = [
  attribute(
    'userName',
    "The login one signs in with (at most 100 characters), unique whatever its case, and not another user's address: Entra ID's user principal name, say. A resource sent without emails takes it as the address too when it is one (a PUT, of a user whose login is their address)",
    {
      required: true,
      uniqueness: 'server',
    },
  ),
  attribute('name', 'The names', {
    type: 'complex',
    required: true,
    subAttributes: [
      attribute('givenName', 'First name (prenom), 3 to 50 characters', { required: true }),
      attribute('familyName', 'Last name (nom), 3 to 50 characters', { required: true }),
      attribute('formatted', 'givenName familyName', { mutability: 'readOnly' }),
    ],
  }),
  attribute('displayName', 'givenName familyName', { mutability: 'readOnly' }),
  attribute(
    'emails',
    'The one mail address (at most 50 characters): the primary one sent, else the work one. A user who has chosen a password moves to a new address once they confirm it from there; until then the current one shows',
    {
      type: 'complex',
      multiValued: true,
      subAttributes: [
        attribute('value', 'The address'),
        attribute('type', 'work', { mutability: 'readOnly' }),
        attribute('primary', 'true', { type: 'boolean', mutability: 'readOnly' }),
      ],
    },
  ),
  attribute('active', 'Whether the user may sign in', { type: 'boolean' }),
  attribute('externalId', "The provisioning client's id of the user", { caseExact: true }),
]

const POSTE_ATTRIBUTES: ScimAttribute[] = [
  attribute(
    'postes',
    "Current and future posts (at most 20), in the account's sub-tree: a write of them replaces those (add joins them); past ones are not shown and not changed",
    {
      type: 'complex',
      multiValued: true,
      subAttributes: [
        attribute('structure', 'The structure: value its id, display its name', { type: 'complex' }),
        attribute('fonction', 'The function, of that structure: value its id, display its name', { type: 'complex' }),
        attribute('dateDebut', 'First day, YYYY-MM-DD'),
        attribute('dateFin', 'Last day, YYYY-MM-DD'),
      ],
    },
  ),
]

const GROUP_ATTRIBUTES: ScimAttribute[] = [
  attribute('displayName', '"Structure / Fonction"', { required: true, mutability: 'readOnly' }),
  attribute('members', 'The users with a current post in the function', {
    type: 'complex',
    multiValued: true,
    mutability: 'readOnly',
    subAttributes: [
      attribute('value', "The user's id", { mutability: 'readOnly' }),
      attribute('display', 'givenName familyName', { mutability: 'readOnly' }),
      attribute('$ref', "The user's address", { type: 'reference', mutability: 'readOnly' }),
    ],
  }),
]

export function schemas(origin: string): ScimSchema[] {
  const schema = (id: string, name: string, description: string, attributes: ScimAttribute[]): ScimSchema => ({
    schemas: [SCHEMA],
    id,
    name,
    description,
    attributes,
    meta: { resourceType: 'Schema', location: `${scimBase(origin)}/Schemas/${id}` },
  })
  return [
    schema(SCIM_USER, 'User', 'A user of the portal', USER_ATTRIBUTES),
    schema(SCIM_PORTAL_USER, 'Portail user', "A user's posts in the organisation", POSTE_ATTRIBUTES),
    schema(SCIM_GROUP, 'Group', 'A function of a structure (read-only)', GROUP_ATTRIBUTES),
  ]
}
