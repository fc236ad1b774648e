/** This machine's names, as URL gives a hostname (an IPv6 address in its brackets). */
export const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]']
const LOOPBACK = new Set(LOOPBACK_HOSTS)

function urlOf(origin: string): URL | null {
  try {
    return new URL(origin)
  } catch {
    return null
  }
}

/** An origin's host, lower case, without its port; null for what is no URL. */
export const hostOf = (origin: string): string | null => urlOf(origin)?.hostname.toLowerCase() ?? null

/** Whether an origin is this machine (localhost, 127.0.0.1, ::1). */
export function isLoopback(origin: string): boolean {
  const host = hostOf(origin)
  return host !== null && LOOPBACK.has(host)
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

/**
 * Whether two origins are one site: scheme, host and port all equal — the loopback names still one
 * machine (on the same scheme and port). What a new account is bound to must pass this against its
 * creator's own, as every mail link of that account follows it.
 */
export function sameOrigin(a: string, b: string): boolean {
  const [x, y] = [urlOf(a), urlOf(b)]
  if (!x || !y || x.protocol !== y.protocol || x.port !== y.port) return false
  return sameDomain(a, b)
}

/**
 * The site the request reached. The URL's own origin, not the Origin header, which any client
 * outside a browser may set to whatever domain it likes.
 */
export function requestOrigin(request: Request): string {
  return new URL(request.url).origin
}

/**
 * Where a mail's link opens: the account's domain (DESIGN §5), scheme included, so a request that
 * reached the portal over plain HTTP cannot make the token travel unencrypted. On a loopback
 * address the request's own origin is kept, for the port of a local run.
 */
export function linkOrigin(userDomain: string, requestOrigin: string): string {
  const local = isLoopback(userDomain) && sameDomain(userDomain, requestOrigin)
  return (local ? requestOrigin : userDomain).replace(/\/+$/, '')
}
