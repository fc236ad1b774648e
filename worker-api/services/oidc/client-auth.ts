import type { DB } from '../../db/client'
import { base64url, sha256Hex, timingSafeEqual } from '../../lib/crypto'
import { logTypeForApplication } from '../../lib/log-types'
import { type clientCredentials, invalidClient } from '../../lib/oauth'
import type { Ctx } from '../../lib/types'
import { logEntry } from '../core/audit'

/**
 * The token endpoint's client: read with the request's other reads, then authenticated; and the PKCE
 * proof of the code's challenge.
 */

/** The client a token request names, with its application. */
export const clientRead = (db: DB, clientId: string) =>
  db
    .selectFrom('oidc_client as c')
    .innerJoin('application as a', 'a.id', 'c.application_id')
    .select(['c.application_id', 'c.secret_hash', 'a.libelle', 'a.actif'])
    .where('c.client_id', '=', clientId)

export type ClientRow = { application_id: number; secret_hash: string | null; libelle: string; actif: number }

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/

export async function pkceMatches(verifier: string, challenge: string): Promise<boolean> {
  if (!VERIFIER.test(verifier)) return false
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))
  return timingSafeEqual(base64url(new Uint8Array(digest)), challenge)
}

/**
 * The client authenticated by its secret (confidential) or by its id alone (public: PKCE proves the
 * rest); a failure is audited under the application's name, then answered invalid_client.
 */
export async function authenticate(
  ctx: Ctx,
  client: ClientRow | undefined,
  credentials: ReturnType<typeof clientCredentials>,
): Promise<ClientRow> {
  let ok = false
  if (client && client.actif === 1) {
    ok =
      client.secret_hash === null
        ? credentials.secret === null || credentials.secret === ''
        : credentials.secret !== null && timingSafeEqual(await sha256Hex(credentials.secret), client.secret_hash)
  }
  if (ok && client) return client
  if (client) {
    const db = ctx.db
    await db
      .insertInto('log')
      .values({
        ...logEntry(0, logTypeForApplication(client.libelle), client.libelle, ctx.request.userAgent, {
          commentaire: 'Authentification du client OpenID Connect refusée',
        }),
        utilisateur_id: null,
      })
      .execute()
  }
  throw invalidClient(credentials.basic)
}
