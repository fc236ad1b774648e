import { type AppLoadContext, redirect } from '@remix-run/cloudflare'
import type { SessionInfo } from '../../worker-api/contract/sign-in/auth'
import { type ApiResponse, read, type Success, userApi } from './api.server'
import { i18nServer } from './i18n.server'
import { isRootOnlyPath, ROOT_ONLY } from './menu'
import { getSession, loginRedirect } from './session.server'
import { type Toast, toastHeaders } from './toast.server'

/**
 * Guard of every authenticated loader and action: throws a redirect to /login?redirect=<path> when
 * there is no session. `api` is the typed REST client acting as this user; `headers()` carries
 * rotated tokens.
 */
export async function requireUser(request: Request, context: AppLoadContext) {
  const session = await getSession(request, context)
  const user = session.session.get('user')
  if (!user || !session.session.get('accessToken')) throw loginRedirect(request)
  const { api, state } = userApi(request, context, session)

  async function headers(): Promise<HeadersInit | undefined> {
    return state.refreshed ? { 'Set-Cookie': await session.commit() } : undefined
  }

  /** The outcome of a call, unless the API no longer accepts the session: then it ends at /login. */
  async function settle<R extends ApiResponse>(call: Promise<R>) {
    const result = await read(call)
    if (result.status === 401) {
      throw loginRedirect(request, { 'Set-Cookie': await session.destroy() }, state.ended)
    }
    return result
  }

  /** The data of a successful call; any other answer is thrown as the page's error. */
  async function expect<R extends ApiResponse>(call: Promise<R>): Promise<Success<R>> {
    const result = await settle(call)
    if (result.ok) return result.data
    throw new Response(result.error.businessCode, { status: result.status })
  }

  /** A page of a list call (DESIGN §1) and the total the API counted; any failure as `expect`. */
  async function expectPage<R extends ApiResponse>(call: Promise<R>): Promise<{ items: Success<R>; total: number }> {
    const result = await settle(call)
    if (!result.ok) throw new Response(result.error.businessCode, { status: result.status })
    return { items: result.data, total: result.total ?? 0 }
  }

  /** A signed-in action's success: on to `to` with a notice, the session's (maybe rotated) tokens kept. */
  async function redirectWithToast(to: string, toast: Toast) {
    const headers = new Headers(await toastHeaders(request, context, toast))
    headers.append('Set-Cookie', await session.commit())
    return redirect(to, { headers })
  }

  return { user, session, api, headers, settle, expect, expectPage, redirectWithToast }
}

export type Auth = Awaited<ReturnType<typeof requireUser>>

/** The API's answers about a page request's session, by its context and access token: the layout and the guard ask alike. */
const sessions = new WeakMap<AppLoadContext, Map<string, Promise<SessionInfo>>>()

/**
 * The session as the API has it now (not the cookie's copy from the sign-in: the admin flag can
 * change), asked once per page read: the layout's loader and an admin page's guard share the answer.
 * A form's request asks again after its action, which may have changed it.
 */
export function currentSession(request: Request, auth: Auth, context: AppLoadContext): Promise<SessionInfo> {
  const ask = () => auth.expect(auth.api.rest.bd.session.$get())
  const token = auth.session.session.get('accessToken')
  if ((request.method !== 'GET' && request.method !== 'HEAD') || !token) return ask()
  let asked = sessions.get(context)
  if (!asked) {
    asked = new Map()
    sessions.set(context, asked)
  }
  let session = asked.get(token)
  if (!session) {
    session = ask()
    asked.set(token, session)
  }
  return session
}

/**
 * The session as the API has it now; a non-administrator is sent to their access page. On a page of
 * the whole organisation (`isRootOnlyPath`) an administrator of the whole tree (a current post on the
 * root structure) is asked for, and any other gets the page that says so (403), as the API answers them.
 */
