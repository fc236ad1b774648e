import { sql } from 'kysely'
import { addSeconds, todayIso } from '../../contract/dates'
import {
  type AuthorizationAnswer,
  type AuthorizationRequest,
  clientError,
  redirectWith,
} from '../../contract/oidc/oidc'
import { type DB, insertWhen, namedBatch } from '../../db/client'
import { randomToken, sha256Hex } from '../../lib/crypto'
import { BusinessError } from '../../lib/errors'
import { logTypeForApplication } from '../../lib/log-types'
import type { Ctx } from '../../lib/types'
import { grantNow } from '../catalogue/grants'
import { actorWith, type Caller } from '../core/actor'
import { logEntry } from '../core/audit'
import { grantedScopes } from './claims'

/**
 * The authorization endpoint's decision (OIDC Core §3.1.2; DESIGN §4b), asked by the portal's
 * `/oidc/authorize` page for the signed-in user: a code for the client, an error the client reads, or
 * "sign in again". An unknown client or a redirect URI that is not registered is never redirected to:
 * 400, and the page says so.
 */

export const CODE_TTL_SECONDS = 60

const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/
const PROMPTS = new Set(['none', 'login', 'consent', 'select_account'])

/** The client of a request, with its application (switched on only). */
const clientOf = (db: DB, clientId: string) =>
  db
    .selectFrom('oidc_client as c')
    .innerJoin('application as a', 'a.id', 'c.application_id')
    .select(['c.application_id', 'c.redirect_uris', 'a.libelle'])
    .where('c.client_id', '=', clientId)
    .where('a.actif', '=', 1)
    .where('a.protocole', '=', 'OIDC')

type ClientRow = { application_id: number; redirect_uris: string; libelle: string }

/** The client, if it exists and registered `redirectUri` exactly; else the error the page shows. */
function registered(client: ClientRow | undefined, redirectUri: string): ClientRow {
  if (!client) throw new BusinessError('OIDC_UNKNOWN_CLIENT', 400, 'Unknown or switched-off client')
  if (!(JSON.parse(client.redirect_uris) as string[]).includes(redirectUri)) {
    throw new BusinessError('OIDC_REDIRECT_URI_MISMATCH', 400, 'redirect_uri is not registered for this client')
  }
  return client
}

/** GET rest/public/bd/oidc/client: the client and its redirect URI, checked before anyone signs in. */
export async function checkClient(ctx: Ctx, clientId: string, redirectUri: string) {
  const client = await clientOf(ctx.db, clientId).executeTakeFirst()
  return { libelle: registered(client, redirectUri).libelle }
}

/** What is wrong with a request whose client and redirect URI are right, as the client is told. */
function requestProblem(request: AuthorizationRequest): [string, string] | null {
  if (request.response_type !== 'code') return ['unsupported_response_type', 'response_type must be code']
  if (!grantedScopes(request.scope).split(' ').includes('openid')) return ['invalid_scope', 'scope must include openid']
  if (request.code_challenge_method !== 'S256' || !S256_CHALLENGE.test(request.code_challenge ?? '')) {
    return ['invalid_request', 'PKCE is required: code_challenge with code_challenge_method=S256']
  }
  const prompts = (request.prompt ?? '').split(' ').filter(Boolean)
  if (prompts.some((p) => !PROMPTS.has(p)) || (prompts.includes('none') && prompts.length > 1)) {
    return ['invalid_request', 'Unsupported prompt']
  }
  if (request.max_age !== undefined && !/^\d{1,9}$/.test(request.max_age)) {
    return ['invalid_request', 'max_age must be a number of seconds']
  }
  return null
}

/**
 * POST rest/bd/oidc/authorize: the signed-in caller's authorization. Their check, the client, whether a
 * current post grants it and when they signed in: one round trip; the code and its audit entry (the
 * spec's launch entry, as for a launch code): one batch, written only while the grant holds.
 */
export async function authorize(ctx: Ctx, caller: Caller, request: AuthorizationRequest): Promise<AuthorizationAnswer> {
  const db = ctx.db
  const today = todayIso()
  const {
    actor,
    found: [found],
    granted: [granted],
    session: [session],
  } = await actorWith(ctx, caller, {
    found: clientOf(db, request.client_id),
    granted: db
      .selectFrom('oidc_client as c')
      .select((eb) => eb.exists(grantNow(db, caller.id, sql.ref<number>('c.application_id'), today)).as('granted'))
      .where('c.client_id', '=', request.client_id),
    session: db
      .selectFrom('refresh_token')
      .select(sql<string>`min(created_at)`.as('auth_time'))
      .where('family_id', '=', caller.claims.sid)
      .where('utilisateur_id', '=', caller.id),
  })
  const client = registered(found, request.redirect_uri)
  const { libelle } = client
  const issuer = ctx.request.origin
  const redirect = (url: string): AuthorizationAnswer => ({ action: 'redirect', url, libelle })
  const problem = requestProblem(request)
  if (problem) return redirect(clientError(request, issuer, ...problem))

  const prompts = (request.prompt ?? '').split(' ')
  const authTime = session?.auth_time ?? new Date().toISOString()
  const age = (Date.now() - Date.parse(authTime)) / 1000
  const hinted = request.login_hint !== undefined && request.login_hint.toLowerCase() !== actor.login.toLowerCase()
  const tooOld = request.max_age !== undefined && age > Number(request.max_age)
  if (prompts.includes('login') || tooOld || hinted) {
    if (prompts.includes('none')) return redirect(clientError(request, issuer, 'login_required', 'Sign-in required'))
    return { action: 'login', libelle }
  }
  if (!granted?.granted) {
    return redirect(clientError(request, issuer, 'access_denied', 'No current post grants this application'))
  }

  const code = randomToken()
  const now = new Date()
  const grant = grantNow(db, actor.id, client.application_id, today)
  await namedBatch(ctx.d1, {
    code: insertWhen(
      db,
      'oidc_code',
      {
        code_hash: await sha256Hex(code),
        application_id: client.application_id,
        utilisateur_id: actor.id,
        redirect_uri: request.redirect_uri,
        code_challenge: request.code_challenge as string,
        scope: grantedScopes(request.scope),
        nonce: request.nonce ?? null,
        auth_time: authTime,
        issuer,
        parent_family_id: actor.sid,
        family_id: crypto.randomUUID(),
        expires_at: addSeconds(CODE_TTL_SECONDS, now).toISOString(),
        used_at: null,
      },
      grant,
    ),
    log: insertWhen(
      db,
      'log',
      logEntry(actor.id, logTypeForApplication(libelle), libelle, ctx.request.userAgent),
      grant,
    ),
  })
  return redirect(redirectWith(request.redirect_uri, issuer, { code, state: request.state }))
}
