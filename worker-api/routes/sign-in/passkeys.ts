import { createRoute, z } from '@hono/zod-openapi'
import { userSchema } from '../../contract/organisation/user'
import { tokensSchema } from '../../contract/sign-in/auth'
import { factorProofSchema } from '../../contract/sign-in/mfa'
import {
  creationOptionsSchema,
  passkeyAddedSchema,
  passkeyIdParam,
  passkeyLoginOptionsSchema,
  passkeyLoginSchema,
  passkeyRegistrationSchema,
  passkeyRenameSchema,
  requestOptionsSchema,
} from '../../contract/sign-in/passkeys'
import { router } from '../../lib/validation'
import { passkeyLogin, passkeyLoginOptions } from '../../services/sign-in/passkey-sign-in'
import {
  passkeyRegistrationOptions,
  registerPasskey,
  removePasskey,
  renamePasskey,
} from '../../services/sign-in/passkeys'
import { errors, json, jsonBody } from '../openapi'

/** Passkeys (WebAuthn, DESIGN §3b): one's own, and the sign-in with one; the shapes of @simplewebauthn. */
export const passkeyRoutes = router()
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/bd/mfa/passkeys/options',
      tags: ['Second factor'],
      summary:
        "The options of a new passkey (PublicKeyCredentialCreationOptionsJSON, for @simplewebauthn/browser's startRegistration): asked with a current code or the password (counted like wrong old passwords), before the authenticator is; bound to the host of the caller's domain, their passkeys excluded; the challenge lives 5 minutes and serves once",
      security: [{ bearer: [] }],
      request: { body: jsonBody(factorProofSchema) },
      responses: { 200: json(creationOptionsSchema, 'The options'), ...errors(400, 401, 403, 429) },
    }),
    async (c) => c.json(await passkeyRegistrationOptions(c.var.ctx, c.get('caller'), c.req.valid('json')), 200),
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/bd/mfa/passkeys',
      tags: ['Second factor'],
      summary:
        'Register a named passkey from the answer of startRegistration (RegistrationResponseJSON) to the options; as the first factor, with ten recovery codes shown once. 400 PASSKEY_INVALID when it does not verify',
      security: [{ bearer: [] }],
      request: { body: jsonBody(passkeyRegistrationSchema) },
      responses: { 200: json(passkeyAddedSchema, 'The passkey is registered'), ...errors(400, 401, 403) },
    }),
    async (c) => {
      const { passkey } = await registerPasskey(c.var.ctx, c.get('caller'), c.req.valid('json'))
      return c.json(passkey, 200)
    },
  )
  .openapi(
    createRoute({
      method: 'patch',
      path: '/rest/bd/mfa/passkeys/{id}',
      tags: ['Second factor'],
      summary: "Rename one of the caller's passkeys",
      security: [{ bearer: [] }],
      request: { params: passkeyIdParam, body: jsonBody(passkeyRenameSchema) },
      responses: {
        200: json(z.object({ id: z.string(), nom: z.string() }), 'Renamed'),
        ...errors(400, 401, 403, 404),
      },
    }),
    async (c) =>
      c.json(await renamePasskey(c.var.ctx, c.get('caller'), c.req.valid('param').id, c.req.valid('json').nom), 200),
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/rest/bd/mfa/passkeys/{id}',
      tags: ['Second factor'],
      summary:
        "Remove one of the caller's passkeys with a current code or the password (counted like wrong old passwords); with no second factor left, the recovery codes go too",
      security: [{ bearer: [] }],
      request: { params: passkeyIdParam, body: jsonBody(factorProofSchema) },
      responses: { 204: { description: 'Removed' }, ...errors(400, 401, 403, 404, 429) },
    }),
    async (c) => {
      await removePasskey(c.var.ctx, c.get('caller'), c.req.valid('param').id, c.req.valid('json'))
      return c.body(null, 204)
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/public/bd/login/passkey/options',
      tags: ['Session'],
      summary:
        "The options of a passkey sign-in (PublicKeyCredentialRequestOptionsJSON, for startAuthentication), for the host the request reached: without a challenge passwordless (any discoverable passkey); with the challenge of 403 MFA_REQUIRED the second step (that user's passkeys). No captcha; counted per client",
      request: { body: jsonBody(passkeyLoginOptionsSchema) },
      responses: { 200: json(requestOptionsSchema, 'The options'), ...errors(400, 401, 403, 429) },
    }),
    async (c) => c.json(await passkeyLoginOptions(c.var.ctx, c.req.valid('json')), 200),
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/public/bd/login/passkey',
      tags: ['Session'],
      summary:
        'Sign in with the answer of startAuthentication (AuthenticationResponseJSON): passwordless, or the second step with the challenge of 403 MFA_REQUIRED (a failure then counts like a wrong password). 400 PASSKEY_INVALID when it does not verify',
      request: { body: jsonBody(passkeyLoginSchema) },
      responses: {
        200: json(z.object({ user: userSchema, jwt: tokensSchema }), 'Signed in'),
        ...errors(400, 401, 403, 429),
      },
    }),
    async (c) => c.json(await passkeyLogin(c.var.ctx, c.req.valid('json')), 200),
  )
