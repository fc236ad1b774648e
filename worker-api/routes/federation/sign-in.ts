import { createRoute, z } from '@hono/zod-openapi'
import { lienSchema, ownLinkParam, userIdParam, userLinkParam } from '../../contract/federation/links'
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
import { ownLinks, removeOwnLink, removeUserLink, userLinks } from '../../services/federation/links'
import { finishFederatedSignIn, providersFor, startFederatedSignIn } from '../../services/federation/sign-in'
import { federatedSignOut } from '../../services/federation/sign-out'
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
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/session/fournisseur',
      tags: ['Session'],
      summary:
        "For the caller's session opened through a partner's provider with an end_session_endpoint: the provider's sign-out (id_token_hint, client_id, post_logout_redirect_uri <origin>/login) to send the browser to after the portal's; else nulls",
      security: [{ bearer: [] }],
      responses: {
        200: json(z.object({ url: z.string().nullable(), nom: z.string().nullable() }), "The provider's sign-out"),
        ...errors(401, 403),
      },
    }),
    async (c) => c.json(await federatedSignOut(c.var.ctx, c.get('caller')), 200),
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/fournisseur/liens',
      tags: ['Session'],
      summary: "The caller's links to partners' identity providers",
      security: [{ bearer: [] }],
      responses: { 200: json(z.array(lienSchema), 'The links'), ...errors(401, 403) },
    }),
    async (c) => c.json(await ownLinks(c.var.ctx, c.get('caller')), 200),
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/rest/bd/fournisseur/liens/{id}',
      tags: ['Session'],
      summary:
        "Remove the caller's link to a provider, only while they keep another way in (a password, a passkey, another link); 409 IDP_LAST_WAY_IN",
      security: [{ bearer: [] }],
      request: { params: ownLinkParam },
      responses: { 204: { description: 'Removed' }, ...errors(400, 401, 403, 404, 409) },
    }),
    async (c) => {
      await removeOwnLink(c.var.ctx, c.get('caller'), c.req.valid('param').id)
      return c.body(null, 204)
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/utilisateur/{id}/fournisseurs',
      tags: ['Users'],
      summary: "A managed user's links to partners' identity providers (administrators)",
      security: [{ bearer: [] }],
      request: { params: userIdParam },
      responses: { 200: json(z.array(lienSchema), 'The links'), ...errors(400, 401, 403, 404) },
    }),
    async (c) => c.json(await userLinks(c.var.ctx, c.get('caller'), c.req.valid('param').id), 200),
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/rest/bd/utilisateur/{id}/fournisseurs/{fournisseurId}',
      tags: ['Users'],
      summary: "Remove a managed user's link to a provider (administrators), with its entry in the history",
      security: [{ bearer: [] }],
      request: { params: userLinkParam },
      responses: { 204: { description: 'Removed' }, ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const { id, fournisseurId } = c.req.valid('param')
      await removeUserLink(c.var.ctx, c.get('caller'), id, fournisseurId)
      return c.body(null, 204)
    },
  )
