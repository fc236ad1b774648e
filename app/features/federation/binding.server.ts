import { createCookie } from '@remix-run/cloudflare'
import { isHttps } from '~/lib/session.server'
import { FEDERATION_STATE_SECONDS } from '../../../worker-api/contract/federation/sign-in'

/**
 * The browser's binding to a sign-in started at a partner's provider: a random value in an HttpOnly cookie, whose hash
 * the portal keeps with the sign-in's state. The provider's answer is accepted only from the browser holding it, so a
 * code and state stolen, or planted in another browser (login CSRF), do not sign anybody in. SameSite=Lax: the cookie
 * comes back with the provider's top-level redirect.
 */
const bindingCookie = (request: Request) =>
  createCookie(isHttps(request) ? '__Host-portail-fournisseur' : 'portail-fournisseur', {
    httpOnly: true,
    secure: isHttps(request),
    sameSite: 'lax',
    path: '/',
    maxAge: FEDERATION_STATE_SECONDS,
  })

/** A new binding and the cookie that keeps it. */
export async function newBinding(request: Request) {
  const bytes = crypto.getRandomValues(new Uint8Array(32))
  const value = btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '')
  return { value, setCookie: await bindingCookie(request).serialize(value) }
}

/** The binding the browser holds, if any. */
export async function bindingOf(request: Request): Promise<string | null> {
  const value: unknown = await bindingCookie(request).parse(request.headers.get('Cookie'))
  return typeof value === 'string' && value.length >= 32 ? value : null
}

/** The cookie's removal: a binding serves one sign-in. */
export const spentBinding = (request: Request) => bindingCookie(request).serialize('', { maxAge: 0 })

/**
 * The provider's sign-out that follows the portal's (its end_session_endpoint, read before the portal's session ends):
 * kept signed in a cookie until the SAML logout page has told the applications, then followed.
 */
const providerSignOutCookie = (request: Request, secret: string) =>
  createCookie(isHttps(request) ? '__Host-portail-fin-fournisseur' : 'portail-fin-fournisseur', {
    httpOnly: true,
    secure: isHttps(request),
    sameSite: 'lax',
    path: '/',
    maxAge: 10 * 60,
    secrets: [secret],
  })

export type ProviderSignOut = { url: string; nom: string }

export const keepProviderSignOut = (request: Request, secret: string, signOut: ProviderSignOut) =>
  providerSignOutCookie(request, secret).serialize(signOut)

/** The provider's sign-out kept, if any, and the cookie's removal. */
export async function takeProviderSignOut(request: Request, secret: string) {
  const cookie = providerSignOutCookie(request, secret)
  const value: unknown = await cookie.parse(request.headers.get('Cookie'))
  const kept =
    value && typeof value === 'object' && 'url' in value && typeof value.url === 'string' && 'nom' in value
      ? { url: value.url, nom: String(value.nom) }
      : null
  return { kept, cleared: kept ? await cookie.serialize('', { maxAge: 0 }) : null }
}
