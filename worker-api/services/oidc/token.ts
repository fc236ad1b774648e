import { type SqlBool, sql } from 'kysely'
import { todayIso } from '../../contract/dates'
import { DEVICE_CODE_GRANT } from '../../contract/oidc/oidc'
import { insertWhen, namedBatch } from '../../db/client'
import { sha256Hex } from '../../lib/crypto'
import { sameDomain } from '../../lib/domain'
import { BusinessError } from '../../lib/errors'
import { clientCredentials, OAuthError, oauthLimited } from '../../lib/oauth'
import type { Ctx } from '../../lib/types'
import { grantedColumn } from '../catalogue/grants'
import { type TokenLimits, tokenLimits } from '../core/client-auth-failures'
import { clientCredentialsGrant, type ServiceTokenAnswer } from '../machines/client-credentials'
import { accessTokenFor, newRefreshToken, revokeSessions } from '../sign-in/auth'
import { refreshTokenQuery, rotate } from '../sign-in/refresh'
import { currentPostsQuery, profileQuery } from './claims'
import { authenticate, authenticatedSql, clientRead, pkceMatches, unknownGrant } from './client-auth'
import { deviceCodeGrant } from './device'
import { answer, type Credentials, type TokenAnswer } from './token-answer'

/**
 * The token endpoint (RFC 6749 §3.2, OIDC Core §3.1.3; DESIGN §4b): a code (single use, 60 s, bound to its client,
 * redirect URI and PKCE challenge) or a refresh token (rotated with reuse detection); each exchange checks again that
 * the user may sign in and that a current post grants the application.
 */

export type TokenForm = Partial<
  Record<
    | 'grant_type'
    | 'code'
    | 'redirect_uri'
    | 'code_verifier'
    | 'client_id'
    | 'client_secret'
    | 'refresh_token'
    | 'device_code'
    | 'client_assertion'
    | 'client_assertion_type'
    | 'scope',
    string
  >
>

const invalidGrant = (description: string) => new OAuthError('invalid_grant', description)

/** POST /oidc/token: an application's grants, or a service account's client credentials (services/machines). */
export async function token(
  ctx: Ctx,
  form: TokenForm,
  authorization: string | undefined,
): Promise<TokenAnswer | ServiceTokenAnswer> {
  const answer = await oauthLimited(async () => {
    if (form.grant_type === 'client_credentials') return await clientCredentialsGrant(ctx, form, authorization)
    const credentials = clientCredentials(authorization, form)
    const limits = tokenLimits(ctx, credentials.clientId)
    if (form.grant_type === 'authorization_code') return await exchangeCode(ctx, form, credentials, limits)
    if (form.grant_type === 'refresh_token') return await refreshGrant(ctx, form, credentials, limits)
    if (form.grant_type === DEVICE_CODE_GRANT) return await deviceCodeGrant(ctx, form, credentials, limits)
    return null
  })
  if (answer) return answer
  throw new OAuthError(
    'unsupported_grant_type',
    `grant_type is authorization_code, refresh_token, ${DEVICE_CODE_GRANT} or client_credentials`,
  )
}

