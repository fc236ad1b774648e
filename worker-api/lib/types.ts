import type { Language } from '../contract/language'
import type { DB } from '../db/client'
import type { RequestScope } from '../db/request-scope'
import type { Env } from '../env'
import type { AccessClaims } from './jwt'

/**
 * The environment one request runs with: the Worker's bindings and the state the Worker adds for that
 * request (db/request-scope.ts: its D1 session, meter and memo), absent only outside a request.
 */
export type RequestEnv = Env & { REQUEST_SCOPE?: RequestScope }

/**
 * Who is calling: the user of the access token (`id`), the application it was issued to (`app`, null
 * for the portal), its claims, the origin of the request and the key its checks are memoised under.
 */
export type Caller = { id: number; app: number | null; claims: AccessClaims; origin: string; key: string }

/** What the services know of the HTTP request itself. */
export type RequestInfo = { origin: string; userAgent: string | null; ip: string | null; language: Language }

/**
 * What every service works with, built once per request by the API's first middleware (app.ts):
 * the settings, the request's D1 session (`d1`, and Kysely on it, `db`), its scope (meter, memo,
 * bookmark), what the request says of itself, and the mail it queued, which the middleware delivers
 * once the response is sent.
 */
export type Ctx = {
  /** The Worker's settings and secrets (its `DB` is the request's session, as `d1`). */
  env: RequestEnv
  d1: D1Database
  db: DB
  scope: RequestScope
  request: RequestInfo
  /** The outbox's ids the request queued: delivered after the response (app.ts). */
  mail: number[]
}

/**
 * The Hono environment of the API's routes: the request's environment, its context (lib/context.ts)
 * and the caller the auth middleware found.
 */
export type AppEnv = {
  Bindings: RequestEnv
  Variables: { ctx: Ctx; caller: Caller }
}
