import { createRoute, z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import {
  type SamlRefusal,
  samlAnswerInputSchema,
  samlAnswerSchema,
  samlLogoutCookie,
  samlLogoutStepInputSchema,
  samlLogoutStepSchema,
  samlPostSchema,
} from '../../contract/saml/saml'
import { SamlInputError } from '../../lib/saml/xml'
import { samlEnabled } from '../../lib/saml-keys'
import type { AppEnv } from '../../lib/types'
import { router } from '../../lib/validation'
import type { SamlForm, SamlMessage } from '../../services/saml/inbound'
import { LOGOUT_PAGE, nextLogoutStep, receiveLogout } from '../../services/saml/logout'
import { idpMetadata } from '../../services/saml/metadata'
import { answerPassive, answerRequest, receiveRequest } from '../../services/saml/sso'
import { errors, json, jsonBody } from '../openapi'

/**
 * The SAML 2.0 identity provider (issue 62): its endpoints speak SAML, not the API's JSON, and are documented in the
 * OpenAPI document outside the typed chain the portal's pages call. Without a key they answer 404.
 */
export const samlRoutes = router()

const xml = (description: string) => ({
  content: { 'application/samlmetadata+xml': { schema: z.string() } },
  description,
})
const off = { content: { 'text/plain': { schema: z.string() } }, description: 'SAML is not configured (no key)' }

/** The metadata is public and cacheable for a few minutes, as the OpenID Connect keys are. */
const PUBLIC_CACHE = 'public, max-age=300'

/** The portal's page that signs the user in and posts the response, or says why a request was refused. */
export const SSO_PAGE = '/saml/connexion'

/** A form's fields, each once (a field sent twice is not a message the portal reads). */
async function formFields(c: Context<AppEnv>): Promise<SamlForm> {
  const type = c.req.header('Content-Type') ?? ''
  if (!type.startsWith('application/x-www-form-urlencoded')) {
    throw new SamlInputError('NOT_A_REQUEST', 'The form is application/x-www-form-urlencoded')
  }
  const form = new URLSearchParams(new TextDecoder().decode(await c.req.arrayBuffer()))
  const fields: SamlForm = {}
  for (const name of ['SAMLRequest', 'SAMLResponse', 'RelayState'] as const) {
    const values = form.getAll(name)
    if (values.length > 1) throw new SamlInputError('MALFORMED', `${name} is repeated`)
    if (values[0] !== undefined) fields[name] = values[0]
  }
  return fields
}

/** The message that arrived, by the binding of its method. */
const messageOf = async (c: Context<AppEnv>): Promise<SamlMessage> =>
  c.req.method === 'POST'
    ? { binding: 'post', form: await formFields(c) }
    : { binding: 'redirect', query: new URL(c.req.url).search }

/**
 * A SAML service's answer: always a 303 to the portal's page, where `receive` says to go, or saying why the message was
 * refused (any other failure is the API's own).
 */
async function service(c: Context<AppEnv>, page: string, receive: (message: SamlMessage) => Promise<string>) {
  let to: string
  try {
    to = await receive(await messageOf(c))
  } catch (error) {
    if (!(error instanceof SamlInputError)) throw error
    const refus: SamlRefusal = error.reason === 'NOT_METADATA' ? 'NOT_A_REQUEST' : error.reason
    to = `${page}?${new URLSearchParams({ refus })}`
  }
  c.header('Cache-Control', 'no-store')
  return c.redirect(to, 303)
}

/**
 * The single sign-on service: a request checked and kept, the browser sent on to the portal's page (which signs its
 * user in and posts the response); a refusal, to the same page saying why.
 */
const singleSignOn = (c: Context<AppEnv>) =>
  service(c, SSO_PAGE, async (message) => {
    const { demande, passive } = await receiveRequest(c.var.ctx, message)
    // A request that asks not to be shown a sign-in says so to the page (which answers it NoPassive without a session).
    return `${SSO_PAGE}?${new URLSearchParams(passive ? { demande, passif: '1' } : { demande })}`
  })

/**
 * The single logout service: an application's logout request (its sessions end, the others are told, it is answered
 * last) or its answer to the portal's; either way the browser goes on to the portal's logout page, or to the same page
 * saying why the message was refused.
 */
const singleLogout = (c: Context<AppEnv>) =>
  service(c, LOGOUT_PAGE, async (message) => {
    const { suite } = await receiveLogout(c.var.ctx, message)
    // A new sequence: its name goes to the browser's cookie, never into an address.
    if (suite) c.header('Set-Cookie', samlLogoutCookie(suite, new URL(c.req.url).protocol === 'https:'))
    return LOGOUT_PAGE
  })

/** A SAML service's route, by HTTP-Redirect (GET) or HTTP-POST (a form of these fields). */
const serviceRoute = (
  method: 'get' | 'post',
  path: string,
  summary: (binding: string) => string,
  form: z.ZodRawShape,
  to: string,
) =>
  createRoute({
    method,
    path,
    tags: ['SAML 2.0'],
    summary: summary(`HTTP-${method === 'get' ? 'Redirect' : 'POST'}`),
    ...(method === 'post'
      ? { request: { body: { content: { 'application/x-www-form-urlencoded': { schema: z.object(form) } } } } }
      : {}),
    responses: { 303: { description: to } },
  })

const sso = (method: 'get' | 'post') =>
  serviceRoute(
    method,
    '/saml/sso',
    (binding) =>
      `Single sign-on (${binding} binding): an AuthnRequest, checked (its service provider, signature, age, assertion consumer service) and kept once; 303 to the portal’s page, which signs the user in and posts the signed response, or says why the request was refused`,
    { SAMLRequest: z.string(), RelayState: z.string().optional() },
    'To the portal’s single sign-on page (`?demande=…`, or `?refus=REASON`)',
  )

const slo = (method: 'get' | 'post') =>
  serviceRoute(
    method,
    '/saml/slo',
    (binding) =>
      `Single logout (${binding} binding): an application’s signed LogoutRequest ends the portal session(s) it names (the other applications they signed into are then told, and it is answered last with a signed LogoutResponse), or its signed LogoutResponse to the portal’s request; 303 to the portal’s logout page, which carries the sequence on, or says why the message was refused`,
    { SAMLRequest: z.string().optional(), SAMLResponse: z.string().optional(), RelayState: z.string().optional() },
    'To the portal’s logout page (`/saml/deconnexion`, a new sequence in its cookie `portail-saml-slo`), or to the same page saying why the message was refused (`?refus=REASON`)',
  )

const routes: [ReturnType<typeof createRoute>, (c: Context<AppEnv>) => Response | Promise<Response>][] = [
  [
    createRoute({
      method: 'get',
      path: '/saml/metadata',
      tags: ['SAML 2.0'],
      summary:
        'The identity provider’s metadata: its entityID is this URL (at the origin the request came to), its signing certificates (two during a rotation), single sign-on and single logout by HTTP-Redirect and HTTP-POST',
      responses: { 200: xml('SAML 2.0 metadata'), 404: off },
    }),
    (c) => {
      const env = c.var.ctx.env
      if (!samlEnabled(env)) return c.text('SAML is not configured', 404)
      c.header('Cache-Control', PUBLIC_CACHE)
      // The entityID names the host the request came to: no shared cache may serve one host's to another.
      c.header('Vary', 'Host')
      return c.body(idpMetadata(env, c.var.ctx.request.origin), 200, {
        'Content-Type': 'application/samlmetadata+xml; charset=utf-8',
      })
    },
  ],
  [sso('get'), singleSignOn],
  [sso('post'), singleSignOn],
  [slo('get'), singleLogout],
  [slo('post'), singleLogout],
]
for (const [route, handle] of routes) {
  samlRoutes.openAPIRegistry.registerPath(route)
  samlRoutes.on(route.method.toUpperCase(), route.path, handle)
}

/** The call of the portal's single sign-on page (typed: the page calls it in-process). */
export const samlApiRoutes = router()
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/bd/saml/reponse',
      tags: ['SAML 2.0'],
      summary:
        'The portal’s single sign-on page, for its signed-in user: the signed response to a waiting request and where to post it, or whether to sign in again (ForceAuthn); 403 SAML_NOT_GRANTED (the attempt is in the history), 404 SAML_REQUEST_UNKNOWN (unknown, expired or answered)',
      security: [{ bearer: [] }],
      request: { body: jsonBody(samlAnswerInputSchema) },
      responses: { 200: json(samlAnswerSchema, 'What the page does'), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      c.header('Cache-Control', 'no-store')
      return c.json(await answerRequest(c.var.ctx, c.get('caller'), c.req.valid('json').demande), 200)
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/public/bd/saml/passif',
      tags: ['SAML 2.0'],
      summary:
        'The portal’s single sign-on page, nobody signed in, for a request that asked not to be shown a sign-in (IsPassive): the signed response without assertion (status NoPassive) and where to post it, once; 404 SAML_REQUEST_UNKNOWN for any other request',
      request: { body: jsonBody(samlAnswerInputSchema) },
      responses: { 200: json(samlPostSchema, 'The response to post'), ...errors(400, 404) },
    }),
    async (c) => {
      c.header('Cache-Control', 'no-store')
      return c.json(await answerPassive(c.var.ctx, c.req.valid('json').demande), 200)
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/public/bd/saml/deconnexion',
      tags: ['SAML 2.0'],
      summary:
        'The portal’s logout page, for the browser carrying a logout sequence: the next application to tell (a signed LogoutRequest, once each), then the answer to the application that asked for the logout (a signed LogoutResponse, once), then `done`; and whether the page’s own portal session has ended. An unknown or expired sequence is `done`',
      request: { body: jsonBody(samlLogoutStepInputSchema) },
      responses: { 200: json(samlLogoutStepSchema, 'The next step'), ...errors(400) },
    }),
    async (c) => {
      c.header('Cache-Control', 'no-store')
      const { suite, sessionPortail } = c.req.valid('json')
      return c.json(await nextLogoutStep(c.var.ctx, suite, sessionPortail), 200)
    },
  )
