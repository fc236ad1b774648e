import { type AppLoadContext, createCookieSessionStorage, redirect } from '@remix-run/cloudflare'

export type SessionUser = { id: number; login: string; nom: string; prenom: string; admin: boolean }
type SessionData = { accessToken: string; refreshToken: string; user: SessionUser }

/** Matches the refresh token's absolute lifetime (DESIGN §3). */
const SESSION_MAX_AGE = 10 * 60 * 60

/** Whether the browser reached the portal over HTTPS: its cookies are then `Secure`. */
export const isHttps = (request: Request) => new URL(request.url).protocol === 'https:'

/**
 * The browser session: the token pair and the user, in a signed HttpOnly cookie. Over HTTPS it is a
 * `__Host-` cookie (Secure, Path=/, no Domain); plain-HTTP development uses an ordinary name.
 */
function storage(request: Request, context: AppLoadContext) {
  const secure = isHttps(request)
  return createCookieSessionStorage<SessionData>({
    cookie: {
      name: secure ? '__Host-portail-session' : 'portail-session',
      httpOnly: true,
      secure,
      sameSite: 'lax',
      path: '/',
      maxAge: SESSION_MAX_AGE,
      secrets: [context.cloudflare.env.SESSION_SECRET],
    },
  })
}

async function readSession(request: Request, context: AppLoadContext) {
  const store = storage(request, context)
  const session = await store.getSession(request.headers.get('Cookie'))
  return {
    session,
    commit: () => store.commitSession(session),
    destroy: () => store.destroySession(session),
  }
}

export type Session = Awaited<ReturnType<typeof readSession>>

/** The sessions read by a page request, by its context: its loaders run side by side. */
const readByRequest = new WeakMap<AppLoadContext, Promise<Session>>()

/**
 * The browser session of the request. A page's loaders (the layout's and the page's) share one
 * reading of the cookie, its signature checked once, and so see each other's refreshed tokens; an
 * action reads its own.
 */
export function getSession(request: Request, context: AppLoadContext): Promise<Session> {
  if (request.method !== 'GET' && request.method !== 'HEAD') return readSession(request, context)
  let session = readByRequest.get(context)
  if (!session) {
    session = readSession(request, context)
    readByRequest.set(context, session)
  }
  return session
}

/** `/login?redirect=<path>` for the page the visitor wanted. */
export function loginRedirect(request: Request, headers?: HeadersInit) {
  const url = new URL(request.url)
  const wanted = `${url.pathname}${url.search}`
  return redirect(`/login?${new URLSearchParams({ redirect: wanted })}`, { headers })
}
