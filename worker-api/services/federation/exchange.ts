import * as oauth from 'oauth4webapi'
import { FEDERATION_CALLBACK_PATH, type FederationFinish } from '../../contract/federation/sign-in'
import { BusinessError } from '../../lib/errors'
import { signingKey } from '../../lib/oidc-keys'
import type { Ctx } from '../../lib/types'
import { type ProviderMetadata, providerRequest, unreachable } from './discovery'
import { openSecret } from './secret'

/**
 * The portal as a client of a partner's OpenID Connect provider: its redirect URI, how it proves itself at the token
 * endpoint, and the code exchanged for an ID token checked by oauth4webapi.
 */

/** The redirect URI of the portal's origin. */
export const callbackUri = (origin: string) => `${origin}${FEDERATION_CALLBACK_PATH}`

export const signInFailed = (reason: string) =>
  new BusinessError('IDP_SIGN_IN_FAILED', 400, `The sign-in through the identity provider failed: ${reason}`, [reason])

/** A provider as a sign-in reads it. */
export type ProviderRow = {
  id: number
  nom: string
  issuer: string
  client_id: string
  authentification: 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt'
  secret_scelle: string | null
  scopes: string
  premiere_connexion: 'RATTACHER' | 'INSCRIRE' | 'REFUSER'
  structure_id: number | null
  confiance_mfa: number
  actif: number
  metadata: string
  jwks: string | null
}

export const providerColumns = [
  'f.id',
  'f.nom',
  'f.issuer',
  'f.client_id',
  'f.authentification',
  'f.secret_scelle',
  'f.scopes',
  'f.premiere_connexion',
  'f.structure_id',
  'f.confiance_mfa',
  'f.actif',
  'f.metadata',
  'f.jwks',
] as const

/** How the portal proves itself at the provider's token endpoint. */
async function clientAuthOf(ctx: Ctx, provider: ProviderRow): Promise<oauth.ClientAuth> {
  if (provider.authentification === 'private_key_jwt') {
    if (!ctx.env.OIDC_SIGNING_KEY) throw signInFailed('the portal has no signing key')
    const { key, kid } = await signingKey(ctx.env.OIDC_SIGNING_KEY)
    return oauth.PrivateKeyJwt({ key, kid })
  }
  const secret = provider.secret_scelle
    ? await openSecret(ctx.env, provider.issuer, provider.client_id, provider.secret_scelle)
    : null
  if (secret === null) throw signInFailed('the client secret cannot be read')
  return provider.authentification === 'client_secret_post'
    ? oauth.ClientSecretPost(secret)
    : oauth.ClientSecretBasic(secret)
}

/** What the ID token says of the person. */
export type UpstreamIdentity = {
  sub: string
  email: string | null
  emailVerified: boolean
  nom: string
  prenom: string
  /** Whether the provider says the person used a second factor (amr `mfa`, or an acr naming it). */
  mfa: boolean
  idToken: string
}

/**
 * The code exchanged and the ID token checked: oauth4webapi checks the `iss` of the answer (RFC 9207) when the
 * provider sends one, the token's issuer, audience, expiry and nonce; its signature is checked against the provider's
 * JWKS (kept in D1 between sign-ins, fetched again for a key it does not hold). Any failure: 400 IDP_SIGN_IN_FAILED.
 */
export async function exchange(
  ctx: Ctx,
  provider: ProviderRow,
  pending: { verifier: string; nonce: string },
  input: FederationFinish,
  cache: oauth.JWKSCacheInput,
): Promise<UpstreamIdentity> {
  const metadata = JSON.parse(provider.metadata) as ProviderMetadata
  const client: oauth.Client = { client_id: provider.client_id }
  const answer = new URLSearchParams({ state: input.etat })
  if (input.code !== undefined) answer.set('code', input.code)
  if (input.iss !== undefined) answer.set('iss', input.iss)
  let params: URLSearchParams
  try {
    params = oauth.validateAuthResponse(metadata, client, answer, input.etat)
  } catch (error) {
    throw signInFailed(error instanceof Error ? error.message : 'the answer is malformed')
  }
  const auth = await clientAuthOf(ctx, provider)
  let response: Response
  try {
    response = await oauth.authorizationCodeGrantRequest(
      metadata,
      client,
      auth,
      params,
      callbackUri(ctx.request.origin),
      pending.verifier,
      providerRequest(ctx.env),
    )
  } catch (error) {
    throw signInFailed(unreachable(error))
  }
  let result: oauth.TokenEndpointResponse
  try {
    result = await oauth.processAuthorizationCodeResponse(metadata, client, response, {
      expectedNonce: pending.nonce,
      requireIdToken: true,
    })
    await oauth.validateApplicationLevelSignature(metadata, response, {
      ...providerRequest(ctx.env),
      [oauth.jwksCache]: cache,
    })
  } catch (error) {
    throw signInFailed(refusal(error))
  }
  const claims = oauth.getValidatedIdTokenClaims(result)
  if (!claims || typeof result.id_token !== 'string') throw signInFailed('no ID token')
  const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '')
  const email = text(claims.email) || null
  const amr = Array.isArray(claims.amr) ? claims.amr.map(String) : []
  const name = text(claims.name)
  return {
    sub: claims.sub,
    email: email?.toLowerCase() ?? null,
    emailVerified: claims.email_verified === true,
    nom: (text(claims.family_name) || name.split(' ').slice(1).join(' ') || email?.split('@')[0] || claims.sub).slice(
      0,
      50,
    ),
    prenom: (text(claims.given_name) || name.split(' ')[0] || '-').slice(0, 50),
    mfa: amr.includes('mfa') || /mfa|multi|2fa/i.test(text(claims.acr)),
    idToken: result.id_token,
  }
}

/** Why a provider's answer was refused: the provider's own error when it sent one (RFC 6749 §5.2), else the check's. */
function refusal(error: unknown): string {
  if (error instanceof oauth.ResponseBodyError) {
    return [error.error, error.error_description].filter(Boolean).join(': ')
  }
  return error instanceof Error ? error.message : 'the ID token does not verify'
}
