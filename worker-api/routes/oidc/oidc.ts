import { createRoute, z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { cors } from 'hono/cors'
import {
  deviceDecidedSchema,
  deviceDecisionSchema,
  deviceLookupQuery,
  deviceRequestSchema,
} from '../../contract/oidc/device'
import {
  authorizationAnswerSchema,
  authorizationRequestSchema,
  clientCheckQuery,
  clientCheckSchema,
  logoutAnswerSchema,
  logoutTargetRequestSchema,
} from '../../contract/oidc/oidc'
import { BusinessError } from '../../lib/errors'
import { OAuthError, oauthErrorResponse } from '../../lib/oauth'
import { jwks, oidcEnabled } from '../../lib/oidc-keys'
import { serviceAccountId } from '../../lib/scope'
import type { AppEnv } from '../../lib/types'
import { router } from '../../lib/validation'
import { registerClient } from '../../services/catalogue/client-registration'
import { callerFromBearer } from '../../services/core/actor'
import { authorize, checkClient } from '../../services/oidc/authorize'
import {
  type DeviceAuthorizationForm,
  deviceAuthorization,
  deviceDecision,
  deviceLookup,
} from '../../services/oidc/device'
import { discoveryDocument } from '../../services/oidc/discovery'
import { logoutTarget } from '../../services/oidc/logout'
import { type TokenForm, token } from '../../services/oidc/token'
import { invalidToken, userinfo } from '../../services/oidc/userinfo'
import { errors, json, jsonBody } from '../openapi'

/**
 * The OpenID Connect provider (DESIGN §4b). Its protocol endpoints (discovery, JWKS, token, UserInfo)
 * answer errors as OAuth does (`{error, error_description}`); the two calls of the portal's own
 * authorization page answer as the rest of the API.
 */

const oauthJson = (description: string) => json(z.record(z.string(), z.unknown()), description)
const oauthErrors = {
  400: oauthJson('OAuth error: {error, error_description}'),
  401: oauthJson('OAuth error: invalid_client (token) or invalid_token (UserInfo)'),
  404: oauthJson('OpenID Connect is not configured (no signing key)'),
}

/** The provider's answer while it has no signing key. */
const providerOff = () => new OAuthError('invalid_request', 'OpenID Connect is not configured', 404)

/**
 * Runs a protocol endpoint: off without a signing key (unless `always`: the token endpoint serves
 * service accounts whatever the provider, checking itself); its refusals in OAuth's shape.
 */
async function protocol(c: Context<AppEnv>, handle: () => Promise<Response>, always = false): Promise<Response> {
  try {
    if (!always && !oidcEnabled(c.var.ctx.env)) throw providerOff()
    return await handle()
  } catch (error) {
    if (error instanceof OAuthError) return oauthErrorResponse(error)
    throw error
  }
}

/** The metadata and keys are public and cacheable for a few minutes (a rotation publishes the next key first). */
const PUBLIC_CACHE = 'public, max-age=300'

const tokenFormSchema = z.object({
  grant_type: z.string().optional(),
  code: z.string().optional(),
  redirect_uri: z.string().optional(),
  code_verifier: z.string().optional(),
  client_id: z.string().optional(),
  client_secret: z.string().optional(),
  refresh_token: z.string().optional(),
  device_code: z.string().optional(),
  client_assertion: z.string().optional(),
  client_assertion_type: z.string().optional(),
  scope: z.string().optional(),
})

const deviceFormSchema = z.object({
  client_id: z.string().optional(),
  client_secret: z.string().optional(),
  scope: z.string().optional(),
})

/** The longest value a token request's field may hold (the longest is a redirect URI). */
const FIELD_MAX = 2000

/** A protocol request's form (`schema`: its fields, each optional): urlencoded, no field repeated or too long. */
async function protocolForm<F extends Record<string, string | undefined>>(
  c: Context<AppEnv>,
  schema: z.ZodObject,
): Promise<F> {
  const type = c.req.header('Content-Type') ?? ''
  if (!type.startsWith('application/x-www-form-urlencoded')) {
    throw new OAuthError('invalid_request', 'The body is application/x-www-form-urlencoded')
  }
  const form = new URLSearchParams(await c.req.text())
  const fields: Record<string, string> = {}
  for (const key of Object.keys(schema.shape)) {
    const values = form.getAll(key)
    if (values.length > 1) throw new OAuthError('invalid_request', `${key} is repeated`)
    if ((values[0]?.length ?? 0) > FIELD_MAX) throw new OAuthError('invalid_request', `${key} is too long`)
    if (values[0] !== undefined) fields[key] = values[0]
  }
  return fields as F
}

async function userinfoAnswer(c: Context<AppEnv>) {
  const caller = await callerFromBearer(c.var.ctx, c.req.header('Authorization')).catch(() => {
    throw invalidToken('Missing, invalid or expired access token')
  })
  try {
    return c.json(await userinfo(c.var.ctx, caller), 200)
  } catch (error) {
    if (error instanceof BusinessError && error.status < 500) throw invalidToken('Session ended')
    throw error
  }
}

/**
 * CORS where the standard needs it, for clients running in a browser: the metadata, the keys, the
 * token endpoint and UserInfo (no cookie is involved: any origin may call them).
 */
export const oidcCors = cors({ origin: '*', allowHeaders: ['Authorization', 'Content-Type'], maxAge: 600 })

/**
 * The protocol endpoints: documented in the OpenAPI document, outside the typed chain the portal's
 * own pages call (their answers are the protocol's, not the API's).
 */
export const oidcProtocolRoutes = router()

const protocolRoutes: [ReturnType<typeof createRoute>, (c: Context<AppEnv>) => Promise<Response>][] = [
  [
    createRoute({
      method: 'get',
      path: '/.well-known/openid-configuration',
      tags: ['OpenID Connect'],
      summary:
        'OpenID Connect Discovery 1.0, also served at the origin’s /.well-known/openid-configuration: the issuer is the origin the request came to',
      responses: { 200: oauthJson('The provider’s metadata'), 404: oauthErrors[404] },
    }),
    (c) =>
      protocol(c, async () => {
        c.header('Cache-Control', PUBLIC_CACHE)
        // The issuer is the host the request named: no shared cache may serve one host's to another.
        c.header('Vary', 'Host')
        return c.json(discoveryDocument(c.var.ctx.request.origin), 200)
      }),
  ],
  [
    createRoute({
      method: 'get',
      path: '/oidc/jwks',
      tags: ['OpenID Connect'],
      summary: 'The keys that sign ID and logout tokens (ES256): the current one and, during a rotation, the next',
      responses: { 200: oauthJson('JWK Set'), 404: oauthErrors[404] },
    }),
    (c) =>
      protocol(c, async () => {
        c.header('Cache-Control', PUBLIC_CACHE)
        return c.json(await jwks(c.var.ctx.env), 200)
      }),
  ],
  [
    createRoute({
      method: 'post',
      path: '/oidc/token',
      tags: ['OpenID Connect'],
      summary:
        'Token endpoint: authorization_code (PKCE S256, 60 s, single use) or refresh_token (rotated), client_secret_basic, client_secret_post, or none for a public client; client_credentials for a service account (client_secret_basic, client_secret_post or private_key_jwt; scope: a subset of api scim logs), a 5-minute access token and no refresh token',
      request: {
        body: { content: { 'application/x-www-form-urlencoded': { schema: tokenFormSchema } }, required: true },
      },
      responses: { 200: oauthJson('Tokens'), ...oauthErrors, 429: oauthJson('Too many calls of this client') },
    }),
    (c) =>
      protocol(
        c,
        async () => {
          const form = await protocolForm<TokenForm>(c, tokenFormSchema)
          // A service account's client credentials need no signing key: its token is the API's own.
          if (form.grant_type !== 'client_credentials' && !oidcEnabled(c.var.ctx.env)) throw providerOff()
          const answer = await token(c.var.ctx, form, c.req.header('Authorization'))
          c.header('Pragma', 'no-cache')
          return c.json(answer, 200)
        },
        true,
      ),
  ],
  [
    createRoute({
      method: 'post',
      path: '/oidc/device_authorization',
      tags: ['OpenID Connect'],
      summary:
        'Device authorization (RFC 8628 §3.1): a client allowed the device grant (client_secret_basic, client_secret_post, or none for a public client) gets a device code to poll the token endpoint with and a user code to show (`WDJB-MJHT`), approved on /appareil within 10 minutes; 10 a minute per client and address, 60 per client',
      request: {
        body: { content: { 'application/x-www-form-urlencoded': { schema: deviceFormSchema } }, required: true },
      },
      responses: {
        200: oauthJson('device_code, user_code, verification_uri, verification_uri_complete, expires_in, interval'),
        ...oauthErrors,
        429: oauthJson('Too many codes asked for by this client, or from this address'),
      },
    }),
    (c) =>
      protocol(c, async () => {
        const form = await protocolForm<DeviceAuthorizationForm>(c, deviceFormSchema)
        const answer = await deviceAuthorization(c.var.ctx, form, c.req.header('Authorization'))
        c.header('Cache-Control', 'no-store')
        return c.json(answer, 200)
      }),
  ],
  [
    createRoute({
      method: 'post',
      path: '/oidc/register',
      tags: ['OpenID Connect'],
      summary:
        'Dynamic client registration (RFC 7591): bearer, a root administrator’s access token; the client is an application no function grants until a root administrator grants it. 201 with client_id (and client_secret for a confidential client, shown once)',
      security: [{ bearer: [] }],
      request: {
        body: jsonBody(z.record(z.string(), z.unknown())),
      },
      responses: {
        201: oauthJson('The registered client'),
        400: oauthJson('invalid_redirect_uri or invalid_client_metadata'),
        401: oauthJson('invalid_token: no valid access token'),
        403: oauthJson('insufficient_scope: not a root administrator (checked before the body)'),
        413: oauthJson('invalid_request: a body over 64 KiB'),
        404: oauthErrors[404],
      },
    }),
    (c) =>
      protocol(c, async () => {
        const caller = await callerFromBearer(c.var.ctx, c.req.header('Authorization')).catch(() => {
          throw new OAuthError('invalid_token', 'Missing, invalid or expired access token', 401, {
            'WWW-Authenticate': 'Bearer error="invalid_token"',
          })
        })
        // A program does not register applications: the initial access token is a person's.
        if (serviceAccountId(caller.id) !== null) {
          throw new OAuthError('insufficient_scope', 'A service account may not register clients', 403)
        }
        const client = await registerClient(c.var.ctx, caller, await c.req.text())
        return c.json(client, 201)
      }),
  ],
  ...(['get', 'post'] as const).map(
    (method): [ReturnType<typeof createRoute>, (c: Context<AppEnv>) => Promise<Response>] => [
      createRoute({
        method,
        path: '/oidc/userinfo',
        tags: ['OpenID Connect'],
        summary: 'UserInfo: the claims of the scopes granted (bearer: an OpenID Connect access token; GET or POST)',
        security: [{ bearer: [] }],
        responses: { 200: oauthJson('Claims'), ...oauthErrors },
      }),
      (c) => protocol(c, () => userinfoAnswer(c)),
    ],
  ),
]
for (const [route, handle] of protocolRoutes) {
  oidcProtocolRoutes.openAPIRegistry.registerPath(route)
  oidcProtocolRoutes.on(route.method.toUpperCase(), route.path, handle)
}

/** The two calls of the portal's authorization page (typed: the page calls them in-process). */
export const oidcRoutes = router()
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/public/bd/oidc/client',
      tags: ['OpenID Connect'],
      summary:
        'The portal’s authorization page, before anyone signs in: is this a client, with this redirect URI? 400 OIDC_UNKNOWN_CLIENT or OIDC_REDIRECT_URI_MISMATCH (shown as a page, never redirected to)',
      request: { query: clientCheckQuery },
      responses: { 200: json(clientCheckSchema, 'The client'), ...errors(400) },
    }),
    async (c) => {
      const query = c.req.valid('query')
      return c.json(await checkClient(c.var.ctx, query.client_id, query.redirect_uri), 200)
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/bd/oidc/authorize',
      tags: ['OpenID Connect'],
      summary:
        'The portal’s authorization page, for the signed-in user: where to send them (a code or an error for the client) or whether to sign in again',
      security: [{ bearer: [] }],
      request: {
        body: jsonBody(authorizationRequestSchema),
      },
      responses: { 200: json(authorizationAnswerSchema, 'What to do'), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      if (!oidcEnabled(c.var.ctx.env)) throw new BusinessError('NOT_FOUND', 404, 'OpenID Connect is not configured')
      const answer = await authorize(c.var.ctx, c.get('caller'), c.req.valid('json'))
      return c.json(answer, 200)
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/oidc/appareil',
      tags: ['OpenID Connect'],
      summary:
        'The /appareil page: the pending request of a device a user code names, for the signed-in user to decide on. 404 OIDC_DEVICE_CODE_UNKNOWN (unknown, expired or decided), 403 OIDC_DEVICE_NOT_GRANTED (no current post grants the application); either counts as a wrong code: 10 a minute per address, 5 per user, then 429 for every code',
      security: [{ bearer: [] }],
      request: { query: deviceLookupQuery },
      responses: { 200: json(deviceRequestSchema, 'The request'), ...errors(400, 401, 403, 404, 429) },
    }),
    async (c) => {
      if (!oidcEnabled(c.var.ctx.env)) throw new BusinessError('NOT_FOUND', 404, 'OpenID Connect is not configured')
      return c.json(await deviceLookup(c.var.ctx, c.get('caller'), c.req.valid('query').code), 200)
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/bd/oidc/appareil',
      tags: ['OpenID Connect'],
      summary:
        'The /appareil page: the signed-in user approves or refuses a device’s request (a code works once), naming the device for their sessions page; the refusals of GET, counted the same way',
      security: [{ bearer: [] }],
      request: { body: jsonBody(deviceDecisionSchema) },
      responses: { 200: json(deviceDecidedSchema, 'The decision'), ...errors(400, 401, 403, 404, 429) },
    }),
    async (c) => {
      if (!oidcEnabled(c.var.ctx.env)) throw new BusinessError('NOT_FOUND', 404, 'OpenID Connect is not configured')
      return c.json(await deviceDecision(c.var.ctx, c.get('caller'), c.req.valid('json')), 200)
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/public/bd/oidc/logout',
      tags: ['OpenID Connect'],
      summary:
        'The portal’s RP-initiated logout page: the client an ID token hint (or client_id) names, its user, whether the hint is of the portal session signed in on the page, and the registered post-logout address to send them back to; 400 for a hint not of this provider or an unregistered address',
      request: {
        body: jsonBody(logoutTargetRequestSchema),
      },
      responses: { 200: json(logoutAnswerSchema, 'The logout’s target'), ...errors(400, 404) },
    }),
    async (c) => {
      if (!oidcEnabled(c.var.ctx.env)) throw new BusinessError('NOT_FOUND', 404, 'OpenID Connect is not configured')
      return c.json(await logoutTarget(c.var.ctx, c.req.valid('json')), 200)
    },
  )
