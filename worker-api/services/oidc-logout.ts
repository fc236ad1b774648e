import { compactVerify, decodeJwt, decodeProtectedHeader } from 'jose'
import type { LogoutAnswer, LogoutRequest } from '../contract/oidc'
import { getDb } from '../db/client'
import type { Env } from '../env'
import { BusinessError } from '../lib/errors'
import { signingKey } from '../lib/oidc-keys'

/**
 * RP-initiated logout (RP-Initiated Logout 1.0; DESIGN §4b): the portal's `/oidc/logout` page asks who
 * sent the user, and where it may send them back. An ID token hint must be one of ours (its signature,
 * by the current or the next key, and its issuer; an expired one still names its client and user); a
 * post-logout address is followed only when the client is identified and registered it exactly.
 */

/** The claims of an ID token this provider signed, or null. */
async function ourIdToken(env: Env, token: string, issuer: string): Promise<Record<string, unknown> | null> {
  try {
    const { kid } = decodeProtectedHeader(token)
    const secrets = [env.OIDC_SIGNING_KEY, env.OIDC_SIGNING_KEY_NEXT].filter((s): s is string => Boolean(s))
    for (const secret of secrets) {
      const key = await signingKey(secret)
      if (key.kid !== kid) continue
      await compactVerify(token, key.publicKey, { algorithms: ['ES256'] }).catch(() => {
        throw new Error('bad signature')
      })
      const claims = decodeJwt(token)
      return claims.iss === issuer ? claims : null
    }
    return null
  } catch {
    return null
  }
}

const invalid = (message: string) => new BusinessError('VALIDATION_FAILED', 400, message)

export async function logoutTarget(env: Env, request: LogoutRequest, issuer: string): Promise<LogoutAnswer> {
  const hint = request.id_token_hint ? await ourIdToken(env, request.id_token_hint, issuer) : null
  if (request.id_token_hint && !hint) throw invalid('id_token_hint is not an ID token of this provider')
  const audience = typeof hint?.aud === 'string' ? hint.aud : null
  if (audience && request.client_id && audience !== request.client_id) throw invalid('client_id differs from the hint')
  const clientId = audience ?? request.client_id ?? null
  const client = clientId
    ? await getDb(env.DB)
        .selectFrom('oidc_client as c')
        .innerJoin('application as a', 'a.id', 'c.application_id')
        .select(['a.libelle', 'c.post_logout_redirect_uris'])
        .where('c.client_id', '=', clientId)
        .executeTakeFirst()
    : undefined
  let redirectTo: string | null = null
  const wanted = request.post_logout_redirect_uri
  if (wanted) {
    if (!client || !(JSON.parse(client.post_logout_redirect_uris) as string[]).includes(wanted)) {
      throw invalid('post_logout_redirect_uri is not registered for this client')
    }
    const url = new URL(wanted)
    if (request.state !== undefined) url.searchParams.set('state', request.state)
    redirectTo = url.toString()
  }
  return { libelle: client?.libelle ?? null, sub: typeof hint?.sub === 'string' ? hint.sub : null, redirectTo }
}
