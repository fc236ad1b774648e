// OpenID Connect for the token, UserInfo and device scenarios: a client of the benchmark's own (it allows the device
// grant too), and the
// agent's codes and sessions made through the portal.
import { createHash } from 'node:crypto'
import { agent, d1Execute } from './database.mjs'

/** The bench client's one redirect address, and the PKCE verifier of every code it asks for. */
export const OIDC_REDIRECT = 'http://127.0.0.1/bench/callback'
export const OIDC_VERIFIER = 'bench-pkce-verifier-0123456789abcdefghijklmnopqrstuvwxyz'

/**
 * OpenID Connect: a client of the benchmark's own (public, PKCE), granted to the agent's functions,
 * written between two scenarios (no portal running).
 */
export function benchOidcClient(persistTo) {
  const sql = `
    INSERT OR IGNORE INTO application (libelle, icone, url, protocole) VALUES ('Bench OIDC', 'truck', 'http://127.0.0.1/', 'OIDC');
    INSERT OR IGNORE INTO oidc_client (application_id, client_id, secret_hash, redirect_uris)
      SELECT id, 'bench-oidc', NULL, '["${OIDC_REDIRECT}"]' FROM application WHERE libelle = 'Bench OIDC';
    UPDATE oidc_client SET device_grant = 1 WHERE client_id = 'bench-oidc';
    INSERT OR IGNORE INTO fonction_application (fonction_id, application_id)
      SELECT p.fonction_id, a.id FROM poste p JOIN utilisateur u ON u.id = p.utilisateur_id, application a
      WHERE u.login = 'agent' AND a.libelle = 'Bench OIDC';`
  d1Execute(persistTo, sql)
}

export const tokenForm = (fields) => new URLSearchParams({ client_id: 'bench-oidc', ...fields }).toString()

/** The agent's codes and sessions from the portal at `base`, signing in with `login` (the bench client's). */
export function oidcGrants({ base, api }, login) {
  /** `count` authorization codes of the agent (the portal's authorization, 20 at a time). */
  async function oidcCodes(count) {
    const session = await login(agent.login, agent.password)
    const challenge = createHash('sha256').update(OIDC_VERIFIER).digest('base64url')
    const codes = []
    while (codes.length < count) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(20, count - codes.length) }, async () => {
          const response = await fetch(`${api}/bd/oidc/authorize`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${session.jwt.accessToken}`, 'Content-Type': 'application/json' },
            body: JSON.stringify({
              client_id: 'bench-oidc',
              redirect_uri: OIDC_REDIRECT,
              response_type: 'code',
              scope: 'openid profile email postes',
              code_challenge: challenge,
              code_challenge_method: 'S256',
            }),
          })
          const { url } = await response.json()
          return new URL(url).searchParams.get('code')
        }),
      )
      codes.push(...batch)
    }
    return codes
  }

  /** Tokens for `count` OpenID Connect sessions of the agent. */
  async function oidcSessions(count) {
    const sessions = []
    for (const code of await oidcCodes(count)) {
      const response = await fetch(`${base}/portail-backend/oidc/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: tokenForm({
          grant_type: 'authorization_code',
          code,
          redirect_uri: OIDC_REDIRECT,
          code_verifier: OIDC_VERIFIER,
        }),
      })
      if (!response.ok) throw new Error(`code exchange ${response.status} ${await response.text()}`)
      sessions.push(await response.json())
    }
    return sessions
  }

  return { oidcCodes, oidcSessions }
}
