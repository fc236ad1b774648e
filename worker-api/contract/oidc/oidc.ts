import ipaddr from 'ipaddr.js'
import { z } from 'zod'

/**
 * OpenID Connect beside the launch code (DESIGN §4b): an application of the catalogue with
 * `protocole: OIDC` is a client of the portal's provider, configured here.
 */

/** The most addresses of one kind a client registers (each is matched exactly, a bound value). */
export const OIDC_URIS_MAX = 10
/** The longest address accepted. */
export const OIDC_URI_MAX_LENGTH = 2000

/**
 * What a client address's host is: this machine (`localhost`, a loopback address), an address of a
 * private, link-local or otherwise special range (`10.x`, `192.168.x`, `169.254.169.254`, `fd00::/8`,
 * …; an IPv4 address written as IPv6 counts as itself), or anything else (a name, a public address).
 */
export function clientHostKind(hostname: string): 'loopback' | 'special' | 'public' {
  // A name's trailing dot (`localhost.`) names the same host.
  const host = hostname
    .replace(/^\[(.*)\]$/, '$1')
    .toLowerCase()
    .replace(/\.+$/, '')
  if (host === 'localhost' || host.endsWith('.localhost')) return 'loopback'
  if (!ipaddr.isValid(host)) return 'public'
  const address = ipaddr.process(host)
  const range = address.range()
  if (range === 'loopback') return 'loopback'
  // An IPv4-compatible IPv6 address (`::a9fe:a9fe`, which a URL makes of `[::169.254.169.254]`), deprecated, reaches
  // the IPv4 address it holds: never a public one.
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0)) {
    return 'special'
  }
  return range === 'unicast' ? 'public' : 'special'
}

/**
 * A client's registered address: absolute, https, without a fragment or credentials, never on an
 * address of a private, link-local or special range (the portal posts back-channel logouts there, and
 * sends browsers to the others). This machine's loopback (http too: RFC 8252 §7.3) only where
 * `loopback` allows it — development and tests; the API decides that, the forms' check allows it.
 */
export function isClientUri(value: string, { loopback = true }: { loopback?: boolean } = {}): boolean {
  try {
    const url = new URL(value)
    if (url.hash || value.includes('#') || url.username || url.password || url.host === '') return false
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return false
    const kind = clientHostKind(url.hostname)
    if (kind === 'loopback') return loopback
    return kind === 'public' && url.protocol === 'https:'
  } catch {
    return false
  }
}

/** The addresses of a client's configuration, each with its field's path in the catalogue's body. */
export function clientAddresses(oidc: {
  redirectUris: string[]
  postLogoutRedirectUris: string[]
  initiateLoginUri: string | null
  backchannelLogoutUri: string | null
}): [field: string, uri: string][] {
  const field = (...path: (string | number)[]) => ['oidc', ...path].join('.')
  const single = (name: 'initiateLoginUri' | 'backchannelLogoutUri'): [string, string][] => {
    const uri = oidc[name]
    return uri ? [[field(name), uri]] : []
  }
  return [
    ...oidc.redirectUris.map((uri, i): [string, string] => [field('redirectUris', i), uri]),
    ...oidc.postLogoutRedirectUris.map((uri, i): [string, string] => [field('postLogoutRedirectUris', i), uri]),
    ...single('initiateLoginUri'),
    ...single('backchannelLogoutUri'),
  ]
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

/** The device authorization grant's type (RFC 8628 §3.4). */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code'

/** A client signs users in by the authorization code (with redirect addresses), by the device grant, or both. */
function redirectsOrDevice(client: { redirectUris: string[]; deviceGrant: boolean }, ctx: z.RefinementCtx) {
  if (client.redirectUris.length === 0 && !client.deviceGrant)
    ctx.addIssue({ code: 'custom', message: 'validation.required', path: ['redirectUris'] })
}

/** What an administrator registers of an OIDC client; its id and secret are the portal's to make. */
export const oidcClientInputSchema = z
  .object({
    public: z
      .boolean('validation.required')
      .describe('true: a public client (a browser or mobile app), without a secret, proving itself by PKCE alone'),
    redirectUris: uriList('Where the authorization answers (none only for a client of the device grant alone)'),
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
    deviceGrant: z
      .boolean()
      .default(false)
      .describe(
        'true: devices without a keyboard may sign in by the device authorization grant (RFC 8628), a user approving their code on /appareil',
      ),
  })
  .superRefine(redirectsOrDevice)
export type OidcClientInput = z.infer<typeof oidcClientInputSchema>

/** An OIDC application's client as the catalogue answers it. */
export const oidcClientSchema = z.object({
  clientId: z.string(),
  public: z.boolean(),
  redirectUris: z.array(z.string()),
  postLogoutRedirectUris: z.array(z.string()),
  initiateLoginUri: z.string().nullable(),
  backchannelLogoutUri: z.string().nullable(),
  deviceGrant: z.boolean(),
  clientSecret: z
    .string()
    .optional()
    .describe('Only in the answer of the write that generated it: the portal keeps its SHA-256 alone'),
})
export type OidcClient = z.infer<typeof oidcClientSchema>

/** POST rest/bd/application/{id}/secret: a confidential client's new secret (the old one dies). */
export const clientSecretSchema = z.object({ clientId: z.string(), clientSecret: z.string() })
export type ClientSecret = z.infer<typeof clientSecretSchema>

/** The most characters of a free parameter of an authorization request (`state`, `nonce`, …). */
const PARAM_MAX = 500

/**
 * An authorization request's parameters as the client sent them (OIDC Core §3.1.2.1), which the
 * portal's authorization page passes on: bounded here, checked by the API.
 */
export const authorizationRequestSchema = z.object({
  client_id: z.string().min(1).max(128),
  redirect_uri: z.string().min(1).max(OIDC_URI_MAX_LENGTH),
  response_type: z.string().max(PARAM_MAX).optional(),
  scope: z.string().max(PARAM_MAX).optional(),
  state: z.string().max(PARAM_MAX).optional(),
  nonce: z.string().max(PARAM_MAX).optional(),
  code_challenge: z.string().max(PARAM_MAX).optional(),
  code_challenge_method: z.string().max(PARAM_MAX).optional(),
  prompt: z.string().max(PARAM_MAX).optional(),
  max_age: z.string().max(PARAM_MAX).optional(),
  login_hint: z.string().max(PARAM_MAX).optional(),
})
export type AuthorizationRequest = z.infer<typeof authorizationRequestSchema>

/**
 * What the authorization page does next: go back to the client (with a code, or an error the client
 * reads, OIDC Core §3.1.2.6), or have the user sign in again first (`prompt=login`, `max_age` passed,
 * another account hinted).
 */
export const authorizationAnswerSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('redirect'), url: z.string(), libelle: z.string() }),
  z.object({ action: z.literal('login'), libelle: z.string() }),
])
export type AuthorizationAnswer = z.infer<typeof authorizationAnswerSchema>

