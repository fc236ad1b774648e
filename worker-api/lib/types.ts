import type { Env } from '../env'
import type { AccessClaims } from './jwt'

/**
 * Who is calling: the user of the access token (`id`), the application it was issued to (`app`, null
 * for the portal), its claims, the origin of the request and the key its checks are memoised under.
 */
export type Caller = { id: number; app: number | null; claims: AccessClaims; origin: string; key: string }

/** The Hono environment of the API's routes: the Worker's bindings, and the caller the auth middleware found. */
export type AppEnv = {
  Bindings: Env
  Variables: { caller: Caller }
}
