import { z } from 'zod'
import { isLaunchUrl } from '../../contract/catalogue/catalogue'
import { DEVICE_CODE_GRANT, isClientUri, OIDC_URI_MAX_LENGTH, OIDC_URIS_MAX } from '../../contract/oidc/oidc'
import { isLocalEnvironment } from '../../env'
import { BusinessError } from '../../lib/errors'
import { OAuthError } from '../../lib/oauth'
import type { Ctx } from '../../lib/types'
import { actorOf, type Caller, requireRootAdmin } from '../core/actor'
import { createApplication } from './application-writes'

/**
 * Dynamic client registration (RFC 7591; DESIGN §4b). The initial access token is a root administrator's access token;
 * the client becomes a catalogue application no function grants (the request cannot name functions), so nobody may use
 * it until a root administrator grants it.
 */

const metadataSchema = z.looseObject({
  redirect_uris: z.array(z.string().max(OIDC_URI_MAX_LENGTH)).max(OIDC_URIS_MAX).optional(),
  token_endpoint_auth_method: z.enum(['client_secret_basic', 'client_secret_post', 'none']).optional(),
  grant_types: z.array(z.string()).max(10).optional(),
  response_types: z.array(z.string()).max(10).optional(),
  client_name: z.string().max(200).optional(),
  client_uri: z.string().max(OIDC_URI_MAX_LENGTH).optional(),
  post_logout_redirect_uris: z.array(z.string().max(OIDC_URI_MAX_LENGTH)).max(OIDC_URIS_MAX).optional(),
  initiate_login_uri: z.string().max(OIDC_URI_MAX_LENGTH).optional(),
  backchannel_logout_uri: z.string().max(OIDC_URI_MAX_LENGTH).optional(),
})

const GRANT_TYPES = ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT]

/**
 * The grants a registration asks for (RFC 7591 §2: `authorization_code` when it says none). Refresh tokens come with
 * either way of signing in, so `refresh_token` is always answered beside them.
 */
function grantsOf(metadata: { grant_types?: string[] | undefined }): { code: boolean; device: boolean } {
  const asked = metadata.grant_types ?? ['authorization_code']
  const device = asked.includes(DEVICE_CODE_GRANT)
  return { code: asked.includes('authorization_code') || !device, device }
}

const badMetadata = (description: string) => new OAuthError('invalid_client_metadata', description)

/** A refusal of the caller as RFC 6750 §3.1 says it: 401 invalid_token, 403 insufficient_scope. */
function callerRefusal(error: BusinessError): OAuthError {
  if (error.status === 401) {
    return new OAuthError('invalid_token', 'Missing, invalid or expired access token', 401, {
      'WWW-Authenticate': 'Bearer error="invalid_token"',
    })
  }
  const description =
    error.businessCode === 'MFA_ENROLMENT_REQUIRED'
      ? 'Administrators must enrol a second factor first'
      : 'A root administrator registers clients'
  return new OAuthError('insufficient_scope', description, 403, {
    'WWW-Authenticate': 'Bearer error="insufficient_scope"',
  })
}

/**
 * The caller of POST /oidc/register, a root administrator (one round trip), for a body that is refused
 * anyway: the caller is judged first (an agent with a bad body is told who may register, not what is
 * wrong with the body). A good body's caller is judged by the creation's own first read.
 */
async function requireRegistrant(ctx: Ctx, caller: Caller): Promise<void> {
  try {
    requireRootAdmin(await actorOf(ctx, caller))
  } catch (error) {
    if (error instanceof BusinessError && (error.status === 401 || error.status === 403)) throw callerRefusal(error)
    throw error
  }
}

