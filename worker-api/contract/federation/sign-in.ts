import { z } from 'zod'
import { positiveInt } from '../common'

/**
 * A sign-in through a partner's identity provider (issue 63): the sign-in page asks which provider answers for an
 * address, starts the code flow (PKCE, state, nonce) and finishes it when the provider sends the browser back.
 */

/** How long a sign-in started at a provider may take to come back. */
export const FEDERATION_STATE_SECONDS = 10 * 60

/** Where the provider sends the browser back, on the portal's origin (the redirect URI to register at the provider). */
export const FEDERATION_CALLBACK_PATH = '/login/fournisseur/retour'

export const providerButtonSchema = z.object({ id: z.number().int(), nom: z.string() })
export type ProviderButton = z.infer<typeof providerButtonSchema>

export const providersForQuery = z.object({
  mail: z.string().trim().max(254).optional().describe('An address: the provider answering for its domain, if any'),
})

export const providersForSchema = z.object({
  affiches: z.array(providerButtonSchema).describe('The providers the sign-in page lists'),
  pourMail: providerButtonSchema.nullable().describe("The provider answering for the address's domain"),
})
export type ProvidersFor = z.infer<typeof providersForSchema>

/** A random value the browser keeps in a cookie: the answer must come back to the browser that asked. */
const navigateurSchema = z.string().min(32).max(128).describe("The browser's binding: a random value of its cookie")

export const federationStartSchema = z.object({
  navigateur: navigateurSchema,
  redirection: z.string().max(2000).optional().describe('The portal page to open once signed in'),
  mail: z.string().trim().max(254).optional().describe('The address typed: given to the provider as login_hint'),
})
export type FederationStart = z.infer<typeof federationStartSchema>

export const federationStartedSchema = z.object({
  url: z.string().describe("The provider's authorization request to send the browser to"),
})

export const federationFinishSchema = z.object({
  navigateur: navigateurSchema,
  etat: z.string().min(1).max(200).describe('The `state` the provider sent back'),
  code: z.string().max(2000).optional(),
  erreur: z.string().max(200).optional().describe('The `error` the provider sent back instead of a code'),
  iss: z.string().max(255).optional().describe('The `iss` the provider sent back (RFC 9207)'),
})
export type FederationFinish = z.infer<typeof federationFinishSchema>

export const providerIdParam = z.object({ id: positiveInt() })
