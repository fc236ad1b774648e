import { sql } from 'kysely'
import { API_BASE } from '../base'
import { getDb } from '../db/client'
import { oncePerRequest } from '../db/request-scope'
import type { Env } from '../env'
import { todayIso } from '../lib/dates'
import { sameDomain } from '../lib/domain'
import { BusinessError, unauthorized } from '../lib/errors'
import { verifyAccessToken } from '../lib/jwt'

/** The signed-in caller of a non-public endpoint; `app` when it is an application's session. */
export type Actor = {
  id: number
  login: string
  nom: string
  prenom: string
  admin: boolean
  domain: string
  sid: string
  langue: 'fr' | 'en'
  app: number | null
  /** An admin's scope (DESIGN §4): the paths of the structures of their current posts; [] otherwise. */
  scope: string[]
}

export const unauthorizedDomain = () =>
  new BusinessError('USER_UNAUTHORIZED_DOMAIN', 403, 'User not allowed on this domain')

/**
 * Resolves a bearer token to its actor, once per request however many in-process calls the page
 * makes. Besides the JWT checks, one indexed query confirms the user is still active and the session
 * family not revoked (so sign-out and disabling take effect at once), and brings what callers need of
 * the user, an admin's scope included; the request must reach the user's own domain (DESIGN §7).
 */
export function actorFromBearer(env: Env, authorization: string | undefined, origin: string): Promise<Actor> {
  return oncePerRequest(env, `actor ${origin} ${authorization ?? ''}`, () => resolveActor(env, authorization, origin))
}

async function resolveActor(env: Env, authorization: string | undefined, origin: string): Promise<Actor> {
  const token = /^Bearer ([A-Za-z0-9._-]+)$/.exec(authorization ?? '')?.[1]
  if (!token) throw unauthorized('UNAUTHORIZED', 'Missing bearer token')
  const claims = await verifyAccessToken(env.JWT_SECRET, token)
  const id = Number(claims?.sub)
  if (!claims || !Number.isSafeInteger(id)) throw unauthorized('INVALID_TOKEN', 'Invalid or expired token')
  const today = todayIso()
  const row = await getDb(env.DB)
    .selectFrom('utilisateur as u')
    .select(['u.id', 'u.login', 'u.nom', 'u.prenom', 'u.admin', 'u.domain', 'u.langue'])
    .select((eb) =>
      eb
        .case()
        .when('u.admin', '=', 1)
        .then(
          eb
            .selectFrom('poste as p')
            .innerJoin('structure as s', 's.id', 'p.structure_id')
            .select(sql<string>`json_group_array(s.path)`.as('paths'))
            .whereRef('p.utilisateur_id', '=', 'u.id')
            .where('p.date_debut', '<=', today)
            .where('p.date_fin', '>=', today),
        )
        .else('[]')
        .end()
        .as('scope'),
    )
    .where('u.id', '=', id)
    .where('u.actif', '=', 1)
    .where('u.supprime', '=', 0)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('refresh_token')
          .select('id')
          .where('family_id', '=', claims.sid)
          .where('utilisateur_id', '=', id)
          .where('revoked_at', 'is', null),
      ),
    )
    .executeTakeFirst()
  if (!row) throw unauthorized('INVALID_TOKEN', 'Session ended')
  if (!sameDomain(row.domain, origin)) throw unauthorizedDomain()
  return {
    id: row.id,
    login: row.login,
    nom: row.nom,
    prenom: row.prenom,
    admin: row.admin === 1,
    domain: row.domain,
    sid: claims.sid,
    langue: row.langue,
    app: claims.app ?? null,
    scope: JSON.parse(row.scope ?? '[]') as string[],
  }
}

/**
 * What an application's session may call (DESIGN §4: bound to its application), as an explicit list
 * of route ids — the method and the path as the route is registered — each with the condition on its
 * parameters. A route not listed here is refused, however its path is spelt, so a route added later
 * cannot fall under it by accident.
 */
export const APPLICATION_ROUTES: Readonly<Record<string, (actor: Actor, params: Record<string, string>) => boolean>> = {
  [`GET ${API_BASE}/rest/bd/utilisateur/:id`]: (actor, params) => params.id === String(actor.id),
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

/** Whether an application's session may make this call: the route it reached, and its parameters. */
export function applicationMayCall(actor: Actor, method: string, routePath: string, path: string): boolean {
  const allowed = APPLICATION_ROUTES[`${method} ${routePath}`]
  const params = allowed ? routeParams(routePath, path) : null
  return allowed !== undefined && params !== null && allowed(actor, params)
}
