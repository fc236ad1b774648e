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

/** The Hono environment of the API's routes: the request's environment, and the caller the auth middleware found. */
export type AppEnv = {
  Bindings: RequestEnv
  Variables: { caller: Caller }
}
