import { z } from 'zod'

/**
 * OpenID Connect beside the launch code (DESIGN §4b): an application of the catalogue with
 * `protocole: OIDC` is a client of the portal's provider, configured here.
 */

/** The most addresses of one kind a client registers (each is matched exactly, a bound value). */
export const OIDC_URIS_MAX = 10
/** The longest address accepted. */
export const OIDC_URI_MAX_LENGTH = 2000

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]'])

/**
 * A client's registered address: absolute, https — or http on this machine's loopback, for
 * development (RFC 8252 §7.3) — without a fragment or credentials.
 */
export function isClientUri(value: string): boolean {
  try {
    const url = new URL(value)
    if (url.hash || value.includes('#') || url.username || url.password || url.host === '') return false
    return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname))
  } catch {
    return false
  }
}

const clientUri = z
  .string('validation.required')
  .trim()
  .min(1, { message: 'validation.required', abort: true })
  .max(OIDC_URI_MAX_LENGTH, 'validation.tooLong')
  .refine(isClientUri, 'validation.clientUri')

const uriList = (what: string) =>
  z
    .array(clientUri)
    .max(OIDC_URIS_MAX, 'validation.tooMany')
    .describe(`${what} (${OIDC_URIS_MAX} at most), matched exactly`)

/** What an administrator registers of an OIDC client; its id and secret are the portal's to make. */
export const oidcClientInputSchema = z.object({
  public: z
    .boolean('validation.required')
    .describe('true: a public client (a browser or mobile app), without a secret, proving itself by PKCE alone'),
  redirectUris: uriList('Where the authorization answers').min(1, 'validation.required'),
  postLogoutRedirectUris: uriList('Where RP-initiated logout may send the user back').default([]),
  initiateLoginUri: clientUri
    .nullable()
    .default(null)
    .describe(
      "Third-party-initiated login: where the launcher sends the user (with `iss` and `target_link_uri`); null, the application's URL",
    ),
  backchannelLogoutUri: clientUri
    .nullable()
    .default(null)
    .describe('Back-channel logout: where a signed logout token is posted when a portal session that signed in ends'),
})
export type OidcClientInput = z.infer<typeof oidcClientInputSchema>

/** An OIDC application's client as the catalogue answers it. */
export const oidcClientSchema = z.object({
  clientId: z.string(),
  public: z.boolean(),
  redirectUris: z.array(z.string()),
  postLogoutRedirectUris: z.array(z.string()),
  initiateLoginUri: z.string().nullable(),
  backchannelLogoutUri: z.string().nullable(),
  clientSecret: z
    .string()
    .optional()
    .describe('Only in the answer of the write that generated it: the portal keeps its SHA-256 alone'),
})
export type OidcClient = z.infer<typeof oidcClientSchema>

/** POST rest/bd/application/{id}/secret: a confidential client's new secret (the old one dies). */
export const clientSecretSchema = z.object({ clientId: z.string(), clientSecret: z.string() })
