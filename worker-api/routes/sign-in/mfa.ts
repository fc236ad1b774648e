import { createRoute, z } from '@hono/zod-openapi'
import { idParam, userSchema } from '../../contract/organisation/user'
import { tokensSchema } from '../../contract/sign-in/auth'
import {
  factorProofSchema,
  loginMfaSchema,
  mfaStatusSchema,
  passwordProofSchema,
  recoveryCodesSchema,
  securitySettingsSchema,
  securitySettingsUpdateSchema,
  totpConfirmSchema,
  totpEnrolmentSchema,
} from '../../contract/sign-in/mfa'
import { router } from '../../lib/validation'
import { resetSecondFactor } from '../../services/organisation/user-admin'
import { confirmTotp, mfaStatus, regenerateRecoveryCodes, removeTotp, startTotp } from '../../services/sign-in/mfa'
import { loginMfa } from '../../services/sign-in/password-sign-in'
import { securitySettings, updateSecuritySettings } from '../../services/sign-in/security-settings'
import { errors, json, jsonBody } from '../openapi'

/** The second factor (DESIGN §3b): one's own factors, the sign-in's second step, the policy. */
export const mfaRoutes = router()
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/public/bd/login/mfa',
      tags: ['Session'],
      summary:
        'The second step of a sign-in that answered 403 MFA_REQUIRED: its challenge and a TOTP or recovery code (each accepted once; a wrong one counts like a wrong password)',
      request: { body: jsonBody(loginMfaSchema) },
      responses: {
        200: json(z.object({ user: userSchema, jwt: tokensSchema }), 'Signed in'),
        ...errors(400, 401, 403, 429),
      },
    }),
    async (c) => c.json(await loginMfa(c.var.ctx, c.req.valid('json')), 200),
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/mfa',
      tags: ['Second factor'],
      summary: "The caller's second factors: TOTP, passkeys, recovery codes left",
      security: [{ bearer: [] }],
      responses: { 200: json(mfaStatusSchema, 'The factors'), ...errors(401, 403) },
    }),
    async (c) => c.json(await mfaStatus(c.var.ctx, c.get('caller')), 200),
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/bd/mfa/totp',
      tags: ['Second factor'],
      summary:
        'A pending TOTP enrolment (RFC 6238, 30 s, 6 digits, SHA-1) once the password proves it is the user (400 BAD_OLD_PASSWORD, counted like wrong old passwords: 429 after 5): nothing changes at sign-in until a first code confirms it; 409 MFA_TOTP_ALREADY_ON while one is on (turn it off first)',
      security: [{ bearer: [] }],
      request: { body: jsonBody(passwordProofSchema) },
      responses: {
        200: json(totpEnrolmentSchema, 'The secret for an authenticator app'),
        ...errors(400, 401, 403, 409, 429),
      },
    }),
    async (c) => c.json(await startTotp(c.var.ctx, c.get('caller'), c.req.valid('json')), 200),
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/bd/mfa/totp/confirm',
      tags: ['Second factor'],
      summary:
        'Confirm the pending enrolment with a first code: TOTP is on, and ten recovery codes (shown once) replace any former ones',
      security: [{ bearer: [] }],
      request: { body: jsonBody(totpConfirmSchema) },
      responses: { 200: json(recoveryCodesSchema, 'TOTP is on'), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const { codesSecours } = await confirmTotp(c.var.ctx, c.get('caller'), c.req.valid('json').code)
      return c.json({ codesSecours }, 200)
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/rest/bd/mfa/totp',
      tags: ['Second factor'],
      summary:
        'Turn TOTP off with a current code or the password (counted like wrong old passwords); with no passkey left, the recovery codes go too',
      security: [{ bearer: [] }],
      request: { body: jsonBody(factorProofSchema) },
      responses: { 204: { description: 'TOTP is off' }, ...errors(400, 401, 403, 404, 429) },
    }),
    async (c) => {
      await removeTotp(c.var.ctx, c.get('caller'), c.req.valid('json'))
      return c.body(null, 204)
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/bd/mfa/codes-secours',
      tags: ['Second factor'],
      summary:
        'Ten new recovery codes, shown once (the former ones die), for a user who has a second factor; with a current code or the password (counted like wrong old passwords)',
      security: [{ bearer: [] }],
      request: { body: jsonBody(factorProofSchema) },
      responses: { 200: json(recoveryCodesSchema, 'The new codes'), ...errors(400, 401, 403, 404, 429) },
    }),
    async (c) => {
      const { codesSecours } = await regenerateRecoveryCodes(c.var.ctx, c.get('caller'), c.req.valid('json'))
      return c.json({ codesSecours }, 200)
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/rest/bd/utilisateur/{id}/mfa',
      tags: ['Users'],
      summary:
        'Reset the second factor of a user the caller manages (authenticator app, passkeys, recovery codes); audited, the user told by mail',
      security: [{ bearer: [] }],
      request: { params: idParam },
      responses: { 204: { description: 'Reset' }, ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      await resetSecondFactor(c.var.ctx, c.get('caller'), c.req.valid('param').id)
      return c.body(null, 204)
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/parametres/securite',
      tags: ['Second factor'],
      summary: 'The security settings (administrators)',
      security: [{ bearer: [] }],
      responses: { 200: json(securitySettingsSchema, 'The settings'), ...errors(401, 403) },
    }),
    async (c) => c.json(await securitySettings(c.var.ctx, c.get('caller')), 200),
  )
  .openapi(
    createRoute({
      method: 'put',
      path: '/rest/bd/parametres/securite',
      tags: ['Second factor'],
      summary:
        'Change the security settings (root administrators); turning the requirement on needs a second factor of the caller (403 MFA_FACTOR_REQUIRED)',
      security: [{ bearer: [] }],
      request: { body: jsonBody(securitySettingsUpdateSchema) },
      responses: { 200: json(securitySettingsSchema, 'The settings'), ...errors(400, 401, 403) },
    }),
    async (c) => c.json(await updateSecuritySettings(c.var.ctx, c.get('caller'), c.req.valid('json')), 200),
  )
