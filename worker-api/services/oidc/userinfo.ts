import { todayIso } from '../../contract/dates'
import { OAuthError } from '../../lib/oauth'
import type { Ctx } from '../../lib/types'
import { actorWith, type Caller } from '../core/actor'
import { currentPostsQuery, profileQuery, type UserClaims, userClaims } from './claims'

/** RFC 6750 §3: a refused bearer token, said in WWW-Authenticate. */
export const invalidToken = (description: string) =>
  new OAuthError('invalid_token', description, 401, {
    'WWW-Authenticate': `Bearer error="invalid_token", error_description="${description}"`,
  })

/**
 * UserInfo (OIDC Core §5.3): the claims of the scopes an OpenID Connect session was granted, for its
 * access token only (not the portal's own, nor a launch code's), while the session lives: the token's
 * check and the claims in one round trip.
 */
export async function userinfo(ctx: Ctx, caller: Caller): Promise<UserClaims> {
  const scope = caller.claims.scope
  if (caller.app === null || !scope?.split(' ').includes('openid')) {
    throw invalidToken('Not an OpenID Connect access token')
  }
  const db = ctx.db
  const {
    profile: [profile],
    posts,
  } = await actorWith(ctx, caller, {
    profile: profileQuery(db, caller.id),
    posts: currentPostsQuery(db, caller.id, todayIso()),
  })
  if (!profile) throw invalidToken('Unknown user')
  return userClaims(scope, profile, posts)
}