async function adminSession(request: Request, auth: Auth, context: AppLoadContext) {
  const me = await currentSession(request, auth, context)
  if (!me.admin) throw redirect('/pages/user/acces', { headers: await auth.headers() })
  // The security settings hold an administrator without a second factor back until they enrol one.
  if (me.mfaEnrolementRequis) throw redirect('/pages/user/securite?enrolement=1', { headers: await auth.headers() })
  if (!me.racine && isRootOnlyPath(new URL(request.url).pathname)) {
    throw new Response(ROOT_ONLY, { status: 403, headers: await auth.headers() })
  }
  return me
}

type AdminRead<T> = { auth: Auth; data: T; t: Awaited<ReturnType<typeof i18nServer.getFixedT>> }

/**
 * The admin screens' guard (spec §6: paths containing 'admin'; `isRootOnlyPath` for the root's administrators). Every
 * admin loader and action calls it: on client-side navigation Remix does not re-run the /pages layout loader. `read`
 * shares the check's D1 round trip; its outcome is looked at only once the check has passed.
 */
export async function requireAdmin(request: Request, context: AppLoadContext): Promise<Auth>
export async function requireAdmin<T>(
  request: Request,
  context: AppLoadContext,
  options: { read: (auth: Auth) => Promise<T> },
): Promise<AdminRead<T>>
export async function requireAdmin<T>(
  request: Request,
  context: AppLoadContext,
  options?: { read: (auth: Auth) => Promise<T> },
): Promise<Auth | AdminRead<T>> {
  const auth = await requireUser(request, context)
  if (!options) {
    await adminSession(request, auth, context)
    return auth
  }
  const checked = adminSession(request, auth, context)
  const data = options.read(auth)
  // Its failure is the check's to decide first; nothing is left unawaited either way.
  data.catch(() => {})
  const t = i18nServer.getFixedT(request)
  await checked
  return { auth, data: await data, t: await t }
}

/**
 * Spec §2: the access page is the fallback for `/pages` and its unknown paths. An anonymous visitor
 * signs in first and keeps the path asked for; after sign-in, the guards decide where it leads.
 */
export async function toAccessPage(request: Request, context: AppLoadContext): Promise<never> {
  if (!(await hasSession(request, context))) throw loginRedirect(request)
  throw redirect('/pages/user/acces')
}

export async function hasSession(request: Request, context: AppLoadContext) {
  const { session } = await getSession(request, context)
  return Boolean(session.get('accessToken'))
}

/**
 * Who the browser's session belongs to, if the API still accepts it (after one refresh if needed),
 * with the header that keeps rotated tokens; a session the API refuses is cleared instead.
 */
export async function liveSessionUser(
  request: Request,
  context: AppLoadContext,
): Promise<{ user: Pick<SessionInfo, 'login' | 'nom' | 'prenom'> | null; setCookie: string | null }> {
  const session = await getSession(request, context)
  const stored = session.session.get('user')
  if (!stored || !session.session.get('accessToken')) return { user: null, setCookie: null }
  const { api, state } = userApi(request, context, session)
  const result = await read(api.rest.bd.session.$get())
  if (!result.ok) return { user: null, setCookie: result.status === 401 ? await session.destroy() : null }
  const { login, nom, prenom } = result.data
  return { user: { login, nom, prenom }, setCookie: state.refreshed ? await session.commit() : null }
}

/**
 * Signs the browser's session out: the API revokes its refresh tokens and logs DECONNEXION (after
 * one refresh if the access token has expired meanwhile). Returns the header that clears the cookie,
 * or null when there was no session. With a SAML logout sequence, the applications the session signed into are to be
 * told through this browser (the logout page, `/saml/deconnexion?suite=…`).
 */
export async function endSession(
  request: Request,
  context: AppLoadContext,
  suiteSaml?: string,
): Promise<string | null> {
  const session = await getSession(request, context)
  if (!session.session.get('accessToken')) return null
  await userApi(request, context, session).api.rest.bd.logout.$post({ json: suiteSaml ? { suiteSaml } : {} })
  return session.destroy()
}
