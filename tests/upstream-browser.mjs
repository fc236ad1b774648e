// The person at a partner's identity provider (tests/upstream-provider.mjs), the browser's part of the code flow done
// with fetch: shared by the API tests and the benchmark's callback scenario.

/**
 * Follows the authorization request, signs in as `sub` on the provider's page (with the factors `amr`), and answers
 * the parameters the provider sends the browser back with (code, state, iss…).
 * @param {string} authorizationUrl
 * @param {string} sub
 * @param {string} [amr]
 * @returns {Promise<URLSearchParams>}
 */
export async function atProvider(authorizationUrl, sub, amr = 'pwd') {
  /** @type {Map<string, string>} */
  const jar = new Map()
  /** @param {string} url @param {RequestInit} [init] */
  const go = async (url, init = {}) => {
    const headers = new Headers(init.headers)
    if (jar.size > 0) headers.set('cookie', [...jar].map(([name, value]) => `${name}=${value}`).join('; '))
    const response = await fetch(url, { ...init, headers, redirect: 'manual' })
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';')
      const at = pair.indexOf('=')
      jar.set(pair.slice(0, at), pair.slice(at + 1))
    }
    await response.body?.cancel()
    return response
  }
  const base = new URL(authorizationUrl).origin
  let response = await go(authorizationUrl)
  let location = new URL(response.headers.get('location') ?? '', base)
  response = await go(location.href, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ sub, amr }).toString(),
  })
  for (let hops = 0; hops < 10 && response.status >= 300 && response.status < 400; hops++) {
    location = new URL(response.headers.get('location') ?? '', base)
    if (location.origin !== base) return location.searchParams
    response = await go(location.href)
  }
  throw new Error(`The provider did not send the browser back (${response.status})`)
}
