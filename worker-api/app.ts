import { bodyLimit } from 'hono/body-limit'
import { HTTPException } from 'hono/http-exception'
import { matchedRoutes, routePath } from 'hono/route'
import { getPath } from 'hono/utils/url'
import { API_BASE } from './contract/base'
import { DECISIONS_BODY_BYTES } from './contract/governance/access-reviews'
import { serverTiming } from './db/meter'
import { BOOKMARK_HEADER, isWrite, openRequestScope, type RequestScope, timingEnabled } from './db/request-scope'
import { afterResponse } from './lib/after-response'
import { backgroundContext, contextOf } from './lib/context'
import { BusinessError, errorBody } from './lib/errors'
import { KeptMatchesRouter } from './lib/kept-matches-router'
import { OAuthError, oauthErrorResponse } from './lib/oauth'
import { apiHeaders, MAX_FORM_BYTES } from './lib/security-headers'
import type { RequestEnv } from './lib/types'
import { router } from './lib/validation'
import { bulkRoutes, IMPORT_PATH } from './routes/bulk/bulk'
import { captchaRoutes } from './routes/captcha'
import { accessRoutes } from './routes/catalogue/access'
import { catalogueRoutes } from './routes/catalogue/catalogue'
import { devRoutes } from './routes/dev'
import { providerRoutes } from './routes/federation/providers'
import { federationRoutes } from './routes/federation/sign-in'
import { accessRequestRoutes } from './routes/governance/access-requests'
import { accessReviewRoutes } from './routes/governance/access-reviews'
import { healthRoutes } from './routes/health'
import { logRoutes } from './routes/history/logs'
import { eventRoutes } from './routes/machines/events'
import { scimRoutes } from './routes/machines/scim'
import { serviceAccountRoutes } from './routes/machines/service-accounts'
import { webhookRoutes } from './routes/machines/webhooks'
import { oidcCors, oidcProtocolRoutes, oidcRoutes } from './routes/oidc/oidc'
import { fonctionRoutes } from './routes/organisation/fonctions'
import { homeRoutes } from './routes/organisation/home'
import { registrationRoutes } from './routes/organisation/registration'
import { structureRoutes } from './routes/organisation/structures'
import { userAdminRoutes } from './routes/organisation/user-admin'
import { userRoutes } from './routes/organisation/users'
import { SSO_PAGE, samlApiRoutes, samlRoutes } from './routes/saml/saml'
import { authRoutes } from './routes/sign-in/auth'
import { mfaRoutes } from './routes/sign-in/mfa'
import { passkeyRoutes } from './routes/sign-in/passkeys'
import { passwordRoutes } from './routes/sign-in/password'
import { sessionRoutes } from './routes/sign-in/sessions'
import { applicationMayCall } from './services/catalogue/application-calls'
import { callerChecked, callerFromBearer } from './services/core/actor'
import { deliverOutbox } from './services/core/outbox'
import { asScimError, ScimError, scimErrorResponse } from './services/machines/scim/errors'
import { serviceAccountMayCall } from './services/machines/service-calls'
import { startDeliveries } from './services/machines/webhook-delivery'
import { deliverLogouts } from './services/oidc/backchannel'
import { LOGOUT_PAGE } from './services/saml/logout'

/**
 * Every route of spec §7, chained so that their paths, inputs and outputs make one type: the UI's
 * client (`hc<ApiRoutes>`, app/lib/api.server.ts) is checked against it.
 */
const apiRoutes = router()
  .route('/', healthRoutes)
  .route('/', captchaRoutes)
  .route('/', authRoutes)
  .route('/', mfaRoutes)
  .route('/', passkeyRoutes)
  .route('/', sessionRoutes)
  .route('/', userAdminRoutes)
  .route('/', userRoutes)
  .route('/', accessRoutes)
  .route('/', accessRequestRoutes)
  .route('/', accessReviewRoutes)
  .route('/', catalogueRoutes)
  // Before the providers' administration: its `fournisseur/liens` is no `fournisseur/{id}`.
  .route('/', federationRoutes)
  .route('/', providerRoutes)
  .route('/', logRoutes)
  .route('/', homeRoutes)
  .route('/', passwordRoutes)
  .route('/', structureRoutes)
  .route('/', fonctionRoutes)
  .route('/', registrationRoutes)
  .route('/', devRoutes)
  .route('/', oidcRoutes)
  .route('/', samlApiRoutes)
  .route('/', serviceAccountRoutes)
  .route('/', webhookRoutes)
  .route('/', eventRoutes)
  .route('/', bulkRoutes)
export type ApiRoutes = typeof apiRoutes

