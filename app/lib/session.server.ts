import { type AppLoadContext, createCookieSessionStorage, createSession, redirect } from '@remix-run/cloudflare'
import { decodeJwt } from 'jose'
import type { SessionEndReason } from '../../worker-api/contract/sign-in/auth'

export type SessionUser = { id: number; login: string; nom: string; prenom: string; admin: boolean }
/** `fournisseur`: the session was opened through a partner's identity provider, whose sign-out follows the portal's. */
type SessionData = { accessToken: string; refreshToken: string; user: SessionUser; fournisseur: boolean }

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

/** More browsers than an isolate serves at once: a reading older than that is simply made again. */
const KEPT_READINGS = 1000

/**
 * What a Cookie header's session holds, by the header and the key that signs it: a header is read and
 * its signature checked once, however many loaders, and pages of the same browser, read it. The same
 * header with the same key always holds the same data; each caller gets a session of its own.
 */
const readings = new Map<string, Promise<Partial<SessionData>>>()

function sessionData(request: Request, context: AppLoadContext): Promise<Partial<SessionData>> {
  const header = request.headers.get('Cookie')
  if (!header) return Promise.resolve({})
  const key = `${context.cloudflare.env.SESSION_SECRET}\0${isHttps(request)}\0${header}`
  let data = readings.get(key)
  if (!data) {
    data = storage(request, context)
      .getSession(header)
      .then((session) => session.data as Partial<SessionData>)
    if (readings.size >= KEPT_READINGS) readings.clear()
    readings.set(key, data)
  }
  return data
}

export async function getSession(request: Request, context: AppLoadContext) {
  const store = storage(request, context)
  const session = createSession<SessionData, SessionData>((await sessionData(request, context)) as SessionData)
  return {
    session,
    commit: () => store.commitSession(session),
    destroy: () => store.destroySession(session),
  }
}

export type Session = Awaited<ReturnType<typeof getSession>>

/** The sign-in page's `fin` parameter: why the session it follows was ended. */
export const LOGIN_END_PARAM = { AUTRE_APPAREIL: 'autre-appareil', ADMINISTRATEUR: 'administrateur' } as const

/**
 * `/login?redirect=<path>` for the page the visitor wanted; with `ended`, the page says why their
 * session ended (`&fin=`).
 */
export function loginRedirect(request: Request, headers?: HeadersInit, ended: SessionEndReason | null = null) {
  const url = new URL(request.url)
  const query = new URLSearchParams({ redirect: `${url.pathname}${url.search}` })
  if (ended) query.set('fin', LOGIN_END_PARAM[ended])
  return redirect(`/login?${query}`, { headers })
}

/** The portal session (`sid`) of the signed-in browser's access token (from its signed cookie). */
export function portalSessionOf(accessToken: string | undefined): string | undefined {
  if (!accessToken) return undefined
  try {
    const { sid } = decodeJwt(accessToken)
    return typeof sid === 'string' ? sid : undefined
  } catch {
    return undefined
  }
}
