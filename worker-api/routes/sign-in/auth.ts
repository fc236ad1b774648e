import { createRoute } from '@hono/zod-openapi'
import { z } from 'zod'
import { userSchema } from '../../contract/organisation/user'
import {
  type LogoutInput,
  loginSchema,
  logoutInputSchema,
  refreshSchema,
  sessionSchema,
  tokensSchema,
} from '../../contract/sign-in/auth'
import { router } from '../../lib/validation'
import { actorOf } from '../../services/core/actor'
import { logout } from '../../services/sign-in/auth'
import { login } from '../../services/sign-in/password-sign-in'
import { refresh } from '../../services/sign-in/refresh'
import { errors, json, jsonBody } from '../openapi'

export const authRoutes = router()
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/public/bd/login',
      tags: ['Session'],
      summary:
        'Sign in with identifiant, motDePasse and a solved captcha; a user with a second factor gets 403 MFA_REQUIRED with its challenge in attributs[0] (then POST login/mfa)',
      request: { body: jsonBody(loginSchema) },
      responses: {
        200: json(z.object({ user: userSchema, jwt: tokensSchema }), 'Signed in'),
        ...errors(400, 401, 403, 429),
      },
    }),
    async (c) => c.json(await login(c.var.ctx, c.req.valid('json')), 200),
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/public/bd/login/refreshToken',
      tags: ['Session'],
      summary: 'Exchange a refresh token or a launch code for a new access token (rotation)',
      request: { body: jsonBody(refreshSchema) },
      responses: { 200: json(tokensSchema, 'New tokens'), ...errors(400, 401, 403) },
    }),
    async (c) => c.json(await refresh(c.var.ctx, c.req.valid('json').refreshToken), 200),
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/bd/logout',
      tags: ['Session'],
      summary:
        'End the session of the bearer token (revokes its refresh tokens, logs DECONNEXION); with `suiteSaml`, the SAML applications it signed into are to be told through the browser, by the portal’s logout page (`/saml/deconnexion?suite=…`)',
      security: [{ bearer: [] }],
      request: { body: { ...jsonBody(logoutInputSchema), required: false } },
      responses: { 204: { description: 'Signed out' }, ...errors(400, 401) },
    }),
    async (c) => {
      const input = c.req.valid('json') as LogoutInput | undefined
      await logout(c.var.ctx, await actorOf(c.var.ctx, c.get('caller')), input?.suiteSaml)
      return c.body(null, 204)
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/session',
      tags: ['Session'],
      summary:
        'Who the bearer token speaks for (id, login, names, admin, racine, mfaEnrolementRequis): answered from the token check, no further read',
      security: [{ bearer: [] }],
      responses: { 200: json(sessionSchema, 'The caller'), ...errors(401, 403) },
    }),
    async (c) => {
      const { id, login, nom, prenom, admin, racine, mfaEnrolmentRequired } = await actorOf(c.var.ctx, c.get('caller'))
      return c.json({ id, login, nom, prenom, admin, racine, mfaEnrolementRequis: mfaEnrolmentRequired }, 200)
    },
  )
