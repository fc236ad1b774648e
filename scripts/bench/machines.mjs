// A service account of the benchmark's own, for the client credentials and SCIM scenarios.
import { createHash } from 'node:crypto'
import { d1Execute } from './database.mjs'

/** The account's client id and secret (a benchmark's, in its own database only). */
export const BENCH_ACCOUNT = { clientId: 'cs-bench', secret: 'bench-service-account-secret-0123456789abcdef' }

/**
 * An administrator account of the root structure with every scope, acting for the root administrator
 * (`admin`) on their domain, written between two scenarios (no portal running).
 */
export function benchServiceAccount(persistTo) {
  const hash = createHash('sha256').update(BENCH_ACCOUNT.secret).digest('hex')
  d1Execute(
    persistTo,
    `INSERT OR IGNORE INTO compte_service (nom, structure_id, admin, scopes, client_id, secret_hash, domain, cree_par)
       SELECT 'Bench', s.id, 1, 'api logs scim', '${BENCH_ACCOUNT.clientId}', '${hash}',
         (SELECT domain FROM utilisateur WHERE login = 'admin'), (SELECT id FROM utilisateur WHERE login = 'admin')
       FROM structure s WHERE s.parent_id IS NULL ORDER BY s.id LIMIT 1;`,
  )
}

/** The token endpoint's request of the account (client_secret_basic). */
export const clientCredentialsRequest = {
  method: 'POST',
  headers: {
    'Content-Type': 'application/x-www-form-urlencoded',
    Authorization: `Basic ${Buffer.from(`${BENCH_ACCOUNT.clientId}:${BENCH_ACCOUNT.secret}`).toString('base64')}`,
  },
  body: 'grant_type=client_credentials',
}

/** An access token of the account, from the portal at `base`. */
export async function serviceToken(base) {
  const response = await fetch(`${base}/portail-backend/oidc/token`, clientCredentialsRequest)
  if (!response.ok) throw new Error(`client credentials ${response.status} ${await response.text()}`)
  return (await response.json()).access_token
}
