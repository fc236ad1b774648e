import type { AppLoadContext } from '@remix-run/cloudflare'
import { beforeAll, describe, expect, expectTypeOf, it } from 'vitest'
import { publicApi, read, userApi } from '../../app/lib/api.server'
import { getSession } from '../../app/lib/session.server'
import type { AccessList } from '../../worker-api/contract/catalogue/access'
import type { BusinessCode } from '../../worker-api/contract/errors'
import type { UserWithSessions } from '../../worker-api/contract/sign-in/sessions'
import { createMeter } from '../../worker-api/db/meter'
import { app, createOrganisation, createUser, currentPost, ORIGIN, signIn, uiContext } from './helpers'

/**
 * The UI's client of the REST API (app/lib/api.server.ts): Hono's `hc` over the in-process fetch,
 * typed by the routes themselves. These tests drive it against the real API and D1.
 */

beforeAll(createOrganisation)

/** Responsable at Direction Sud: granted the one application "Module Rendez vous" (id 3). */
const RESPONSABLE = currentPost(3, 3)

/** A load context whose API records the requests it is given (and otherwise is the real one). */
function recordingContext() {
  const requests: Request[] = []
  const context = {
    ...uiContext,
    meter: createMeter(),
    api: {
      fetch(request: Request, ...rest: unknown[]) {
        requests.push(request.clone() as unknown as Request)
        return (app.fetch as (...args: unknown[]) => Promise<Response>)(request, ...rest)
      },
    },
  } as unknown as AppLoadContext & { meter: ReturnType<typeof createMeter> }
  return { context, requests }
}

const browserRequest = (path = '/pages/user/acces', headers: Record<string, string> = {}) =>
  new Request(`${ORIGIN}${path}`, { headers })

/** A browser session holding the tokens of a fresh sign-in. */
async function signedInSession(request: Request, context: AppLoadContext, postes = [RESPONSABLE]) {
  const user = await createUser({ postes })
  const { jwt: tokens } = await signIn(user.login, user.password)
  const session = await getSession(request, context)
  session.session.set('accessToken', tokens.accessToken)
  session.session.set('refreshToken', tokens.refreshToken)
  return { user, session }
}

