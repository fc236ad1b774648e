import { z } from 'zod'
import { clientHostKind } from '../oidc/oidc'
import { samlLogoutSequenceSchema } from '../sign-in/auth'

/** The name identifier a SAML application receives: the user's address, a stable opaque id of its own, or a new one each time. */
export const NAME_ID_FORMATS = ['email', 'persistent', 'transient'] as const
export type NameIdFormat = (typeof NAME_ID_FORMATS)[number]

/**
 * What the portal may send about the user as attributes: the mail, the first and last names, the login, the current
 * posts (one value "structure/function" each), whether the user administers ("true" or "false").
 */
export const SAML_ATTRIBUTE_SOURCES = ['mail', 'prenom', 'nom', 'login', 'postes', 'admin'] as const
export type SamlAttributeSource = (typeof SAML_ATTRIBUTE_SOURCES)[number]

/** The largest metadata accepted (a pasted or uploaded file), and the most of each list a service provider has. */
export const SP_METADATA_MAX_BYTES = 64 * 1024
export const SP_ACS_MAX = 10
export const SP_CERTIFICATES_MAX = 4
export const SAML_ATTRIBUTES_MAX = 12
export const SP_URI_MAX_LENGTH = 2000

/**
 * An address of a service provider (where the browser posts a response, or is sent to sign out): https, on any host,
 * the organisation's own network included (the portal never calls it itself); http only on this machine, in
 * development and tests (the service's check).
 */
export function isServiceProviderUri(value: string): boolean {
  try {
    const url = new URL(value)
    if (url.hash || value.includes('#') || url.username || url.password || url.host === '') return false
    if (url.protocol === 'https:') return true
    return url.protocol === 'http:' && clientHostKind(url.hostname) === 'loopback'
  } catch {
    return false
  }
}

const spUri = z
  .string('validation.required')
  .trim()
  .min(1, { message: 'validation.required', abort: true })
  .max(SP_URI_MAX_LENGTH, 'validation.tooLong')
  .refine(isServiceProviderUri, 'validation.samlUri')

const attributeSchema = z.object({
  source: z.enum(SAML_ATTRIBUTE_SOURCES, 'validation.required'),
  nom: z
    .string('validation.required')
    .trim()
    .min(1, { message: 'validation.required', abort: true })
    .max(256, 'validation.tooLong')
    .describe('The attribute’s name as the application expects it (urn:oid:0.9.2342.19200300.100.1.3, mail, …)'),
})

/**
 * A SAML application's service provider as POST and PUT rest/bd/application take it: its metadata (the portal reads
 * entityID, services and certificates from it), or the same facts typed; then what the portal sends it.
 */
export const samlServiceProviderInputSchema = z
  .object({
    metadata: z
      .string()
      .max(SP_METADATA_MAX_BYTES, 'validation.tooLong')
      .nullable()
      .optional()
      .describe(
        `The service provider's metadata XML (${SP_METADATA_MAX_BYTES / 1024} KiB at most): when given, what it says replaces the fields typed below. On PUT, with neither metadata nor entityId, the service provider registered is kept and only what the portal sends changes`,
      ),
    entityId: z
      .string()
      .trim()
      .max(1024, 'validation.tooLong')
      .optional()
      .describe('Its entityID (required without metadata; one application per entityID)'),
    assertionConsumerServices: z
      .array(spUri)
      .max(SP_ACS_MAX, 'validation.tooMany')
      .optional()
      .describe('Where responses are posted (HTTP-POST), the first for a launch from the launcher'),
    singleLogoutService: spUri.nullable().optional().describe('Where a logout request is sent (HTTP-Redirect)'),
    certificates: z
      .array(z.string().max(8192, 'validation.tooLong'))
      .max(SP_CERTIFICATES_MAX, 'validation.tooMany')
      .optional()
      .describe('Its signing certificates, PEM or base64'),
    authnRequestsSigned: z.boolean().optional().describe('It signs its requests: an unsigned one is refused'),
    nameIdFormat: z.enum(NAME_ID_FORMATS, 'validation.required').default('email'),
    signResponse: z.boolean().default(false).describe('Sign the response'),
    signAssertion: z.boolean().default(true).describe('Sign the assertion (the default)'),
    attributes: z.array(attributeSchema).max(SAML_ATTRIBUTES_MAX, 'validation.tooMany').default([]),
  })
  .superRefine((sp, ctx) => {
    // Typed without metadata, a service provider has its services. Neither metadata nor entityID: on PUT, the one
    // registered is kept (only what the portal sends changes); on POST, required (applicationInputSchema).
    if (!sp.metadata && sp.entityId && !sp.assertionConsumerServices?.length)
      ctx.addIssue({ code: 'custom', message: 'validation.required', path: ['assertionConsumerServices'] })
    if (!sp.signResponse && !sp.signAssertion)
      ctx.addIssue({ code: 'custom', message: 'validation.samlUnsigned', path: ['signAssertion'] })
  })
export type SamlServiceProviderInput = z.infer<typeof samlServiceProviderInputSchema>

