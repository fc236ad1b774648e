import type { Auth } from './auth.server'

/**
 * An API's file answer (CSV) as the browser downloads it, passed through as it streams, with the session's rotated
 * tokens if any; a failure goes back to `back` with 'Echec de la récupération des données'.
 */
export async function passedThrough(
  auth: Auth,
  response: Pick<Response, 'ok' | 'body' | 'headers'>,
  back: string,
): Promise<Response> {
  if (!response.ok || !response.body) {
    await response.body?.cancel()
    return auth.redirectWithToast(back, { type: 'error', key: 'errors.fetchFailed' })
  }
  const headers = new Headers(await auth.headers())
  for (const name of ['Content-Type', 'Content-Disposition', 'Cache-Control']) {
    const value = response.headers.get(name)
    if (value) headers.set(name, value)
  }
  return new Response(response.body, { status: 200, headers })
}
