import { createCookieSessionStorage } from '@remix-run/cloudflare'

export type Toast = { type: 'success' | 'error' | 'info'; key: string; values?: Record<string, string | number> }

/** One-shot notices carried across a redirect, in a cookie of their own (not the auth session). */
const toastStorage = createCookieSessionStorage<Record<string, never>, { toast: Toast }>({
  cookie: { name: 'portail-toast', httpOnly: true, sameSite: 'lax', path: '/', maxAge: 60 },
})

export async function toastHeaders(toast: Toast): Promise<HeadersInit> {
  const session = await toastStorage.getSession()
  session.flash('toast', toast)
  return { 'Set-Cookie': await toastStorage.commitSession(session) }
}

export async function readToast(request: Request) {
  const session = await toastStorage.getSession(request.headers.get('Cookie'))
  const toast = session.get('toast') ?? null
  return { toast, headers: toast ? { 'Set-Cookie': await toastStorage.destroySession(session) } : undefined }
}
