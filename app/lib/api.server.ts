import type { AppLoadContext } from '@remix-run/cloudflare'
import { type ClientResponse, hc } from 'hono/client'
import type { SuccessStatusCode } from 'hono/utils/http-status'
import { API_BASE, type ApiRoutes, type ErrorBody } from '../../worker-api/contract/api'
import { type SessionEndReason, sessionEndReason } from '../../worker-api/contract/sign-in/auth'
import { i18nServer } from './i18n.server'
import type { Session } from './session.server'

/**
 * The REST API as Hono's typed client: paths, parameters, bodies and answers are checked against the
 * routes themselves (`ApiRoutes`), so a renamed route or a changed schema fails `npm run typecheck`.
 */
export type Api = ReturnType<typeof hc<ApiRoutes>>

export type ApiResult<T> =
  | {
      ok: true
      status: number
      data: T /** A paged list's X-Total-Count (DESIGN §1), else null. */
      total: number | null
      /** The history's archived months of the range asked (X-Archived-Months, 'YYYY-MM/YYYY-MM'), else null. */
      archived: string | null
    }
  | { ok: false; status: number; error: ErrorBody }

/** What a typed call answers on success: its JSON, or null for an empty answer (204). */
export type Success<R> =
  R extends ClientResponse<infer T, infer S, infer F>
    ? S extends SuccessStatusCode
      ? F extends 'json'
        ? T
        : null
      : never
    : never

export type ApiResponse = ClientResponse<unknown, number, string>

/** The outcome of a typed call: its data on 2xx, else the error body of DESIGN §2. */
export async function read<R extends ApiResponse>(call: Promise<R>): Promise<ApiResult<Success<R>>> {
  const response = await call
  const payload: unknown = response.status === 204 ? null : await response.json().catch(() => null)
  if (response.ok) {
    const total = response.headers.get('X-Total-Count')
    return {
      ok: true,
      status: response.status,
      data: payload as Success<R>,
      total: total === null ? null : Number(total),
      archived: response.headers.get('X-Archived-Months'),
    }
  }
  const error = isErrorBody(payload) ? payload : technicalError
  return { ok: false, status: response.status, error }
}

const technicalError: ErrorBody = { businessCode: 'TECHNICAL_ERROR', message: '', attributs: [] }

function isErrorBody(value: unknown): value is ErrorBody {
  return typeof value === 'object' && value !== null && typeof (value as ErrorBody).businessCode === 'string'
}

/**
 * Calls the REST API in-process, exactly as an integrator would over HTTP (DESIGN §1): same paths,
 * same bearer token, same checks. The user's language, the browser's agent, address and origin are
 * passed on; each call is counted in the request's meter.
 */
function inProcessFetch(request: Request, context: AppLoadContext, bearer?: Bearer): typeof fetch {
  const forwarded = new Headers({ Accept: 'application/json', Origin: new URL(request.url).origin })
  for (const name of ['User-Agent', 'CF-Connecting-IP']) {
    const value = request.headers.get(name)
    if (value) forwarded.set(name, value)
  }
  const { env, ctx } = context.cloudflare

  async function send(input: RequestInfo | URL, init: RequestInit | undefined, token: string | undefined) {
    const headers = new Headers(init?.headers)
    for (const [name, value] of forwarded) headers.set(name, value)
    // The language the user reads the portal in (the switch's cookie, else the browser's): mails follow it.
    headers.set('Accept-Language', await i18nServer.getLocale(request))
    if (token) headers.set('Authorization', `Bearer ${token}`)
    const started = performance.now()
    const response = await context.api.fetch(new Request(input, { ...init, headers }), env, ctx as ExecutionContext)
    if (context.meter) {
      context.meter.apiCalls += 1
      context.meter.apiMs += performance.now() - started
    }
    return response
  }

  return async (input, init) => {
    const first = await send(input, init, bearer?.token())
    // Spec §4: an expired access token is refreshed once, and the call retried with the new one.
    if (first.status !== 401 || !bearer || !(await bearer.refresh())) return first
    await first.body?.cancel()
    return send(input, init, bearer.token())
  }
}

type Bearer = { token(): string | undefined; refresh(): Promise<boolean> }

const client = (request: Request, context: AppLoadContext, bearer?: Bearer): Api =>
  hc<ApiRoutes>(`${new URL(request.url).origin}${API_BASE}`, { fetch: inProcessFetch(request, context, bearer) })

/** The API as an anonymous caller (sign-in, captcha, password and mail links). */
export const publicApi = (request: Request, context: AppLoadContext) => client(request, context)

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
    result = read(publicApi(request, context).rest.public.bd.login.refreshToken.$post({ json: { refreshToken } }))
    byToken.set(refreshToken, result)
  }
  return result
}

/**
 * The API as the signed-in user: on a 401 it refreshes the access token once and retries (spec §4),
 * keeping the rotated tokens in the session. `state.refreshed` tells the caller to commit the session.
 */
export function userApi(request: Request, context: AppLoadContext, { session }: Session) {
  const state: { refreshed: boolean; failed: boolean; ended: SessionEndReason | null } = {
    refreshed: false,
    failed: false,
    ended: null,
  }
  const bearer: Bearer = {
    token: () => session.get('accessToken'),
    async refresh() {
      const refreshToken = session.get('refreshToken')
      if (!refreshToken || state.failed) return false
      const result = await refreshOncePerRequest(request, context, refreshToken)
      if (!result.ok) {
        state.failed = true
        // Ended from another of the user's sessions or by an administrator: the sign-in page says so.
        state.ended = sessionEndReason(result.error.attributs[0])
        return false
      }
      session.set('accessToken', result.data.accessToken)
      session.set('refreshToken', result.data.refreshToken)
      state.refreshed = true
      return true
    },
  }
  return { api: client(request, context, bearer), state }
}
