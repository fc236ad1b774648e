const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1'])

function hostOf(origin: string): string | null {
  try {
    return new URL(origin).hostname.toLowerCase()
  } catch {
    return null
  }
}

/**
 * Whether a request from `origin` may sign in a user bound to `userDomain`. Hosts are compared
 * (not ports); the loopback names are one machine, so demo users work on localhost and 127.0.0.1.
 */
export function sameDomain(userDomain: string, origin: string): boolean {
  const a = hostOf(userDomain)
  const b = hostOf(origin)
  if (!a || !b) return false
  return a === b || (LOOPBACK.has(a) && LOOPBACK.has(b))
}

/** The origin the request was made from: the browser's Origin header, else the URL's origin. */
export function requestOrigin(request: Request): string {
  const origin = request.headers.get('Origin')
  if (origin && origin !== 'null') return origin
  return new URL(request.url).origin
}