async function exchangeCode(
  ctx: Ctx,
  form: TokenForm,
  credentials: Credentials,
  limits: TokenLimits,
): Promise<TokenAnswer> {
  if (!form.code || !form.redirect_uri || !form.code_verifier) {
    throw new OAuthError('invalid_request', 'code, redirect_uri and code_verifier are required')
  }
  const db = ctx.db
  const today = todayIso()
  const hash = await sha256Hex(form.code)
  const user = sql<number>`(select utilisateur_id from oidc_code where code_hash = ${hash})`
  const read = await namedBatch(ctx.d1, {
    failures: limits.failuresSoFar,
    spent: limits.spend(await authenticatedSql(credentials, { table: 'oidc_code', column: 'code_hash', hash })),
    client: clientRead(db, credentials.clientId),
    code: db
      .selectFrom('oidc_code as o')
      .innerJoin('utilisateur as u', 'u.id', 'o.utilisateur_id')
      .selectAll('o')
      .select(['u.actif', 'u.supprime', 'u.domain', 'u.admin'])
      .select(grantedColumn(db, sql.ref<number>('o.utilisateur_id'), sql.ref<number>('o.application_id'), today))
      // The portal session the code was issued in: its end, while it lasts (the OIDC session ends with it).
      .select(
        sql<string | null>`(select max(family_expires_at) from refresh_token
          where family_id = o.parent_family_id and revoked_at is null)`.as('portal_expires_at'),
      )
      .where('o.code_hash', '=', hash),
    profile: profileQuery(db, user),
    posts: currentPostsQuery(db, user, today),
  })
  limits.checkFailures(read.failures?.results[0])
  const client = await authenticate(ctx, read.client?.results[0], credentials, limits)
  limits.checkBudget(read.spent?.results[0])
  const code = read.code?.results[0]
  const now = new Date()
  if (!code || code.application_id !== client.application_id) {
    await unknownGrant(limits, client)
    throw invalidGrant('Unknown code')
  }
  if (code.used_at) {
    // A code comes back: what it issued is revoked (RFC 6749 §4.1.2).
    await revokeSessions(db, code.family_id, now).execute()
    throw invalidGrant('Code already used')
  }
  const markUsed = db
    .updateTable('oidc_code')
    .set({ used_at: now.toISOString() })
    .where('id', '=', code.id)
    .where('used_at', 'is', null)
  const refuse = async (description: string) => {
    await markUsed.execute()
    return invalidGrant(description)
  }
  if (code.expires_at < now.toISOString()) throw await refuse('Code expired')
  if (code.redirect_uri !== form.redirect_uri) throw await refuse('redirect_uri differs from the authorization request')
  if (!(await pkceMatches(form.code_verifier, code.code_challenge))) throw await refuse('Wrong code_verifier')
  if (!code.actif || code.supprime) throw await refuse('User disabled')
  if (code.granted !== 1) throw await refuse('No current post grants this application')
  if (!sameDomain(code.domain, ctx.request.origin)) throw await refuse("Not the user's domain")
  if (!code.portal_expires_at) throw await refuse('The portal session ended')

  const session = await newRefreshToken(code.utilisateur_id, code.family_id, code.portal_expires_at, now, {
    id: code.application_id,
    parentFamilyId: code.parent_family_id,
    scope: code.scope,
    authTime: code.auth_time,
    issuer: code.issuer,
  })
  // The session opens only with the code spent by this very request, while the portal session lasts.
  const { opened } = await namedBatch(ctx.d1, {
    used: markUsed,
    opened: insertWhen(
      db,
      'refresh_token',
      session.row,
      db
        .selectFrom('refresh_token as portal')
        .select('portal.id')
        .where('portal.family_id', '=', code.parent_family_id)
        .where('portal.revoked_at', 'is', null)
        .where(sql<SqlBool>`changes() = 1`),
    ),
  })
  if ((opened?.meta.changes ?? 0) === 0) throw invalidGrant('Code already used')
  const accessToken = await accessTokenFor(
    ctx,
    { id: code.utilisateur_id, admin: code.admin, domain: code.domain },
    code.family_id,
    code.application_id,
    code.scope,
  )
  return answer(ctx, {
    clientId: credentials.clientId,
    // The issuer the code was issued under, whichever of the portal's names the exchange reached.
    issuer: code.issuer ?? ctx.request.origin,
    accessToken,
    refreshToken: session.token,
    scope: code.scope,
    sid: code.family_id,
    authTime: code.auth_time,
    nonce: code.nonce,
    profile: read.profile?.results[0],
    posts: read.posts?.results ?? [],
  })
}

async function refreshGrant(
  ctx: Ctx,
  form: TokenForm,
  credentials: Credentials,
  limits: TokenLimits,
): Promise<TokenAnswer> {
  if (!form.refresh_token) throw new OAuthError('invalid_request', 'refresh_token is required')
  const db = ctx.db
  const today = todayIso()
  const hash = await sha256Hex(form.refresh_token)
  const user = sql<number>`(select utilisateur_id from refresh_token where token_hash = ${hash})`
  const read = await namedBatch(ctx.d1, {
    failures: limits.failuresSoFar,
    spent: limits.spend(await authenticatedSql(credentials, { table: 'refresh_token', column: 'token_hash', hash })),
    client: clientRead(db, credentials.clientId),
    token: refreshTokenQuery(db, hash, today),
    profile: profileQuery(db, user),
    posts: currentPostsQuery(db, user, today),
  })
  limits.checkFailures(read.failures?.results[0])
  const client = await authenticate(ctx, read.client?.results[0], credentials, limits)
  limits.checkBudget(read.spent?.results[0])
  const presented = read.token?.results[0]
  if (!presented || presented.application_id !== client.application_id || !presented.scope || !presented.auth_time) {
    await unknownGrant(limits, client)
    throw invalidGrant('Unknown refresh token')
  }
  // A device's session lasts while its client allows the device grant.
  if (presented.appareil !== null && client.device_grant !== 1) throw invalidGrant('The device grant was switched off')
  let tokens: Awaited<ReturnType<typeof rotate>>
  try {
    tokens = await rotate(ctx, presented, form.refresh_token, ctx.request.origin)
  } catch (error) {
    if (error instanceof BusinessError) throw invalidGrant(error.message)
    throw error
  }
  return answer(ctx, {
    clientId: credentials.clientId,
    issuer: presented.issuer ?? ctx.request.origin,
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    scope: presented.scope,
    sid: presented.family_id,
    authTime: presented.auth_time,
    nonce: null,
    profile: read.profile?.results[0],
    posts: read.posts?.results ?? [],
  })
}
