import { z } from 'zod'
import { pageQuery, positiveInt, ref } from '../common'
import { isClientUri } from '../oidc/oidc'

/**
 * Partners' identity providers (issue 63): OpenID Connect providers whose users sign in to the portal, administered by
 * root administrators at `rest/bd/fournisseur`.
 */

export const AUTHENTIFICATIONS = ['client_secret_basic', 'client_secret_post', 'private_key_jwt'] as const
export const PREMIERES_CONNEXIONS = ['RATTACHER', 'INSCRIRE', 'REFUSER'] as const
export const FOURNISSEUR_SORTS = ['nom', '-nom', 'issuer', '-issuer'] as const
/** The mail domains one provider may answer for. */
export const MAX_DOMAINES = 20

/** A mail domain: letters, digits and hyphens in dot-separated labels, at least two, lowercase. */
const DOMAIN = /^(?=.{3,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/

export const domaineSchema = z.string('validation.required').trim().toLowerCase().regex(DOMAIN, 'validation.domain')

/** OAuth scopes, space-separated (RFC 6749 §3.3), `openid` among them. */
export const scopesSchema = z
  .string()
  .trim()
  .max(200, 'validation.tooLong')
  .regex(/^[\x21\x23-\x5B\x5D-\x7E]+(?: [\x21\x23-\x5B\x5D-\x7E]+)*$/, 'validation.scopes')
  .refine((value) => value.split(' ').includes('openid'), 'validation.scopesOpenid')

const fournisseurFields = {
  nom: z
    .string('validation.required')
    .trim()
    .min(1, { message: 'validation.required', abort: true })
    .min(3, 'validation.nameLength')
    .max(50, 'validation.nameLength')
    .describe('The name on the sign-in button: "Continuer avec <nom>"'),
  issuer: z
    .string('validation.required')
    .trim()
    .min(1, { message: 'validation.required', abort: true })
    .max(255, 'validation.tooLong')
    .refine((value) => isClientUri(value), 'validation.issuer')
    .describe(
      "The provider's issuer identifier: its discovery document is read at <issuer>/.well-known/openid-configuration",
    ),
  clientId: z
    .string('validation.required')
    .trim()
    .min(1, { message: 'validation.required', abort: true })
    .max(255, 'validation.tooLong'),
  authentification: z
    .enum(AUTHENTIFICATIONS)
    .describe("How the portal proves itself at the token endpoint; private_key_jwt signs with the portal's key"),
  secret: z
    .string()
    .min(1)
    .max(512, 'validation.tooLong')
    .optional()
    .describe('The client secret (client_secret_*): never answered; on a change, absent keeps the one set'),
  scopes: scopesSchema.default('openid email profile'),
  domaines: z
    .array(domaineSchema)
    .max(MAX_DOMAINES, 'validation.tooMany')
    .default([])
    .describe('The mail domains the provider answers for; a domain belongs to one provider at most'),
  premiereConnexion: z
    .enum(PREMIERES_CONNEXIONS)
    .describe(
      'What a first sign-in does: RATTACHER attaches to the user who proved that address here (the provider asserting it verified), INSCRIRE queues a registration in the structure given, REFUSER refuses',
    ),
  structure: ref.nullable().optional().describe('The company structure of the registrations INSCRIRE queues'),
  confianceMfa: z
    .boolean()
    .default(false)
    .describe("true: the provider's second factor (amr/acr) stands for the portal's"),
  affiche: z.boolean().default(false).describe('true: the sign-in page lists the button'),
  actif: z.boolean().default(true),
}

const withStructureWhenQueued = <T extends z.ZodType<{ premiereConnexion: string; structure?: unknown }>>(schema: T) =>
  schema.refine((input) => input.premiereConnexion !== 'INSCRIRE' || Boolean(input.structure), {
    message: 'validation.required',
    path: ['structure'],
  })

const uniqueDomains = <T extends z.ZodType<{ domaines: string[] }>>(schema: T) =>
  schema.refine((input) => new Set(input.domaines).size === input.domaines.length, {
    message: 'validation.duplicate',
    path: ['domaines'],
  })

export const fournisseurInputSchema = uniqueDomains(withStructureWhenQueued(z.object(fournisseurFields)))
export type FournisseurInput = z.infer<typeof fournisseurInputSchema>

export const fournisseurUpdateSchema = uniqueDomains(
  withStructureWhenQueued(z.object({ id: positiveInt(), ...fournisseurFields })),
)
export type FournisseurUpdate = z.infer<typeof fournisseurUpdateSchema>

/** What the portal read of the provider's discovery document. */
export const decouverteSchema = z.object({
  authorizationEndpoint: z.string(),
  tokenEndpoint: z.string(),
  jwksUri: z.string(),
  endSessionEndpoint: z.string().nullable(),
  authentifications: z.array(z.string()).describe('token_endpoint_auth_methods_supported'),
  algorithmes: z.array(z.string()).describe('id_token_signing_alg_values_supported'),
  lueLe: z.string().describe('When it was read (ISO 8601)'),
})

export const fournisseurSchema = z.object({
  id: z.number().int(),
  nom: z.string(),
  issuer: z.string(),
  clientId: z.string(),
  authentification: z.enum(AUTHENTIFICATIONS),
  secretDefini: z.boolean().describe('Whether a client secret is set (it is never answered)'),
  scopes: z.string(),
  domaines: z.array(z.string()),
  premiereConnexion: z.enum(PREMIERES_CONNEXIONS),
  structure: z.object({ id: z.number().int(), nom: z.string() }).nullable(),
  confianceMfa: z.boolean(),
  affiche: z.boolean(),
  actif: z.boolean(),
  decouverte: decouverteSchema,
  liens: z.number().int().describe('Users linked to an identity at this provider'),
})
export type Fournisseur = z.infer<typeof fournisseurSchema>

export const fournisseurListQuery = z.object({
  ...pageQuery,
  tri: z.enum(FOURNISSEUR_SORTS).optional().describe('Sort (default nom; a leading minus sorts descending)'),
})
export const fournisseurIdParam = z.object({ id: positiveInt() })