/** The OpenID Connect protocol's endpoints, which answer errors as OAuth does. */
const OAUTH_PROTOCOL_PATH = new RegExp(`^${API_BASE}/(oidc/|\\.well-known/)`)
/** SCIM's endpoints, which answer errors as SCIM does (RFC 7644 §3.12). */
const SCIM_PATH = new RegExp(`^${API_BASE}/scim/`)
/** SAML's single sign-on and single logout services. */
const SAML_SERVICE_PATH = new RegExp(`^${API_BASE}/saml/(sso|slo)$`)
const DECISIONS_PATH = new RegExp(`^${API_BASE}/rest/bd/revue/\\d+/decisions$`)

/** The REST API (spec §7), the single authority on data and permissions. */
export function createApp() {
  // The spec's paths that end with a slash (`password/forgot/`, …) also answer without it: Hono's
  // typed client, the UI's, drops that slash.
  const slashed = new Set<string>()
  const app = router({
    router: new KeptMatchesRouter(),
    getPath(request: Request) {
      const path = getPath(request)
      return slashed.has(`${path}/`) ? `${path}/` : path
    },
  }).basePath(API_BASE)

  app.use('*', async (c, next) => {
    // A client's request gets its own D1 session and meter; the UI's in-process calls share the one
    // the Worker opened for the page.
    const inProcess = c.env.REQUEST_SCOPE !== undefined
    // SAML's services write on GET (a request kept, sessions ended): at the primary, as any write.
    const write = isWrite(c.req.method) || SAML_SERVICE_PATH.test(c.req.path)
    const bindings = c.env
    const env = inProcess
      ? (c.env as RequestEnv & { REQUEST_SCOPE: RequestScope })
      : openRequestScope(c.env, { bookmark: c.req.header(BOOKMARK_HEADER), write })
    c.env = env
    const ctx = contextOf(env, c.req.raw)
    const scope = ctx.scope
    c.set('ctx', ctx)
    try {
      await next()
    } finally {
      // What the request read about its caller may have changed (a sign-out, a new name).
      if (write) scope.memo.clear()
      // The mail the request queued goes once the answer is out (services/core/outbox.ts).
      if (ctx.mail.length > 0) afterResponse(c, () => deliverOutbox(ctx, { ids: ctx.mail }))
    }
    const bookmark = scope.bookmark()
    if (bookmark) c.res.headers.set(BOOKMARK_HEADER, bookmark)
    if (!inProcess && timingEnabled(c.env)) c.res.headers.set('Server-Timing', serverTiming(scope.meter))
    // Every answer, errors included: not sniffed, not framed, not cached unless a route says otherwise.
    apiHeaders(c.res.headers, new URL(c.req.url).protocol === 'https:')
    // A write that revoked tokens may have ended OpenID Connect sessions: their clients are told now
    // (the page's own writes: server.ts), outside the request's measure. Any left go with the cron's.
    if (write && scope.meter.revokesTokens && !inProcess)
      afterResponse(c, () => deliverLogouts(backgroundContext(bindings)))
    // A write that told of a change (services/core/events.ts): its webhooks' deliveries start once the answer is out.
    if (write && scope.meter.emitsEvents && !inProcess)
      afterResponse(c, () => startDeliveries(backgroundContext(bindings)))
  })
  // A body is bounded as the UI's forms are: anything larger is refused before a route reads it. A file to import is
  // bounded by its own reader (services/bulk/file.ts), as it streams.
  const formBound = bodyLimit({
    maxSize: MAX_FORM_BYTES,
    onError: (c) => {
      const message = `The request body is larger than ${MAX_FORM_BYTES / 1024} KiB`
      // SAML's services never answer an error of the API's: their page says why.
      const saml = SAML_SERVICE_PATH.exec(c.req.path)
      if (saml) return c.redirect(`${saml[1] === 'sso' ? SSO_PAGE : LOGOUT_PAGE}?refus=TOO_LARGE`, 303)
      if (SCIM_PATH.test(c.req.path)) return scimErrorResponse(new ScimError(413, message))
      return OAUTH_PROTOCOL_PATH.test(c.req.path)
        ? oauthErrorResponse(new OAuthError('invalid_request', message, 413))
        : c.json(errorBody('REQUEST_TOO_LARGE', message, [MAX_FORM_BYTES]), 413)
    },
  })
  // A review's decisions carry up to 500 comments (contract/governance/access-reviews.ts).
  const decisionsBound = bodyLimit({
    maxSize: DECISIONS_BODY_BYTES,
    onError: (c) =>
      c.json(
        errorBody('REQUEST_TOO_LARGE', `The request body is larger than ${DECISIONS_BODY_BYTES / 1024} KiB`, [
          DECISIONS_BODY_BYTES,
        ]),
        413,
      ),
  })
  const importPath = `${API_BASE}${IMPORT_PATH}`
  app.use('*', (c, next) => {
    if (c.req.method !== 'POST') return formBound(c, next)
    if (c.req.path === importPath) return next()
    return DECISIONS_PATH.test(c.req.path) ? decisionsBound(c, next) : formBound(c, next)
  })
  // Every non-public call carries a bearer access token.
  app.use('/rest/bd/*', async (c, next) => {
    const ctx = c.var.ctx
    const caller = await callerFromBearer(ctx, c.req.header('Authorization'))
    // HEAD runs the GET handler (Hono answers it without the body): it is allowed exactly what GET is.
    const method = c.req.method === 'HEAD' ? 'GET' : c.req.method
    // The route the call reached (the last matched: the handler, after the middleware).
    if (
      caller.app !== null &&
      !applicationMayCall(caller, method, routePath(c, -1), c.req.path, new URL(c.req.url).searchParams)
    ) {
      throw new BusinessError('APPLICATION_TOKEN_SCOPE', 403, "An application's session may only read its user")
    }
    // Every route the path matches for the method (`/utilisateur/updatePassword` matches `/utilisateur/:id`
    // too): a service account's call passes only if all of them are open to it.
    const handlers = matchedRoutes(c).filter((route) => route.method === method)
    if (!handlers.every((route) => serviceAccountMayCall(caller, method, route.path))) {
      throw new BusinessError('SERVICE_ACCOUNT_SCOPE', 403, 'Not an operation this service account token may call')
    }
    // Routes check the caller in D1 themselves (actorOf, or actorWith alongside their reads).
    c.set('caller', caller)
    await next()
    // Fail closed: an answer given without that check could serve a revoked session.
    if (c.res.ok && !callerChecked(ctx, caller)) {
      console.error(`${c.req.method} ${routePath(c, -1)} answered without checking its caller`)
      c.res = c.json(errorBody('TECHNICAL_ERROR', 'Technical error'), 500)
    }
  })

  // CORS on the protocol's endpoints a browser client calls, and on nothing else (registration included).
  for (const path of [
    '/.well-known/openid-configuration',
    '/oidc/jwks',
    '/oidc/token',
    '/oidc/userinfo',
    '/oidc/device_authorization',
  ]) {
    app.use(path, oidcCors)
  }
  app.route('/', apiRoutes)
  app.route('/', oidcProtocolRoutes)
  // The SAML 2.0 identity provider: its messages are SAML's, not the API's.
  app.route('/', samlRoutes)
  // SCIM (RFC 7644), for service accounts: not a call of the UI's typed client.
  app.route('/', scimRoutes)
  for (const { path } of app.routes) if (path.length > 1 && path.endsWith('/')) slashed.add(path)

  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
  })
  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: { title: 'Portail REST API', version: '1.0.0', description: 'Errors: { businessCode, message, attributs }.' },
  })

  app.notFound((c) => {
    if (SCIM_PATH.test(c.req.path)) return scimErrorResponse(new ScimError(404, 'No such endpoint'))
    // The OpenID Connect protocol's addresses answer as OAuth does, a method they do not take included.
    return OAUTH_PROTOCOL_PATH.test(c.req.path)
      ? oauthErrorResponse(new OAuthError('invalid_request', 'No such endpoint', 404))
      : c.json(errorBody('NOT_FOUND', 'No such endpoint'), 404)
  })
  app.onError((error, c) => {
    if (SCIM_PATH.test(c.req.path)) {
      const answer = scimErrorResponse(asScimError(error))
      // The API's headers, as on every answer (the middleware has already run).
      apiHeaders(answer.headers, new URL(c.req.url).protocol === 'https:')
      return answer
    }
    if (error instanceof BusinessError) {
      // A limit's answer says when to come back (RFC 9110 §10.2.3); its body says it too.
      const wait = error.status === 429 ? error.attributs[0] : undefined
      if (typeof wait === 'number') c.header('Retry-After', String(wait))
      return c.json(errorBody(error.businessCode, error.message, error.attributs), error.status)
    }
    if (error instanceof HTTPException && error.status < 500) {
      // Hono's own rejections (malformed JSON body, etc.) are bad input, never a 500.
      return c.json(errorBody('VALIDATION_FAILED', error.message), error.status)
    }
    console.error('Unhandled API error', error)
    return c.json(errorBody('TECHNICAL_ERROR', 'Technical error'), 500)
  })
  return app
}
