import { cookieValue } from '../contract/cookies'
import { createMeter, type Meter, meteredD1 } from './meter'
import { isLocalEnvironment, productionLimited } from './production-limits'

/**
 * A D1 bookmark: where in the database's history a client has been (after its last write). API
 * clients send it back in this header to read their own writes from a replica; the response carries
 * the latest one.
 */
export const BOOKMARK_HEADER = 'X-D1-Bookmark'

/** The shape of D1's bookmarks; anything else is ignored rather than handed to D1. */
const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/

export const validBookmark = (value: string | null | undefined): string | null =>
  value && BOOKMARK.test(value) ? value : null

/** The state of one incoming request, shared by the UI's loaders and every in-process API call it makes. */
export type RequestScope = {
  meter: Meter
  /** The latest bookmark of the request's D1 session (null before its first statement). */
  bookmark(): string | null
  /** What is worked out once per request (the check of the caller behind a bearer token), by key. */
  memo: Map<string, unknown>
  /** Whether several API calls share the scope (a page's loaders), so that their reads may coalesce. */
  shared: boolean
}

/**
 * The environment of one request: `DB` is a D1 session (DESIGN §1, read replicas) whose statements
 * are counted. A request that writes starts at the primary; a read starts anywhere no older than the
 * client's bookmark (read-your-writes), or anywhere at all without one.
 */
export function openRequestScope<E extends { DB: D1Database; ENVIRONMENT?: string }>(
  env: E,
  options: { bookmark?: string | null; write: boolean; shared?: boolean },
): E & { REQUEST_SCOPE: RequestScope } {
  const opened = env.DB.withSession(
    options.write ? 'first-primary' : (validBookmark(options.bookmark) ?? 'first-unconstrained'),
  )
  // Locally, what production's D1 would refuse fails here too (db/production-limits.ts).
  const session = isLocalEnvironment(env) ? productionLimited(opened) : opened
  const meter = createMeter()
  const scope: RequestScope = {
    meter,
    bookmark: () => session.getBookmark(),
    memo: new Map(),
    shared: options.shared ?? false,
  }
  // The session has prepare and batch, all the portal's data layer uses of a database.
  return { ...env, DB: meteredD1(session, meter) as unknown as D1Database, REQUEST_SCOPE: scope }
}

/** Whether a request may change data (it then starts at the primary). */
export const isWrite = (method: string) => !['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase())

/** Whether responses say what they cost (`Server-Timing`): in development, or when switched on. */
export const timingEnabled = (env: { ENVIRONMENT?: string; SERVER_TIMING?: string }) =>
  env.ENVIRONMENT === 'development' || env.SERVER_TIMING === 'on'

/**
 * The browser's bookmark lives in a cookie of its own (HttpOnly, for the browser session): set after
 * each page request that wrote, sent back with every later one. It is no secret and cannot widen
 * what anyone may read; a forged one is at worst ignored.
 */
const bookmarkCookieName = (https: boolean) => (https ? '__Host-portail-d1' : 'portail-d1')

export function bookmarkFromCookie(cookieHeader: string | null, https: boolean): string | null {
  const value = cookieValue(cookieHeader, bookmarkCookieName(https))
  return value === null ? null : validBookmark(value)
}

export function bookmarkSetCookie(bookmark: string, https: boolean): string {
  return `${bookmarkCookieName(https)}=${bookmark}; Path=/; HttpOnly; SameSite=Lax${https ? '; Secure' : ''}`
}