/** The client's redirect URI with the answer's parameters (and the issuer, RFC 9207). */
export function redirectWith(redirectUri: string, issuer: string, params: Record<string, string | undefined>) {
  const url = new URL(redirectUri)
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value)
  url.searchParams.set('iss', issuer)
  return url.toString()
}

/** An error the client reads on its redirect URI (OIDC Core §3.1.2.6). */
export const clientError = (request: AuthorizationRequest, issuer: string, error: string, description: string) =>
  redirectWith(request.redirect_uri, issuer, { error, error_description: description, state: request.state })

/** GET rest/public/bd/oidc/client: a client and one of its redirect URIs, before anyone signs in. */
export const clientCheckQuery = z.object({
  client_id: z.string().min(1).max(128),
  redirect_uri: z.string().min(1).max(OIDC_URI_MAX_LENGTH),
})
export const clientCheckSchema = z.object({ libelle: z.string().describe("The application's name") })

/** POST rest/public/bd/oidc/logout: an RP-initiated logout's parameters (RP-Initiated Logout 1.0 §2). */
export const logoutRequestSchema = z.object({
  id_token_hint: z.string().max(8000).optional(),
  client_id: z.string().max(128).optional(),
  post_logout_redirect_uri: z.string().max(OIDC_URI_MAX_LENGTH).optional(),
  state: z.string().max(PARAM_MAX).optional(),
})
export type LogoutRequest = z.infer<typeof logoutRequestSchema>

/** What the portal's logout page asks of the API: the request, and the portal session signed in there. */
export const logoutTargetRequestSchema = logoutRequestSchema.extend({
  sessionPortail: z
    .string()
    .max(64)
    .optional()
    .describe('The portal session (`sid`) of the browser asking, when one is signed in'),
})
export type LogoutTargetRequest = z.infer<typeof logoutTargetRequestSchema>

/**
 * What the logout page may do: the client identified (by a valid ID token of ours, or its id), the
 * user the hint names, and where to send the user back (a registered address only, with `state`).
 */
export const logoutAnswerSchema = z.object({
  libelle: z.string().nullable().describe("The client's application, when one is identified"),
  sub: z
    .string()
    .nullable()
    .describe('The user the ID token hint was issued to (its signature checked, not its expiry)'),
  memeSession: z
    .boolean()
    .describe(
      "Whether the hint's `sid` is `sessionPortail` or one of the OpenID Connect sessions opened from it: only then may the page sign out without asking",
    ),
  redirectTo: z
    .string()
    .nullable()
    .describe('The registered post-logout address with `state`; null: stay on the portal'),
})
export type LogoutAnswer = z.infer<typeof logoutAnswerSchema>