/** The metadata of a registration's body (JSON), or what is wrong with it. */
function readMetadata(ctx: Ctx, text: string): z.infer<typeof metadataSchema> | OAuthError {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return badMetadata('The body is a JSON object')
  }
  const parsed = metadataSchema.safeParse(body)
  if (!parsed.success)
    return badMetadata(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '))
  const metadata = parsed.data
  if ((metadata.grant_types ?? []).some((g) => !GRANT_TYPES.includes(g))) {
    return badMetadata(`grant_types: ${GRANT_TYPES.join(', ')} only`)
  }
  const grants = grantsOf(metadata)
  if (grants.code && (metadata.redirect_uris ?? []).length === 0) {
    return new OAuthError(
      'invalid_redirect_uri',
      'redirect_uris: one at least, unless the only grant is the device code',
    )
  }
  const accepted = (uri: string) => isClientUri(uri, { loopback: isLocalEnvironment(ctx.env) })
  if (!(metadata.redirect_uris ?? []).every(accepted)) {
    return new OAuthError(
      'invalid_redirect_uri',
      'Redirect URIs are https, on no private, link-local or loopback address (loopback in development only), without a fragment',
    )
  }
  for (const uri of [
    ...(metadata.post_logout_redirect_uris ?? []),
    metadata.initiate_login_uri,
    metadata.backchannel_logout_uri,
  ]) {
    if (uri !== undefined && !accepted(uri)) return badMetadata(`Not an accepted address: ${uri}`)
  }
  if ((metadata.response_types ?? []).some((r) => r !== 'code' || !grants.code)) {
    return badMetadata(grants.code ? 'response_types: code only' : 'response_types: none without authorization_code')
  }
  const name = metadata.client_name?.trim()
  if (name !== undefined && name !== '' && (name.length < 3 || name.length > 50)) {
    return badMetadata('client_name is 3 to 50 characters')
  }
  return metadata
}

/**
 * POST /oidc/register (`text`, the body as sent): the client registered, with its secret once (a
 * confidential client). The caller is judged before the body.
 */
export async function registerClient(ctx: Ctx, caller: Caller, text: string) {
  if (caller.app !== null) throw callerRefusal(new BusinessError('FORBIDDEN', 403, "An application's session"))
  const metadata = readMetadata(ctx, text)
  if (metadata instanceof OAuthError) {
    await requireRegistrant(ctx, caller)
    throw metadata
  }
  const name = metadata.client_name?.trim() || `Client ${crypto.randomUUID().slice(0, 8)}`
  const home = metadata.client_uri && isLaunchUrl(metadata.client_uri) ? metadata.client_uri : null
  const method = metadata.token_endpoint_auth_method ?? 'client_secret_basic'
  const grants = grantsOf(metadata)
  const redirectUris = metadata.redirect_uris ?? []
  try {
    const application = await createApplication(ctx, caller, {
      libelle: name,
      icone: 'warehouse',
      url: home ?? (redirectUris[0] ? new URL(redirectUris[0]).origin : ctx.request.origin),
      actif: true,
      protocole: 'OIDC',
      oidc: {
        public: method === 'none',
        redirectUris,
        postLogoutRedirectUris: metadata.post_logout_redirect_uris ?? [],
        initiateLoginUri: metadata.initiate_login_uri ?? null,
        backchannelLogoutUri: metadata.backchannel_logout_uri ?? null,
        deviceGrant: grants.device,
      },
      fonctions: [],
    })
    const client = application.oidc
    if (!client) throw new Error('The created application has no client')
    return {
      client_id: client.clientId,
      ...(client.clientSecret ? { client_secret: client.clientSecret, client_secret_expires_at: 0 } : {}),
      client_id_issued_at: Math.floor(Date.now() / 1000),
      client_name: application.libelle,
      client_uri: application.url,
      redirect_uris: client.redirectUris,
      post_logout_redirect_uris: client.postLogoutRedirectUris,
      ...(client.initiateLoginUri ? { initiate_login_uri: client.initiateLoginUri } : {}),
      ...(client.backchannelLogoutUri
        ? { backchannel_logout_uri: client.backchannelLogoutUri, backchannel_logout_session_required: true }
        : {}),
      token_endpoint_auth_method: method,
      grant_types: [
        ...(grants.code ? ['authorization_code'] : []),
        'refresh_token',
        ...(client.deviceGrant ? [DEVICE_CODE_GRANT] : []),
      ],
      response_types: grants.code ? ['code'] : [],
      id_token_signed_response_alg: 'ES256',
    }
  } catch (error) {
    if (!(error instanceof BusinessError)) throw error
    if (error.status === 409) throw badMetadata('client_name is already the name of an application')
    // The caller checked first may have lost the right meanwhile.
    if (error.status === 401 || error.status === 403) throw callerRefusal(error)
    throw badMetadata(error.message)
  }
}
