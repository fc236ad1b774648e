import { createRoute, z } from '@hono/zod-openapi'
import {
  federationFinishSchema,
  federationStartedSchema,
  federationStartSchema,
  providerIdParam,
  providersForQuery,
  providersForSchema,
} from '../../contract/federation/sign-in'
import { userSchema } from '../../contract/organisation/user'
import { tokensSchema } from '../../contract/sign-in/auth'
import { router } from '../../lib/validation'
import { finishFederatedSignIn, providersFor, startFederatedSignIn } from '../../services/federation/sign-in'
import { errors, json, jsonBody } from '../openapi'

/** Signing in through a partner's identity provider (issue 63): public calls of the sign-in page. */
export const federationRoutes = router()
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/public/bd/fournisseur',
      tags: ['Session'],
      summary:
        "The identity providers the sign-in page lists, and the one answering for an address's domain (if any); counted per client",
      request: { query: providersForQuery },
      responses: { 200: json(providersForSchema, 'The providers'), ...errors(400, 429) },
    }),
    async (c) => c.json(await providersFor(c.var.ctx, c.req.valid('query').mail), 200),
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/public/bd/fournisseur/{id}/debut',
      tags: ['Session'],
      summary:
        "Start a sign-in at an active provider: the authorization request (code flow, PKCE S256, state and nonce) to send the browser to; the state lives 10 minutes, bound to the browser's value and to this provider. 404 for an unknown or inactive provider; counted per client",
      request: { params: providerIdParam, body: jsonBody(federationStartSchema) },
      responses: { 200: json(federationStartedSchema, 'The authorization request'), ...errors(400, 404, 429) },
    }),
    async (c) => c.json(await startFederatedSignIn(c.var.ctx, c.req.valid('param').id, c.req.valid('json')), 200),
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/public/bd/fournisseur/retour',
      tags: ['Session'],
      summary:
        "Finish a sign-in with the provider's answer: the state spent once, the code exchanged, the ID token checked (issuer, audience, signature, expiry, nonce); the user linked to (provider, sub) signs in. A first sign-in attaches, queues (403 IDP_REGISTRATION_PENDING) or refuses as the provider says. 400 IDP_SIGN_IN_FAILED, 403 MFA_REQUIRED as a password sign-in, 409 IDP_LINK_CONFLICT",
      request: { body: jsonBody(federationFinishSchema) },
      responses: {
        200: json(
          z.object({ user: userSchema, jwt: tokensSchema, redirection: z.string().nullable() }),
          'Signed in; `redirection`: the page the sign-in started from',
        ),
        ...errors(400, 403, 409, 429),
      },
    }),
    async (c) => c.json(await finishFederatedSignIn(c.var.ctx, c.req.valid('json')), 200),
  )
