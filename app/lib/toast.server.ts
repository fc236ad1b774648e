import { type AppLoadContext, createCookieSessionStorage } from '@remix-run/cloudflare'
import { isHttps } from './session.server'

export type Toast = {
  type: 'success' | 'error' | 'info'
  key: string
  values?: Record<string, string | number>
  /** Where the notice leads next (a page of the portal) and the link's words, e.g. the new user's profile. */
  link?: { to: string; key: string; values?: Record<string, string | number> }
}

/**
 * One-shot notices carried across a redirect, in a signed cookie of their own (not the auth session);
 * Secure over HTTPS, like the session cookie.
 */
const TOAST_COOKIE = 'portail-toast'

function toastStorage(request: Request, context: AppLoadContext) {
  return createCookieSessionStorage<Record<string, never>, { toast: Toast }>({
    cookie: {
      name: TOAST_COOKIE,
      httpOnly: true,
      secure: isHttps(request),
      sameSite: 'lax',
      path: '/',
      maxAge: 60,
      secrets: [context.cloudflare.env.SESSION_SECRET],
    },
  })
}

/** The longest text a notice names (an address, a name as posted): a notice travels in a cookie, which must stay small. */
const NAMED_MAX = 120

const bounded = (values: Record<string, string | number> | undefined) =>
  values &&
  Object.fromEntries(
    Object.entries(values).map(([name, value]) => [
      name,
      typeof value === 'string' && value.length > NAMED_MAX ? `${value.slice(0, NAMED_MAX - 1)}…` : value,
    ]),
  )

export async function toastHeaders(request: Request, context: AppLoadContext, toast: Toast): Promise<HeadersInit> {
  const storage = toastStorage(request, context)
  const session = await storage.getSession()
  session.flash('toast', {
    ...toast,
    ...(toast.values ? { values: bounded(toast.values) } : {}),
    ...(toast.link
      ? { link: { ...toast.link, ...(toast.link.values ? { values: bounded(toast.link.values) } : {}) } }
      : {}),
  })
  return { 'Set-Cookie': await storage.commitSession(session) }
}

export async function readToast(request: Request, context: AppLoadContext) {
  const cookies = request.headers.get('Cookie')
  // Most pages come without a notice: no cookie to parse and verify then.
  if (!cookies?.includes(`${TOAST_COOKIE}=`)) return { toast: null, headers: undefined }
  const storage = toastStorage(request, context)
  const session = await storage.getSession(cookies)
  const toast = session.get('toast') ?? null
  return { toast, headers: toast ? { 'Set-Cookie': await storage.destroySession(session) } : undefined }
}
