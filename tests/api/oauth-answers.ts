import { expect } from 'vitest'
import { z } from 'zod'
import type { OAuthErrorBody, OAuthErrorCode } from '../../worker-api/lib/oauth'
import type { Jwks } from '../../worker-api/lib/oidc-keys'
import type { ServiceTokenAnswer } from '../../worker-api/services/machines/client-credentials'
import type { UserClaims } from '../../worker-api/services/oidc/claims'
import type { TokenAnswer } from '../../worker-api/services/oidc/token-answer'

/**
 * The OAuth and OpenID Connect protocol's answers (`/oidc/token`, `/oidc/jwks`, `/oidc/userinfo`, their errors), which
 * the typed client does not cover: their endpoints answer as OAuth does, outside the API's typed chain. Each is read
 * through a schema tied to the type the Worker builds (`satisfies`), so a changed answer fails the typecheck, and an
 * answer of another shape fails the test where it is read, never a cast.
 */

/** A token endpoint's tokens for an application (authorization code or refresh). */
const tokenAnswer = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number(),
  refresh_token: z.string(),
  id_token: z.string(),
  scope: z.string(),
}) satisfies z.ZodType<TokenAnswer>

/** A service account's token, by the client credentials grant. */
const serviceTokenAnswer = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number(),
  scope: z.string(),
}) satisfies z.ZodType<ServiceTokenAnswer>

/** The provider's keys: each an EC P-256 key's public half, read strictly (a private `d` fails the read). */
const jwksAnswer = z.strictObject({
  keys: z.array(
    z.strictObject({
      kty: z.literal('EC'),
      crv: z.literal('P-256'),
      x: z.string(),
      y: z.string(),
      kid: z.string(),
      alg: z.literal('ES256'),
      use: z.literal('sig'),
    }),
  ),
}) satisfies z.ZodType<Jwks>

/** A user's claims from UserInfo: `sub`, and those of the scopes granted, no others. */
const userInfoAnswer = z.strictObject({
  sub: z.string(),
  name: z.string().optional(),
  given_name: z.string().optional(),
  family_name: z.string().optional(),
  preferred_username: z.string().optional(),
  locale: z.string().optional(),
  email: z.string().optional(),
  email_verified: z.boolean().optional(),
  postes: z
    .array(
      z.strictObject({
        structure: z.strictObject({ id: z.number(), nom: z.string() }),
        fonction: z.strictObject({ id: z.number(), libelle: z.string() }),
      }),
    )
    .optional(),
}) satisfies z.ZodType<UserClaims>

/** The error codes the Worker answers (lib/oauth.ts): the record's type makes the list whole. */
const OAUTH_ERROR_CODES: { [C in OAuthErrorCode]: C } = {
  invalid_request: 'invalid_request',
  invalid_client: 'invalid_client',
  invalid_grant: 'invalid_grant',
  unauthorized_client: 'unauthorized_client',
  unsupported_grant_type: 'unsupported_grant_type',
  invalid_scope: 'invalid_scope',
  invalid_token: 'invalid_token',
  insufficient_scope: 'insufficient_scope',
  invalid_redirect_uri: 'invalid_redirect_uri',
  invalid_client_metadata: 'invalid_client_metadata',
  slow_down: 'slow_down',
  authorization_pending: 'authorization_pending',
  access_denied: 'access_denied',
  expired_token: 'expired_token',
}

/** An OAuth error's body (RFC 6749 §5.2), read strictly: its two keys, no other. */
export const oauthErrorAnswer = z.strictObject({
  error: z.enum(OAUTH_ERROR_CODES),
  error_description: z.string(),
}) satisfies z.ZodType<OAuthErrorBody>

/** The tokens of a token endpoint's answer, which must be 200. */
export async function tokenBody(response: Response): Promise<TokenAnswer> {
  expect(response.status).toBe(200)
  return tokenAnswer.parse(await response.json())
}

/** The access token of a service account's token answer, which must be 200. */
export async function serviceAccessToken(response: Response): Promise<string> {
  expect(response.status).toBe(200)
  return serviceTokenAnswer.parse(await response.json()).access_token
}

/** The error code of an OAuth error's answer. */
export async function oauthErrorCode(response: Response): Promise<OAuthErrorCode> {
  return oauthErrorAnswer.parse(await response.json()).error
}

/** The JWK Set of a JWKS answer, which must be 200. */
export async function jwksBody(response: Response): Promise<Jwks> {
  expect(response.status).toBe(200)
  return jwksAnswer.parse(await response.json())
}

/** The claims of a UserInfo answer, which must be 200. */
export async function userInfoBody(response: Response): Promise<UserClaims> {
  expect(response.status).toBe(200)
  return userInfoAnswer.parse(await response.json())
}
