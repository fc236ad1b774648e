import { API_BASE } from '../../contract/base'
import type { Actor } from '../core/actor'

/**
 * What an application's session may call (DESIGN §4: bound to its application), as an explicit list
 * of route ids — the method and the path as the route is registered — each with the condition on its
 * parameters and its query. A route not listed here is refused, however its path is spelt, so a route added later
 * cannot fall under it by accident.
 */
export const APPLICATION_ROUTES: Readonly<
  Record<string, (actor: Pick<Actor, 'id' | 'app'>, params: Record<string, string>, query: URLSearchParams) => boolean>
> = {
  // Its user, without their portal sessions (`sessions=true`), which session/liste refuses it too.
  [`GET ${API_BASE}/rest/bd/utilisateur/:id`]: (actor, params, query) =>
    params.id === String(actor.id) && !query.has('sessions'),
  [`GET ${API_BASE}/rest/bd/session`]: () => true,
  [`POST ${API_BASE}/rest/bd/logout`]: () => true,
}

/**
 * The parameters of `path` under a registered route path (`/a/:id/b`), as they appear in the path (not
 * decoded: a condition compares them with what it allows), or null when the path does not fit.
 */
function routeParams(routePath: string, path: string): Record<string, string> | null {
  const pattern = routePath.split('/')
  const actual = path.split('/')
  if (pattern.length !== actual.length) return null
  const params: Record<string, string> = {}
  for (const [i, part] of pattern.entries()) {
    const value = actual[i] ?? ''
    if (part.startsWith(':')) params[part.slice(1)] = value
    else if (part !== value) return null
  }
  return params
}

/** Whether an application's session may make this call: the route it reached, its parameters and its query. */
export function applicationMayCall(
  actor: Pick<Actor, 'id' | 'app'>,
  method: string,
  routePath: string,
  path: string,
  query: URLSearchParams,
): boolean {
  const allowed = APPLICATION_ROUTES[`${method} ${routePath}`]
  const params = allowed ? routeParams(routePath, path) : null
  return allowed !== undefined && params !== null && allowed(actor, params, query)
}
