import { BusinessError } from './errors'

/**
 * The OAuth 2.0 side of the provider's endpoints (RFC 6749 §5.2, RFC 6750 §3): their errors are
 * `{error, error_description}`, not the portal's error body, because that is what every client
 * library reads.
 */

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_token'
  | 'insufficient_scope'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'slow_down'
  | 'authorization_pending'
  | 'access_denied'
  | 'expired_token'

export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status: 400 | 401 | 403 | 404 | 413 | 429 = 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description)
  }
}

/** Runs a protocol endpoint's work, its limits' 429 (TOO_MANY_ATTEMPTS) said as OAuth does, with `Retry-After`. */
export async function oauthLimited<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (error instanceof BusinessError && error.status === 429) {
      const wait = String(error.attributs[0] ?? 60)
      throw new OAuthError('invalid_request', error.message, 429, { 'Retry-After': wait })
    }
    throw error
  }
}

/** The body of an OAuth error (RFC 6749 §5.2). */
export type OAuthErrorBody = { error: OAuthErrorCode; error_description: string }

/** The answer of an OAuth error: never cached. */
export function oauthErrorResponse(error: OAuthError): Response {
  return Response.json({ error: error.error, error_description: error.description } satisfies OAuthErrorBody, {
    status: error.status,
    headers: { 'Cache-Control': 'no-store', ...error.headers },
  })
}

/** A value of an `application/x-www-form-urlencoded` credential (RFC 6749 §2.3.1: `+` is a space). */
function formDecoded(value: string): string | null {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '))
  } catch {
    return null
  }
}

/** The longest client id or secret read (the portal's are 24 and 43 characters). */
const CREDENTIAL_MAX = 128

/**
 * A token request's client credentials: HTTP Basic (client_secret_basic) or the form's
 * `client_id`/`client_secret` (client_secret_post), never both; a public client sends its id alone.
 */
export function clientCredentials(
  authorization: string | undefined,
  form: { client_id?: string | undefined; client_secret?: string | undefined },
): { clientId: string; secret: string | null; basic: boolean } {
  const basic = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(authorization ?? '')?.[1]
  if (basic !== undefined) {
    if (form.client_secret !== undefined)
      throw new OAuthError('invalid_request', 'Use one client authentication method')
    let decoded = ''
    try {
      decoded = atob(basic)
    } catch {
      throw invalidClient(true)
    }
    const colon = decoded.indexOf(':')
    const clientId = colon < 0 ? null : formDecoded(decoded.slice(0, colon))
    const secret = colon < 0 ? null : formDecoded(decoded.slice(colon + 1))
    if (!clientId || secret === null || clientId.length > CREDENTIAL_MAX || secret.length > CREDENTIAL_MAX)
      throw invalidClient(true)
    if (form.client_id !== undefined && form.client_id !== clientId)
      throw new OAuthError('invalid_request', 'client_id differs from the authenticated client')
    return { clientId, secret, basic: true }
  }
  const clientId = form.client_id
  if (!clientId || clientId.length > CREDENTIAL_MAX) throw invalidClient(false)
  const secret = form.client_secret ?? null
  if (secret !== null && secret.length > CREDENTIAL_MAX) throw invalidClient(false)
  return { clientId, secret, basic: false }
}

/** invalid_client (RFC 6749 §5.2): 401, with the Basic challenge when the client used it. */
export const invalidClient = (basic: boolean) =>
  new OAuthError(
    'invalid_client',
    'Client authentication failed',
    401,
    basic ? { 'WWW-Authenticate': 'Basic realm="portail"' } : {},
  )