describe('the typed client of the in-process API', () => {
  it('sends what an integrator would: the path under the API base, the JSON body, the browser’s language, agent, address and origin', async () => {
    const { context, requests } = recordingContext()
    const request = browserRequest('/login', {
      'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0',
      'CF-Connecting-IP': '203.0.113.9',
      'Accept-Language': 'en-GB,en;q=0.8',
    })
    const result = await read(
      publicApi(request, context).rest.public.bd.login.$post({ json: { identifiant: 'nobody', motDePasse: 'x' } }),
    )
    expect(result.ok).toBe(false)
    const sent = requests[0] as Request
    expect(sent.method).toBe('POST')
    expect(new URL(sent.url).pathname).toBe('/portail-backend/rest/public/bd/login')
    expect(sent.headers.get('Content-Type')).toBe('application/json')
    expect(await sent.json()).toEqual({ identifiant: 'nobody', motDePasse: 'x' })
    expect(sent.headers.get('Origin')).toBe(ORIGIN)
    expect(sent.headers.get('Accept-Language')).toBe('en')
    expect(sent.headers.get('User-Agent')).toBe('Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0')
    expect(sent.headers.get('CF-Connecting-IP')).toBe('203.0.113.9')
    expect(sent.headers.get('Authorization')).toBeNull()
    // Counted in the page's meter (Server-Timing: api).
    expect(context.meter.apiCalls).toBe(1)
  })

  it('reaches the spec’s paths that end with a slash (password/forgot/, password/renew/, mail/confirm/)', async () => {
    const { context } = recordingContext()
    const api = publicApi(browserRequest(), context)
    const forgot = await read(api.rest.public.bd.password.forgot.index.$post({ json: { mail: '', domain: ORIGIN } }))
    const renew = await read(api.rest.public.bd.password.renew.index.$post({ json: { token: '', password: '' } }))
    const confirm = await read(api.rest.public.bd.utilisateur.mail.confirm.index.$post({ json: { token: '' } }))
    // Each reached its route (its validation answers), not the 404 of an unknown path: the client
    // drops the final slash, which the API accepts (below).
    for (const result of [forgot, renew, confirm]) {
      expect(result.ok || result.error.businessCode).toBe('VALIDATION_FAILED')
    }
  })

  it('answers the data of a success, typed by the route, and null for an empty answer', async () => {
    const { context } = recordingContext()
    const request = browserRequest()
    const { user, session } = await signedInSession(request, context)
    const { api } = userApi(request, context, session)

    const me = await read(api.rest.bd.utilisateur[':id'].$get({ param: { id: user.id }, query: {} }))
    const access = await read(api.rest.bd.acces.utilisateur[':userId'].$get({ param: { userId: user.id }, query: {} }))
    const logout = await read(api.rest.bd.logout.$post({ json: {} }))

    expect(me.ok && me.data.login).toBe(user.login)
    expect(access.ok && access.data.accesApplication.map((a) => a.application.id)).toEqual([3])
    expect(logout).toEqual({ ok: true, status: 204, data: null, total: null, archived: null })
    if (me.ok) expectTypeOf(me.data).toEqualTypeOf<UserWithSessions>()
    if (access.ok) expectTypeOf(access.data).toEqualTypeOf<AccessList>()
    if (logout.ok) expectTypeOf(logout.data).toEqualTypeOf<null>()
  })

  it('answers the error body of a failure, its code one of the business codes', async () => {
    const { context } = recordingContext()
    const request = browserRequest()
    const { user, session } = await signedInSession(request, context)
    const other = await createUser()
    const { api } = userApi(request, context, session)

    const refused = await read(api.rest.bd.utilisateur[':id'].$get({ param: { id: other.id }, query: {} }))
    expect(refused.ok).toBe(false)
    if (refused.ok) return
    expect(refused.status).toBe(403)
    expect(refused.error.businessCode).toBe('FORBIDDEN')
    expectTypeOf(refused.error.businessCode).toEqualTypeOf<BusinessCode>()
    expect(user.id).not.toBe(other.id)
  })

  it('reads an answer that is not the JSON error body as a technical error', async () => {
    const context = {
      ...uiContext,
      api: { fetch: async () => new Response('<html>Bad gateway</html>', { status: 502 }) },
    } as unknown as AppLoadContext
    const result = await read(publicApi(browserRequest(), context).rest.public.health.$get())
    expect(result).toEqual({
      ok: false,
      status: 502,
      error: { businessCode: 'TECHNICAL_ERROR', message: '', attributs: [] },
    })
  })

  it('keeps a path parameter inside its segment when it is encoded (a link token cannot reach another route)', async () => {
    const { context, requests } = recordingContext()
    const token = '../../../bd/session'
    const result = await read(
      publicApi(browserRequest(), context).rest.public.bd.password.token[':token'].$get({
        param: { token: encodeURIComponent(token) },
      }),
    )
    expect(new URL((requests[0] as Request).url).pathname).toBe(
      '/portail-backend/rest/public/bd/password/token/..%2F..%2F..%2Fbd%2Fsession',
    )
    expect(result.ok || [result.status, result.error.businessCode]).toEqual([404, 'TOKEN_NOT_FOUND'])
  })

  it('as the signed-in user: a refused access token is refreshed once and the call retried with the new one', async () => {
    const { context, requests } = recordingContext()
    const request = browserRequest()
    const { user, session } = await signedInSession(request, context)
    session.session.set('accessToken', 'not.a.token')
    const { api, state } = userApi(request, context, session)

    const result = await read(api.rest.bd.session.$get())

    expect(result.ok && result.data.id).toBe(user.id)
    expect(state.refreshed).toBe(true)
    expect(requests.map((sent) => `${sent.method} ${new URL(sent.url).pathname}`)).toEqual([
      'GET /portail-backend/rest/bd/session',
      'POST /portail-backend/rest/public/bd/login/refreshToken',
      'GET /portail-backend/rest/bd/session',
    ])
    expect(requests[0]?.headers.get('Authorization')).toBe('Bearer not.a.token')
    expect(requests[2]?.headers.get('Authorization')).toBe(`Bearer ${session.session.get('accessToken')}`)
  })
})

/**
 * What `npm run typecheck` refuses: each line below must stay an error, so a route renamed in the API,
 * or a schema changed under the UI, breaks the build of the UI rather than a page at run time.
 */
export function refusedByTheTypes(api: ReturnType<typeof publicApi>) {
  // @ts-expect-error: no such route
  api.rest.public.bd.loginn.$post({ json: { identifiant: 'a', motDePasse: 'b' } })
  // @ts-expect-error: the body misses motDePasse
  api.rest.public.bd.login.$post({ json: { identifiant: 'a' } })
  // @ts-expect-error: the route is a POST
  api.rest.public.bd.login.$get()
  // @ts-expect-error: the path parameter is the user's id
  api.rest.bd.utilisateur[':id'].$get({ param: { userId: 1 }, query: {} })
  // @ts-expect-error: not a business code of the API
  const code: BusinessCode = 'NO_SUCH_CODE'
  return code
}
