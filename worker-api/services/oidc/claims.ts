import type { Expression } from 'kysely'
import type { DB } from '../../db/client'
import { atHash, type SigningEnv, signJwt } from '../../lib/oidc-keys'

/**
 * What the provider says of a user (DESIGN §4b): the claims of the scopes granted, in the ID token and
 * from UserInfo alike.
 */

/** The scopes the provider knows; `postes` is the portal's own: the user's current posts. */
export const SCOPES = ['openid', 'profile', 'email', 'postes'] as const
export const ID_TOKEN_TTL_SECONDS = 5 * 60

/** The claims each scope brings. */
export const SCOPE_CLAIMS = {
  openid: ['sub'],
  profile: ['name', 'given_name', 'family_name', 'preferred_username', 'locale'],
  email: ['email', 'email_verified'],
  postes: ['postes'],
} as const

/** The known scopes of a request's `scope`, in a stable order (unknown ones are ignored, RFC 6749 §3.3). */
export function grantedScopes(scope: string | null | undefined): string {
  const asked = new Set((scope ?? '').split(' ').filter(Boolean))
  return SCOPES.filter((known) => asked.has(known)).join(' ')
}

/** What the claims need of a user (`user`: an expression of their id, read in the same batch). */
export function profileQuery(db: DB, user: Expression<number> | number) {
  return db
    .selectFrom('utilisateur as u')
    .select(['u.id', 'u.login', 'u.nom', 'u.prenom', 'u.mail', 'u.langue', 'u.registration_state'])
    .where('u.id', '=', user)
}

/** The user's current posts, by structure then function. */
export function currentPostsQuery(db: DB, user: Expression<number> | number, today: string) {
  return db
    .selectFrom('poste as p')
    .innerJoin('structure as s', 's.id', 'p.structure_id')
    .innerJoin('fonction as f', 'f.id', 'p.fonction_id')
    .select(['s.id as structure_id', 's.nom as structure_nom', 'f.id as fonction_id', 'f.libelle as fonction_libelle'])
    .where('p.utilisateur_id', '=', user)
    .where('p.date_debut', '<=', today)
    .where('p.date_fin', '>=', today)
    .orderBy('s.nom')
    .orderBy('f.libelle')
}

export type ProfileRow = {
  id: number
  login: string
  nom: string
  prenom: string
  mail: string
  langue: string
  registration_state: string
}
export type PostRow = { structure_id: number; structure_nom: string; fonction_id: number; fonction_libelle: string }

/** What the provider says of a user: `sub`, and the claims of each scope granted (SCOPE_CLAIMS). */
export type UserClaims = {
  sub: string
  name?: string
  given_name?: string
  family_name?: string
  preferred_username?: string
  locale?: string
  email?: string
  email_verified?: boolean
  postes?: { structure: { id: number; nom: string }; fonction: { id: number; libelle: string } }[]
}

/** The claims of the granted scopes (`sub` always: the user's number, stable, never the mail). */
export function userClaims(scope: string, user: ProfileRow, posts: PostRow[]): UserClaims {
  const scopes = new Set(scope.split(' '))
  const claims: UserClaims = { sub: String(user.id) }
  if (scopes.has('profile')) {
    Object.assign(claims, {
      name: `${user.prenom} ${user.nom}`,
      given_name: user.prenom,
      family_name: user.nom,
      preferred_username: user.login,
      locale: user.langue,
    } satisfies Partial<UserClaims>)
  }
  if (scopes.has('email')) {
    // An address is the account's once its holder opened a mail sent to it (an invitation, a registration).
    Object.assign(claims, {
      email: user.mail,
      email_verified: user.registration_state === 'COMPLETE',
    } satisfies Partial<UserClaims>)
  }
  if (scopes.has('postes')) {
    claims.postes = posts.map((p) => ({
      structure: { id: p.structure_id, nom: p.structure_nom },
      fonction: { id: p.fonction_id, libelle: p.fonction_libelle },
    }))
  }
  return claims
}

/**
 * An ID token (OIDC Core §2): for `clientId`, about the user, signed with the current key. `nonce`
 * only when the authorization request sent one; `auth_time`, when the user signed in to the portal.
 */
export async function idToken(
  env: SigningEnv,
  input: {
    issuer: string
    clientId: string
    claims: Record<string, unknown>
    sid: string
    authTime: string
    accessToken: string
    nonce?: string | null
  },
  now = Date.now(),
): Promise<string> {
  const iat = Math.floor(now / 1000)
  return signJwt(env, {
    ...input.claims,
    iss: input.issuer,
    aud: input.clientId,
    iat,
    exp: iat + ID_TOKEN_TTL_SECONDS,
    auth_time: Math.floor(Date.parse(input.authTime) / 1000),
    sid: input.sid,
    at_hash: await atHash(input.accessToken),
    ...(input.nonce ? { nonce: input.nonce } : {}),
  })
}