/** A SAML application's service provider as the catalogue answers it. */
export const samlServiceProviderSchema = z.object({
  entityId: z.string(),
  assertionConsumerServices: z.array(z.string()),
  singleLogoutService: z.string().nullable(),
  certificates: z
    .array(z.object({ sujet: z.string(), expire: z.string().nullable().describe('Its notAfter, ISO 8601') }))
    .describe('Its signing certificates, by subject and expiry'),
  authnRequestsSigned: z.boolean(),
  nameIdFormat: z.enum(NAME_ID_FORMATS),
  signResponse: z.boolean(),
  signAssertion: z.boolean(),
  attributes: z.array(z.object({ source: z.enum(SAML_ATTRIBUTE_SOURCES), nom: z.string() })),
})
export type SamlServiceProvider = z.infer<typeof samlServiceProviderSchema>

/** A response the browser posts to a service provider (HTTP-POST binding): the form's address and its fields. */
export const samlPostSchema = z.object({
  url: z.string().describe('The assertion consumer service the form is posted to'),
  SAMLResponse: z.string().describe('The signed response, base64'),
  RelayState: z
    .string()
    .nullable()
    .describe('Given back as the service provider sent it (or the application’s address)'),
})
export type SamlPost = z.infer<typeof samlPostSchema>

/** The longest name of a waiting request (the page's address carries it). */
export const SAML_REQUEST_NAME_MAX = 64

export const samlAnswerInputSchema = z.object({
  demande: z
    .string()
    .min(1)
    .max(SAML_REQUEST_NAME_MAX)
    .describe('The waiting request, as the single sign-on service named it to the portal’s page'),
})

/** What the portal's single sign-on page does for its signed-in user: post the response, or sign in again first. */
export const samlAnswerSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('post'), libelle: z.string(), post: samlPostSchema }),
  z
    .object({ action: z.literal('login'), libelle: z.string() })
    .describe('The service provider asked for a new sign-in (ForceAuthn) and the session’s is older than its request'),
])
export type SamlAnswer = z.infer<typeof samlAnswerSchema>

/**
 * Why the single sign-on service refused a request (the portal's page says it, by this name): not a request, too
 * large, of no application of the portal, unsigned or badly signed, too old, already presented, to an address not
 * registered, or asking what the portal does not do; a logout response that answers no logout request of the portal's.
 */
export const SAML_REFUSALS = [
  'MALFORMED',
  'NOT_A_REQUEST',
  'TOO_LARGE',
  'UNKNOWN_SP',
  'UNSIGNED',
  'BAD_SIGNATURE',
  'TOO_OLD',
  'REPLAYED',
  'ACS_NOT_REGISTERED',
  'UNSUPPORTED',
  'UNEXPECTED',
  'OFF',
] as const
export type SamlRefusal = (typeof SAML_REFUSALS)[number]

/** Whether a service provider's input names one (its metadata, or a typed entityID): else it keeps the one registered. */
export const namesServiceProvider = (sp: { metadata?: string | null; entityId?: string }) =>
  Boolean(sp.metadata || sp.entityId)

export const samlLogoutStepInputSchema = z.object({
  suite: samlLogoutSequenceSchema,
  sessionPortail: z
    .string()
    .max(SAML_REQUEST_NAME_MAX)
    .optional()
    .describe(
      'The portal session signed in on the page, if any (the `sid` of its token): whether the sequence ended it',
    ),
})

/** A message the browser carries to a service provider's single logout service: by its address, or a form. */
const samlLogoutMessageSchema = z.discriminatedUnion('binding', [
  z.object({
    binding: z.literal('redirect'),
    url: z.string().describe('The single logout service, the signed message in its address (HTTP-Redirect)'),
  }),
  z.object({
    binding: z.literal('post'),
    url: z.string().describe('The single logout service the form is posted to (HTTP-POST)'),
    champ: z.enum(['SAMLRequest', 'SAMLResponse']),
    valeur: z.string().describe('The signed message, base64'),
    RelayState: z.string().nullable(),
  }),
])
export type SamlLogoutMessage = z.infer<typeof samlLogoutMessageSchema>

/**
 * The next step of a logout sequence: tell the next application (`request`), answer the application that asked for the
 * logout (`response`), or nothing more (`done`: the portal's sign-in page).
 */
export const samlLogoutStepSchema = z.object({
  action: z.enum(['request', 'response', 'done']),
  libelle: z.string().nullable().describe('The application told or answered'),
  message: samlLogoutMessageSchema.nullable(),
  sessionFinie: z.boolean().describe('Whether the sequence ended the portal session the page named'),
})
export type SamlLogoutStep = z.infer<typeof samlLogoutStepSchema>

/**
 * The cookie that binds a logout sequence to its browser: set by the sign-out and by the single logout service, read by
 * the logout page only (never in an address, never sent to an application), for as long as a sequence lasts.
 */
export const SAML_LOGOUT_COOKIE = 'portail-saml-slo'
export const SAML_LOGOUT_SECONDS = 600

/** A new logout sequence's name: 32 random bytes, base64url. */
export function newSamlLogoutSequence(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32))
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '')
}

/** The `Set-Cookie` of a logout sequence (null: the cookie cleared). */
export const samlLogoutCookie = (suite: string | null, https: boolean) =>
  [
    `${SAML_LOGOUT_COOKIE}=${suite ?? ''}`,
    'Path=/saml',
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${suite ? SAML_LOGOUT_SECONDS : 0}`,
    ...(https ? ['Secure'] : []),
  ].join('; ')
