import { createLocalJWKSet, decodeJwt, type JSONWebKeySet, errors as joseErrors, jwtVerify } from 'jose'
import { API_BASE } from '../../contract/base'
import { todayIso } from '../../contract/dates'
import { SERVICE_SCOPES } from '../../contract/machines/service-accounts'
import { namedBatch, rawStatement } from '../../db/client'
import { sha256Hex, timingSafeEqual } from '../../lib/crypto'
import { sameDomain } from '../../lib/domain'
import { ACCESS_TOKEN_TTL_SECONDS, signAccessToken } from '../../lib/jwt'
import { clientCredentials, invalidClient, OAuthError } from '../../lib/oauth'
import { administersPathSql } from '../../lib/scope'
import type { Ctx } from '../../lib/types'
import { logEntry } from '../core/audit'
import { type TokenLimits, tokenLimits } from '../core/client-auth-failures'

/**
 * The client credentials grant (RFC 6749 §4.4) of service accounts: a secret (client_secret_basic,
 * client_secret_post) or a signed assertion (private_key_jwt, RFC 7523) buys a five-minute access
 * token of the account's scopes, or of those asked; no refresh token, no password hash on the way.
 */

export type ClientCredentialsForm = Partial<
  Record<'client_id' | 'client_secret' | 'client_assertion' | 'client_assertion_type' | 'scope', string>
>

export type ServiceTokenAnswer = { access_token: string; token_type: 'Bearer'; expires_in: number; scope: string }

export const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer'

/** The signatures an assertion may carry (never `none`, never HMAC: the account registers public keys). */
export const ASSERTION_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'EdDSA']

/** The longest an assertion may live (its `exp` past now), and the clock skew forgiven. */
export const ASSERTION_MAX_SECONDS = 300
export const ASSERTION_CLOCK_SKEW_SECONDS = 30

/** How the client authenticates: its id, and a secret or an assertion. */
type Presented = { clientId: string; basic: boolean } & ({ secret: string } | { assertion: string })

function presented(form: ClientCredentialsForm, authorization: string | undefined): Presented {
  if (form.client_assertion === undefined && form.client_assertion_type === undefined) {
    const credentials = clientCredentials(authorization, form)
    if (!credentials.secret) throw invalidClient(credentials.basic)
    return { clientId: credentials.clientId, basic: credentials.basic, secret: credentials.secret }
  }
  if (form.client_assertion_type !== JWT_BEARER || !form.client_assertion) {
    throw new OAuthError('invalid_request', `client_assertion_type is ${JWT_BEARER}, with a client_assertion`)
  }
  if (authorization !== undefined || form.client_secret !== undefined) {
    throw new OAuthError('invalid_request', 'Use one client authentication method')
  }
  let subject: unknown
  try {
    subject = decodeJwt(form.client_assertion).sub
  } catch {
    throw invalidClient(false)
  }
  if (typeof subject !== 'string' || subject.length === 0 || subject.length > 128) throw invalidClient(false)
  if (form.client_id !== undefined && form.client_id !== subject) {
    throw new OAuthError('invalid_request', 'client_id differs from the assertion’s subject')
  }
  return { clientId: subject, basic: false, assertion: form.client_assertion }
}

/** The scopes granted: those asked (each one of the account's), else all of the account's. */
function grantedScopes(asked: string | undefined, account: string): string[] {
  const allowed = account.split(' ').filter(Boolean)
  const wanted = (asked ?? '').split(' ').filter(Boolean)
  if (wanted.length === 0) return allowed
  const refused = wanted.filter((scope) => !allowed.includes(scope))
  if (refused.length > 0) {
    const known = refused.every((scope) => (SERVICE_SCOPES as readonly string[]).includes(scope))
    throw new OAuthError('invalid_scope', known ? `Not granted to this account: ${refused.join(' ')}` : 'Unknown scope')
  }
  return [...new Set(wanted)].sort()
}

/** POST /oidc/token with grant_type=client_credentials. */
export async function clientCredentialsGrant(
  ctx: Ctx,
  form: ClientCredentialsForm,
  authorization: string | undefined,
): Promise<ServiceTokenAnswer> {
  const client = presented(form, authorization)
  const limits = tokenLimits(ctx, client.clientId)
  const now = new Date()
  // A secret is compared in SQL too, so that the budget counts its request in this first round trip (an
  // assertion's request is counted as its jti is spent).
  const secretHash = 'assertion' in client ? null : await sha256Hex(client.secret)
  const read = await namedBatch(ctx.d1, {
    failures: limits.failuresSoFar,
    spent: limits.spend({
      sql: `EXISTS (SELECT 1 FROM compte_service WHERE client_id = ?3 AND supprime = 0 AND actif = 1
        AND (secret_hash = ?4 OR (ancien_secret_hash = ?4 AND ancien_secret_expire > ?5)))`,
      values: [client.clientId, secretHash, now.toISOString()],
    }),
    account: rawStatement<AccountRow>(
      `SELECT ${ACCOUNT_COLUMNS.map((column) => `cs.${column}`).join(', ')},
         ${administersPathSql('cs.cree_par', 's.path', '?2')} AS responsable_admin
       FROM compte_service cs LEFT JOIN structure s ON s.id = cs.structure_id
       WHERE cs.client_id = ?1 AND cs.supprime = 0`,
      [client.clientId, todayIso()],
    ),
  })
  limits.checkFailures(read.failures?.results[0])
  const account = read.account?.results[0]
  if (!account) {
    await limits.failed(null)
    throw invalidClient(client.basic)
  }
  const refusal = await refusalOf(ctx, client, account, now, limits)
  if (refusal !== null) {
    await limits.failed({
      entry: logEntry(-account.id, 'CONNEXION', 'COMPTE_SERVICE', ctx.request.userAgent),
      what: 'Authentification du compte de service refusée',
      reason: refusal,
    })
    throw invalidClient(client.basic)
  }
  if (!('assertion' in client)) limits.checkBudget(read.spent?.results[0])
  // Authenticated, but acting for nobody: told plainly, as only the account's holder gets this far.
  if (account.responsable_admin !== 1) {
    await refusedLog(ctx, account.id, 'l’administrateur du compte n’administre plus sa structure')
    throw new OAuthError(
      'unauthorized_client',
      'The administrator this account acts for no longer administers its structure; an administrator of the structure can take it over',
    )
  }
  const scopes = grantedScopes(form.scope, account.scopes).join(' ')
  const token = await signAccessToken(ctx.env.JWT_SECRET, {
    sub: String(account.id),
    admin: account.admin === 1,
    domain: account.domain,
    sid: 'service',
    cs: scopes,
  })
  return { access_token: token, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_SECONDS, scope: scopes }
}

