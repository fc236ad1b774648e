import { compactVerify, decodeJwt, decodeProtectedHeader } from 'jose'
import type { LogoutAnswer, LogoutTargetRequest } from '../../contract/oidc/oidc'
import { namedBatch } from '../../db/client'
import { BusinessError } from '../../lib/errors'
import { signingKey } from '../../lib/oidc-keys'
import type { Ctx } from '../../lib/types'

/**
 * RP-initiated logout (RP-Initiated Logout 1.0; DESIGN §4b). An ID token hint must be ours (signed by the current or
 * the next key; an expired one still names its client and user); a post-logout address is followed only when the client
 * is identified and registered it exactly. The page signs out without asking only for a hint of the very session signed
 * in there (its `sid` that session or one of its children, §2).
 */

/** The claims of an ID token this provider signed, or null. */
async function ourIdToken(ctx: Ctx, token: string, issuer: string): Promise<Record<string, unknown> | null> {
  try {
    const { kid } = decodeProtectedHeader(token)
    const secrets = [ctx.env.OIDC_SIGNING_KEY, ctx.env.OIDC_SIGNING_KEY_NEXT].filter((s): s is string => Boolean(s))
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

export async function logoutTarget(ctx: Ctx, request: LogoutTargetRequest): Promise<LogoutAnswer> {
  const issuer = ctx.request.origin
  const hint = request.id_token_hint ? await ourIdToken(ctx, request.id_token_hint, issuer) : null
  if (request.id_token_hint && !hint) throw invalid('id_token_hint is not an ID token of this provider')
  const audience = typeof hint?.aud === 'string' ? hint.aud : null
  if (audience && request.client_id && audience !== request.client_id) throw invalid('client_id differs from the hint')
  const clientId = audience ?? request.client_id ?? null
  const db = ctx.db
  const sid = typeof hint?.sid === 'string' ? hint.sid : null
  const portal = request.sessionPortail ?? null
  const reads = {
    client: clientId
      ? db
          .selectFrom('oidc_client as c')
          .innerJoin('application as a', 'a.id', 'c.application_id')
          .select(['a.libelle', 'c.post_logout_redirect_uris'])
          .where('c.client_id', '=', clientId)
      : null,
    same:
      sid && portal
        ? db
            .selectFrom('refresh_token')
            .select('id')
            .where('family_id', '=', sid)
            .where((eb) => eb.or([eb('family_id', '=', portal), eb('parent_family_id', '=', portal)]))
            .limit(1)
        : null,
  }
  const read = reads.client || reads.same ? await namedBatch(ctx.d1, reads) : null
  const client = read?.client?.results[0]
  const same = (read?.same?.results.length ?? 0) > 0
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
  return {
    libelle: client?.libelle ?? null,
    sub: typeof hint?.sub === 'string' ? hint.sub : null,
    memeSession: same,
    redirectTo,
  }
}
