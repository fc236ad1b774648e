import { ACCESS_TOKEN_TTL_SECONDS } from '../../lib/jwt'
import type { clientCredentials } from '../../lib/oauth'
import { OAuthError } from '../../lib/oauth'
import type { Ctx } from '../../lib/types'
import { idToken, type PostRow, type ProfileRow, userClaims } from './claims'

/** What the token endpoint answers an application's grant: its tokens, with the ID token of the user's claims. */

export type TokenAnswer = {
  access_token: string
  token_type: 'Bearer'
  expires_in: number
  refresh_token: string
  id_token: string
  scope: string
}

/** A token request's client credentials, as read (Basic or the form). */
export type Credentials = ReturnType<typeof clientCredentials>

/** The tokens of a grant: the ID token carries the claims of the scopes granted. */
export async function answer(
  ctx: Ctx,
  input: {
    clientId: string
    issuer: string
    accessToken: string
    refreshToken: string
    scope: string
    sid: string
    authTime: string
    nonce: string | null
    profile: ProfileRow | undefined
    posts: PostRow[]
  },
): Promise<TokenAnswer> {
  if (!input.profile) throw new OAuthError('invalid_grant', 'Unknown user')
  const claims = userClaims(input.scope, input.profile, input.posts)
  return {
    access_token: input.accessToken,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
    refresh_token: input.refreshToken,
    id_token: await idToken(ctx.env, { ...input, claims }),
    scope: input.scope,
  }
}
