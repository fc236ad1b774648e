// A partner's identity provider for the callback's scenario: the tests' own (panva's oidc-provider,
// tests/upstream-provider.mjs) in a process of its own, registered through the administrators' API, a user of the
// partner's domain who proved their address here, and the provider's answers the callback is loaded with.
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { once } from 'node:events'
import path from 'node:path'
import { atProvider } from '../../tests/upstream-browser.mjs'
import { UPSTREAM_CLIENT_SECRET } from '../../tests/upstream-provider.mjs'
import { root } from '../local.mjs'
import { d1Execute } from './database.mjs'

const PROVIDER = 'Bench fournisseur'
const DOMAIN = 'federation.bench.example'
const SUB = 'bench-partenaire'
/** The partner's employee: a copy of the agent (same posts) whose address, of the provider's domain, is proved here. */
const MAIL = `agent@${DOMAIN}`

/**
 * Written between two scenarios (no portal running): the user, and no bench provider left by an earlier run (on the
 * large organisation, kept from run to run; its links and states go with it).
 */
export function benchFederatedUser(persistTo) {
  const sql = `
    DELETE FROM fournisseur WHERE nom = '${PROVIDER}';
    INSERT INTO utilisateur (login, nom, prenom, mail, mail_prouve, password_hash, domain, langue)
      SELECT 'benchfed', nom, prenom, '${MAIL}', '${MAIL}', password_hash, domain, langue FROM utilisateur
      WHERE login = 'agent' AND NOT EXISTS (SELECT 1 FROM utilisateur WHERE login = 'benchfed');
    INSERT INTO poste (utilisateur_id, structure_id, fonction_id, date_debut, date_fin)
      SELECT b.id, p.structure_id, p.fonction_id, p.date_debut, p.date_fin
      FROM utilisateur b, utilisateur a JOIN poste p ON p.utilisateur_id = a.id
      WHERE a.login = 'agent' AND b.login = 'benchfed' AND NOT EXISTS (SELECT 1 FROM poste q WHERE q.utilisateur_id = b.id);`
  d1Execute(persistTo, sql)
}

/** The provider's process, sending the browser back to the portal at `base`; its issuer. */
export async function startBenchUpstream(base) {
  const child = spawn(
    process.execPath,
    [path.join(root, 'scripts/bench/upstream.mjs'), `${base}/login/fournisseur/retour`],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  const [chunk] = await once(child.stdout, 'data')
  const issuer = String(chunk).trim()
  const response = await fetch(`${issuer}/test/accounts/${SUB}`, {
    method: 'PUT',
    body: JSON.stringify({ email: MAIL, email_verified: true, given_name: 'Agent', family_name: 'Partenaire' }),
  })
  if (response.status !== 204) throw new Error(`the provider's account: ${response.status}`)
  return { issuer, child }
}

/**
 * The provider registered by the root administrator (`token`), attaching a first sign-in to the user who proved the
 * address; then that first sign-in, so that the run measures the sign-ins of a linked user, as every later one is.
 */
export async function registerBenchProvider(api, token, issuer) {
  const response = await fetch(`${api}/bd/fournisseur`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      nom: PROVIDER,
      issuer,
      clientId: 'portail',
      authentification: 'client_secret_basic',
      secret: UPSTREAM_CLIENT_SECRET,
      scopes: 'openid email profile',
      domaines: [DOMAIN],
      premiereConnexion: 'RATTACHER',
      structure: null,
      confianceMfa: false,
      affiche: true,
      actif: true,
    }),
  })
  if (response.status !== 201)
    throw new Error(`the provider's registration: ${response.status} ${await response.text()}`)
  const { id } = await response.json()
  const [first] = await providerAnswers(api, id, 1)
  const attached = await fetch(`${api}/public/bd/fournisseur/retour`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(first),
  })
  if (attached.status !== 200) throw new Error(`the first sign-in: ${attached.status} ${await attached.text()}`)
  return id
}

/** `count` answers of the provider `id` to sign-ins started at the portal (20 at a time): the callback's bodies. */
export async function providerAnswers(api, id, count) {
  const answers = []
  while (answers.length < count) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, count - answers.length) }, async () => {
        const navigateur = `navigateur-bench-${crypto.randomUUID()}`
        const started = await fetch(`${api}/public/bd/fournisseur/${id}/debut`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ navigateur }),
        })
        if (started.status !== 200) throw new Error(`the sign-in's start: ${started.status}`)
        const answer = await atProvider((await started.json()).url, SUB)
        return { navigateur, etat: answer.get('state'), code: answer.get('code'), iss: answer.get('iss') }
      }),
    )
    answers.push(...batch)
  }
  return answers
}

const DIRECT_VERIFIER = 'bench-federation-pkce-verifier-0123456789abcdefghijklmnopqrstuvwxyz'

/**
 * The provider's token endpoint alone, what every callback waits on: `count` codes asked of it directly (no portal),
 * and the token request of each, as the portal sends it (client_secret_basic, PKCE).
 */
export async function directTokenRequests(base, issuer, count) {
  const redirectUri = `${base}/login/fournisseur/retour`
  const authorization = new URL(`${issuer}/auth`)
  for (const [name, value] of Object.entries({
    client_id: 'portail',
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'openid email profile',
    nonce: 'bench-nonce',
    code_challenge: createHash('sha256').update(DIRECT_VERIFIER).digest('base64url'),
    code_challenge_method: 'S256',
  }))
    authorization.searchParams.set(name, value)
  const codes = []
  while (codes.length < count) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, count - codes.length) }, async () => {
        authorization.searchParams.set('state', crypto.randomUUID())
        return (await atProvider(authorization.href, SUB)).get('code')
      }),
    )
    codes.push(...batch)
  }
  const basic = Buffer.from(`portail:${UPSTREAM_CLIENT_SECRET}`).toString('base64')
  let next = 0
  return [
    {
      method: 'POST',
      headers: { Authorization: `Basic ${basic}`, 'Content-Type': 'application/x-www-form-urlencoded' },
      setupRequest: (request) => ({
        ...request,
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: codes[next++],
          redirect_uri: redirectUri,
          code_verifier: DIRECT_VERIFIER,
        }).toString(),
      }),
    },
  ]
}
