import type { AppLoadContext } from '@remix-run/cloudflare'
import { API_BASE } from '../../worker-api/base'
import type { ErrorBody } from '../../worker-api/lib/errors'
import { i18nServer } from './i18n.server'
import type { Session } from './session.server'

export type ApiResult<T> = { ok: true; status: number; data: T } | { ok: false; status: number; error: ErrorBody }

/**
 * Calls the REST API in-process, exactly as an integrator would over HTTP (DESIGN §1): same paths,
 * same bearer token, same checks. The user's language, the browser's agent, address and origin are passed on.
 */
export async function callApi<T>(
  request: Request,
  context: AppLoadContext,
  path: string,
  init: { method?: string; body?: unknown; token?: string } = {},
): Promise<ApiResult<T>> {
  const origin = new URL(request.url).origin
  const headers = new Headers({ Accept: 'application/json', Origin: origin })
  // The language the user reads the portal in (the switch's cookie, else the browser's): mails follow it.
  headers.set('Accept-Language', await i18nServer.getLocale(request))
  for (const name of ['User-Agent', 'CF-Connecting-IP']) {
    const value = request.headers.get(name)
    if (value) headers.set(name, value)
  }
  if (init.token) headers.set('Authorization', `Bearer ${init.token}`)
  if (init.body !== undefined) headers.set('Content-Type', 'application/json')
  const apiRequest = new Request(`${origin}${API_BASE}/rest/${path}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  })
  const { env, ctx } = context.cloudflare
  const started = performance.now()
  const response = await context.api.fetch(apiRequest, env, ctx as ExecutionContext)
  const payload = response.status === 204 ? null : await response.json().catch(() => null)
  if (context.meter) {
    context.meter.apiCalls += 1
    context.meter.apiMs += performance.now() - started
  }
  if (response.ok) return { ok: true, status: response.status, data: payload as T }
  const error = (payload as ErrorBody | null) ?? { businessCode: 'TECHNICAL_ERROR', message: '', attributs: [] }
  return { ok: false, status: response.status, error }
}

type TokenPair = { accessToken: string; refreshToken: string }

/** The refreshes of this request (the layout's and the page's loaders run side by side), by token. */
const refreshes = new WeakMap<AppLoadContext, Map<string, Promise<ApiResult<TokenPair>>>>()

/** One refresh per request and token, whichever loader asks first: the others share its answer. */
function refreshOncePerRequest(request: Request, context: AppLoadContext, refreshToken: string) {
  let byToken = refreshes.get(context)
  if (!byToken) {
    byToken = new Map()
    refreshes.set(context, byToken)
  }
  let result = byToken.get(refreshToken)
  if (!result) {
    result = callApi<TokenPair>(request, context, 'public/bd/login/refreshToken', {
      method: 'POST',
      body: { refreshToken },
    })
    byToken.set(refreshToken, result)
  }
  return result
}

/**
 * The API as the signed-in user: on a 401 it refreshes the access token once and retries (spec §4),
 * keeping the rotated tokens in the session. `refreshed` tells the caller to commit the session.
 */
export function userApi(request: Request, context: AppLoadContext, { session }: Session) {
  const state = { refreshed: false, failed: false }
  async function refreshOnce() {
    const refreshToken = session.get('refreshToken')
    if (!refreshToken || state.failed) return false
    const result = await refreshOncePerRequest(request, context, refreshToken)
    if (!result.ok) {
      state.failed = true
      return false
    }
    session.set('accessToken', result.data.accessToken)
    session.set('refreshToken', result.data.refreshToken)
    state.refreshed = true
    return true
  }
  async function call<T>(path: string, init: { method?: string; body?: unknown } = {}) {
    const first = await callApi<T>(request, context, path, { ...init, token: session.get('accessToken') })
    if (first.status !== 401 || !(await refreshOnce())) return first
    return callApi<T>(request, context, path, { ...init, token: session.get('accessToken') })
  }
  return { call, state }
}
