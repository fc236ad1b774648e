import type { Env } from './env'
import type { Caller } from './services/actor'

/** The Hono environment of the API's routes: the Worker's bindings, and the caller the auth middleware found. */
export type AppEnv = {
  Bindings: Env
  Variables: { caller: Caller }
}
