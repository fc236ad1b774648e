import { z } from 'zod'
import { pageQuery, positiveInt, ref } from '../common'
import { factorProofSchema } from '../sign-in/mfa'

/**
 * Service accounts (`compte de service`): programs that sign in with client credentials and act within
 * their structure's sub-tree, as an administrator of it (or a non-administrator), under the scopes
 * granted to them.
 */

/** What a service account's token may reach: `api`, the REST API; `scim`, SCIM 2.0; `logs`, the history. */
export const SERVICE_SCOPES = ['api', 'scim', 'logs'] as const
export type ServiceScope = (typeof SERVICE_SCOPES)[number]

/** The most public keys an account registers for `private_key_jwt`. */
export const SERVICE_KEYS_MAX = 5

/** The hours a rotated secret keeps working, unless revoked at once. */
export const PREVIOUS_SECRET_HOURS = 24

/**
 * A public key as a JWK (RFC 7517): RSA, EC or OKP, its public members only. A private member (`d`,
 * the primes) is refused: a private key never leaves its holder.
 */
const publicJwkSchema = z
  .object({
    kty: z.enum(['RSA', 'EC', 'OKP']),
    kid: z.string().min(1).max(100).optional(),
    alg: z.enum(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'EdDSA']).optional(),
    use: z.literal('sig').optional(),
    n: z.string().max(1024).optional(),
    e: z.string().max(16).optional(),
    crv: z.enum(['P-256', 'P-384', 'Ed25519']).optional(),
    x: z.string().max(128).optional(),
    y: z.string().max(128).optional(),
  })
  .strict()

export const jwksSchema = z
  .object({ keys: z.array(publicJwkSchema).min(1).max(SERVICE_KEYS_MAX) })
  .describe(`The public keys of private_key_jwt (RFC 7523), at most ${SERVICE_KEYS_MAX}; each with a kid when several`)
  .refine(
    ({ keys }) =>
      keys.length === 1 || (keys.every((key) => key.kid) && new Set(keys.map((key) => key.kid)).size === keys.length),
    { message: 'validation.invalid', path: ['keys'] },
  )
export type Jwks = z.infer<typeof jwksSchema>

const nomSchema = z
  .string('validation.required')
  .trim()
  .min(3, 'validation.nameLength')
  .max(50, 'validation.nameLength')

const scopesSchema = z
  .array(z.enum(SERVICE_SCOPES))
  .min(1, 'validation.required')
  .max(SERVICE_SCOPES.length)
  .refine((scopes) => new Set(scopes).size === scopes.length, 'validation.invalid')

/** POST rest/bd/compteService. */
export const serviceAccountCreateSchema = z
  .object({
    nom: nomSchema,
    description: z.string().trim().max(200, 'validation.tooLong').nullish(),
    structure: ref,
    admin: z.boolean(),
    scopes: scopesSchema,
    jwks: jwksSchema.nullish(),
    preuve: factorProofSchema
      .optional()
      .describe("The creating administrator's password or current code: required for an administrator account"),
  })
  .strict()
export type ServiceAccountCreate = z.infer<typeof serviceAccountCreateSchema>

/**
 * PATCH rest/bd/compteService/{id}: what changes of an account (one thing at least), under the same client id. What
 * widens an administrator account (its scopes, its keys, switching it on again) asks for the caller's proof.
 */
export const serviceAccountUpdateSchema = z
  .object({
    nom: nomSchema.optional(),
    description: z.string().trim().max(200, 'validation.tooLong').nullish(),
    scopes: scopesSchema.optional().describe('What its tokens may be granted from its next token on'),
    actif: z.boolean().optional().describe('false: switched off, its tokens and calls refused at once; true: on again'),
    jwks: jwksSchema
      .optional()
      .describe('Its public keys replaced (a keys-only account): assertions signed by the former ones are refused'),
    preuve: factorProofSchema
      .optional()
      .describe(
        "The caller's password or current code: required to change an administrator account's scopes or keys, or to switch it on",
      ),
  })
  .strict()
  .refine(
    (input) =>
      [input.nom, input.description, input.scopes, input.actif, input.jwks].some((value) => value !== undefined),
    { message: 'validation.required', path: ['nom'] },
  )
export type ServiceAccountUpdate = z.infer<typeof serviceAccountUpdateSchema>

/** What a creation answers: the client's id, and its secret, shown this once (none for a keys-only account). */
export const serviceAccountCreatedSchema = z.object({
  id: z.number().int(),
  clientId: z.string(),
  clientSecret: z.string().optional(),
})
export type ServiceAccountCreated = z.infer<typeof serviceAccountCreatedSchema>

