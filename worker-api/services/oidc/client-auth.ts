import type { DB } from '../../db/client'
import { base64url, sha256Hex, timingSafeEqual } from '../../lib/crypto'
import { logTypeForApplication } from '../../lib/log-types'
import { type clientCredentials, invalidClient } from '../../lib/oauth'
import type { Ctx } from '../../lib/types'
import { logEntry } from '../core/audit'
import type { Authenticated, TokenLimits } from '../core/client-auth-failures'

/**
 * The token endpoint's client: read with the request's other reads, then authenticated; and the PKCE
 * proof of the code's challenge.
 */

/** The client a token request names, with its application. */
export const clientRead = (db: DB, clientId: string) =>
  db
    .selectFrom('oidc_client as c')
    .innerJoin('application as a', 'a.id', 'c.application_id')
    .select(['c.application_id', 'c.secret_hash', 'c.device_grant', 'a.libelle', 'a.actif'])
    .where('c.client_id', '=', clientId)

export type ClientRow = {
  application_id: number
  secret_hash: string | null
  device_grant: number
  libelle: string
  actif: number
}

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/

export async function pkceMatches(verifier: string, challenge: string): Promise<boolean> {
  if (!VERIFIER.test(verifier)) return false
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))
  return timingSafeEqual(base64url(new Uint8Array(digest)), challenge)
}

/**
 * SQL true when the request's credentials are its client's, for the budget's statement in the request's first batch
 * (`tokenLimits`): the secret of a confidential client, or, for a public client (its id alone, which anyone may
 * know), a grant it was given (`grant`: the code's or refresh token's hash in `table`). What `authenticate` then
 * checks in the Worker, so that a request counted is one the client made.
 */
export async function authenticatedSql(
  credentials: ReturnType<typeof clientCredentials>,
  grant: {
    table: 'oidc_code' | 'refresh_token' | 'device_authorization'
    column: 'code_hash' | 'token_hash' | 'device_code_hash'
    hash: string
  } | null,
): Promise<Authenticated> {
  const secret = credentials.secret ? await sha256Hex(credentials.secret) : null
  if (grant === null) {
    // A request that presents no grant (a device asking for its codes): a public client is its id.
    return {
      sql: `EXISTS (SELECT 1 FROM oidc_client c JOIN application a ON a.id = c.application_id
        WHERE c.client_id = ?3 AND a.actif = 1 AND (c.secret_hash = ?4 OR (c.secret_hash IS NULL AND ?4 IS NULL)))`,
      values: [credentials.clientId, secret],
    }
  }
  return {
    sql: `EXISTS (SELECT 1 FROM oidc_client c JOIN application a ON a.id = c.application_id
      WHERE c.client_id = ?3 AND a.actif = 1 AND (c.secret_hash = ?4 OR (c.secret_hash IS NULL AND ?4 IS NULL
        AND EXISTS (SELECT 1 FROM ${grant.table} g WHERE g.${grant.column} = ?5 AND g.application_id = c.application_id))))`,
    values: [credentials.clientId, secret, grant.hash],
  }
}

/**
 * The client authenticated by its secret (confidential) or by its id alone (public: PKCE proves the
 * rest); a failure is counted for the client's address and in the history's entry of its run, under the
 * application's name, then answered invalid_client.
 */
export async function authenticate(
  ctx: Ctx,
  client: ClientRow | undefined,
  credentials: ReturnType<typeof clientCredentials>,
  limits: TokenLimits,
): Promise<ClientRow> {
  let ok = false
  if (client && client.actif === 1) {
    ok =
      client.secret_hash === null
        ? credentials.secret === null || credentials.secret === ''
        : credentials.secret !== null && timingSafeEqual(await sha256Hex(credentials.secret), client.secret_hash)
  }
  if (ok && client) return client
  await limits.failed(
    client
      ? {
          entry: {
            ...logEntry(0, logTypeForApplication(client.libelle), client.libelle, ctx.request.userAgent),
            utilisateur_id: null,
          },
          what: 'Authentification du client OpenID Connect refusée',
        }
      : null,
  )
  throw invalidClient(credentials.basic)
}

/**
 * A grant the client names but does not hold: for a public client, whose id anyone may know, a failure of its
 * address, as a wrong secret is a confidential one's.
 */
export async function unknownGrant(limits: TokenLimits, client: ClientRow): Promise<void> {
  if (client.secret_hash === null) await limits.failed(null)
}