/** What the grant reads of the account. */
type AccountRow = {
  id: number
  admin: number
  scopes: string
  actif: number
  domain: string
  secret_hash: string | null
  ancien_secret_hash: string | null
  ancien_secret_expire: string | null
  jwks: string | null
  /** Whether the administrator the account acts for still administers its structure (lib/scope.ts). */
  responsable_admin: number
}

/** The columns of `AccountRow` read as they are stored (`responsable_admin` is computed). */
const ACCOUNT_COLUMNS: readonly (keyof AccountRow)[] = [
  'id',
  'admin',
  'scopes',
  'actif',
  'domain',
  'secret_hash',
  'ancien_secret_hash',
  'ancien_secret_expire',
  'jwks',
]

/** Why an account's authentication is refused, null when it is not: live, on its domain, its secret or assertion good. */
async function refusalOf(
  ctx: Ctx,
  client: Presented,
  account: AccountRow,
  now: Date,
  limits: TokenLimits,
): Promise<string | null> {
  if (account.actif !== 1) return 'The account is switched off'
  if (!sameDomain(account.domain, ctx.request.origin)) return 'Not the account’s domain'
  if ('assertion' in client) return assertionRefusal(ctx, client, account.jwks, now, limits)
  const hash = await sha256Hex(client.secret)
  const current = account.secret_hash !== null && timingSafeEqual(hash, account.secret_hash)
  const previous =
    account.ancien_secret_hash !== null &&
    (account.ancien_secret_expire ?? '') > now.toISOString() &&
    timingSafeEqual(hash, account.ancien_secret_hash)
  return current || previous ? null : 'Wrong secret'
}

/**
 * Why an assertion is refused (null: accepted and its `jti` spent): signed by one of the account's keys,
 * issued by and about the account, for this token endpoint (or the issuer, as some libraries send),
 * expiring within five minutes, and never seen before.
 */
async function assertionRefusal(
  ctx: Ctx,
  { clientId, assertion }: { clientId: string; assertion: string },
  jwks: string | null,
  now: Date,
  limits: TokenLimits,
): Promise<string | null> {
  if (jwks === null) return 'The account registered no key'
  const issuer = ctx.request.origin
  let payload: { exp?: number; jti?: string }
  try {
    const verified = await jwtVerify(assertion, createLocalJWKSet(JSON.parse(jwks) as JSONWebKeySet), {
      issuer: clientId,
      subject: clientId,
      audience: [`${issuer}${API_BASE}/oidc/token`, issuer],
      algorithms: ASSERTION_ALGORITHMS,
      requiredClaims: ['exp', 'jti'],
      clockTolerance: ASSERTION_CLOCK_SKEW_SECONDS,
      currentDate: now,
    })
    payload = verified.payload
  } catch (error) {
    return error instanceof joseErrors.JOSEError ? `Assertion refused: ${error.code}` : 'Assertion refused'
  }
  const seconds = Math.floor(now.getTime() / 1000)
  const exp = payload.exp ?? 0
  if (exp > seconds + ASSERTION_MAX_SECONDS + ASSERTION_CLOCK_SKEW_SECONDS)
    return 'The assertion lives more than 5 minutes'
  const jti = payload.jti ?? ''
  if (jti.length === 0 || jti.length > 200) return 'The assertion has no usable jti'
  const { spent, counted } = await namedBatch(ctx.d1, {
    spent: ctx.db
      .insertInto('client_assertion_jti')
      .values({
        cle: `${clientId} ${jti}`,
        expires_at: new Date((exp + ASSERTION_CLOCK_SKEW_SECONDS) * 1000).toISOString(),
      })
      .onConflict((conflict) => conflict.doNothing()),
    // The request counted in the client's budget once its assertion is accepted, and only then.
    counted: limits.spend({ sql: 'changes() = 1', values: [] }),
  })
  if ((spent?.meta.changes ?? 0) !== 1) return 'The assertion was already used'
  limits.checkBudget(counted?.results[0])
  return null
}

/** A refused authentication of an existing account, in the history under the account's name. */
function refusedLog(ctx: Ctx, accountId: number, reason: string) {
  const entry = logEntry(-accountId, 'CONNEXION', 'COMPTE_SERVICE', ctx.request.userAgent, {
    commentaire: `Authentification du compte de service refusée : ${reason}`,
  })
  return ctx.db.insertInto('log').values(entry).execute()
}