/** POST rest/bd/compteService/{id}/secret. */
export const serviceSecretSchema = z
  .object({
    revoquerAncien: z
      .boolean()
      .optional()
      .describe(`true: the former secret stops at once; else it keeps working ${PREVIOUS_SECRET_HOURS} h`),
    preuve: factorProofSchema
      .optional()
      .describe("The caller's password or current code: required for an administrator account's secret"),
    methode: z
      .enum(['client_secret'])
      .optional()
      .describe(
        'client_secret: a keys-only account (private_key_jwt) signs in with this secret from now on, its keys forgotten; without it, such an account answers 409 SERVICE_ACCOUNT_KEYS_ONLY',
      ),
  })
  .strict()
export type ServiceSecretInput = z.infer<typeof serviceSecretSchema>
export const serviceSecretAnswerSchema = z.object({
  clientSecret: z.string(),
  ancienSecretExpire: z.string().nullable().describe('Until when the former secret works (ISO), null if none'),
})

export const serviceAccountSchema = z.object({
  id: z.number().int(),
  nom: z.string(),
  description: z.string().nullable(),
  structure: z.object({ id: z.number().int(), nom: z.string() }),
  admin: z.boolean(),
  scopes: z.array(z.enum(SERVICE_SCOPES)),
  clientId: z.string(),
  actif: z.boolean().describe('false: switched off (PATCH actif), its tokens and calls refused'),
  secret: z.boolean().describe('Whether it has a secret (client_secret_basic / client_secret_post)'),
  cles: z.number().int().describe('How many public keys it registered (private_key_jwt)'),
  ancienSecretExpire: z.string().nullable(),
  creation: z.string(),
  derniereUtilisation: z.string().nullable().describe('Its last call (ISO), null if never'),
  appelsJour: z.number().int().describe("Its calls today (UTC's day)"),
  responsable: z
    .object({ id: z.number().int(), nom: z.string(), prenom: z.string() })
    .nullable()
    .describe('The administrator the account acts for: who made it, or took it over'),
  suspendu: z
    .boolean()
    .describe(
      'Whether that administrator no longer administers its structure: its tokens and calls are refused until an administrator of the structure takes it over',
    ),
})
export type ServiceAccount = z.infer<typeof serviceAccountSchema>
export const serviceAccountListSchema = z.array(serviceAccountSchema)

export const serviceAccountIdParam = z.object({ id: positiveInt() })

/**
 * GET rest/bd/compteService: the page, the search, and the accounts acting for one administrator (`responsable`),
 * stopped or not (`suspendu`) — what demoting or deleting that administrator stops — and what ending one post stops
 * (`sansPoste`).
 */
export const serviceAccountListQuery = z.object({
  ...pageQuery,
  responsable: positiveInt()
    .optional()
    .describe("A user's id: only the accounts of the caller's scope that act for them"),
  suspendu: z
    .enum(['true', 'false'])
    .optional()
    .describe(
      'true: only the stopped accounts (their administrator no longer administers their structure); false: only the working ones',
    ),
  sansPoste: positiveInt()
    .optional()
    .describe(
      "A post's id: only the working accounts that ending this post would stop (their administrator administers their structure through it alone)",
    ),
})
export type ServiceAccountListQuery = z.infer<typeof serviceAccountListQuery>

/**
 * PUT rest/bd/compteService/{id}/responsable: the account acts for another administrator of its structure (or the
 * caller). Its secret is renewed at once, the former ones stopped: whoever held it before holds nothing now.
 */
export const serviceHandoverSchema = z
  .object({
    utilisateur: ref.describe('The administrator the account acts for from now on: one who administers its structure'),
    preuve: factorProofSchema
      .optional()
      .describe("The caller's password or current code: required for an administrator account"),
  })
  .strict()
export type ServiceHandover = z.infer<typeof serviceHandoverSchema>
/** GET rest/bd/compteService/{id}/responsables: the page and a search of the administrators it may be handed to. */
export const serviceHeirsQuery = z.object(pageQuery)
export const serviceHeirSchema = z.object({ id: z.number().int(), nom: z.string(), prenom: z.string() })
export type ServiceHeir = z.infer<typeof serviceHeirSchema>
export const serviceHeirListSchema = z.array(serviceHeirSchema)

export const serviceHandoverAnswerSchema = z.object({
  clientSecret: z
    .string()
    .optional()
    .describe('The account’s new secret, in this answer only (none for an account that signs with its keys)'),
})
