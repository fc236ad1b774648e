import { getDb } from '../db/client'
import type { Env } from '../env'
import { sameDomain } from '../lib/domain'
import { BusinessError, unauthorized } from '../lib/errors'
import { verifyAccessToken } from '../lib/jwt'

/** The signed-in caller of a non-public endpoint; `app` when it is an application's session. */
export type Actor = {
  id: number
  admin: boolean
  domain: string
  sid: string
  langue: 'fr' | 'en'
  app: number | null
}

export const unauthorizedDomain = () =>
  new BusinessError('USER_UNAUTHORIZED_DOMAIN', 403, 'User not allowed on this domain')

/**
 * Resolves a bearer token to its actor. Besides the JWT checks, one indexed query confirms the user is
 * still active and the session family not revoked, so sign-out and disabling take effect at once;
 * and the request must reach the user's own domain (DESIGN §7), on every call as at sign-in.
 */
export async function actorFromBearer(env: Env, authorization: string | undefined, origin: string): Promise<Actor> {
  const token = /^Bearer ([A-Za-z0-9._-]+)$/.exec(authorization ?? '')?.[1]
  if (!token) throw unauthorized('UNAUTHORIZED', 'Missing bearer token')
  const claims = await verifyAccessToken(env.JWT_SECRET, token)
  const id = Number(claims?.sub)
  if (!claims || !Number.isSafeInteger(id)) throw unauthorized('INVALID_TOKEN', 'Invalid or expired token')
  const row = await getDb(env.DB)
    .selectFrom('utilisateur as u')
    .select(['u.id', 'u.admin', 'u.domain', 'u.langue'])
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
    admin: row.admin === 1,
    domain: row.domain,
    sid: claims.sid,
    langue: row.langue,
    app: claims.app ?? null,
  }
}

/** What an application's session may call: its user's profile, and sign-out. */
export function applicationMayCall(actor: Actor, method: string, path: string): boolean {
  return (
    (method === 'GET' && path.endsWith(`/rest/bd/utilisateur/${actor.id}`)) ||
    (method === 'POST' && path.endsWith('/rest/bd/logout'))
  )
}
