import { env } from 'cloudflare:test'
import type { FournisseurInput } from '../../../worker-api/contract/federation/providers'
import { atProvider } from '../../upstream-browser.mjs'
import { api, okBody } from '../client'
import { post } from '../helpers'

/**
 * The partners' identity providers the API tests run against (tests/upstream-provider.mjs: panva's oidc-provider on
 * this machine), and a person signing in there: the browser's part of the code flow, done with fetch.
 */

export { atProvider }

export const [UPSTREAM, OTHER_UPSTREAM] = env.TEST_UPSTREAM_ISSUERS
export const UPSTREAM_SECRET = 'secret-du-portail-chez-le-fournisseur-de-test'

/** Sets an account of a provider: its `sub` and its claims (email, email_verified, given_name, family_name…). */
export async function upstreamAccount(issuer: string, sub: string, claims: Record<string, unknown>) {
  const response = await fetch(`${issuer}/test/accounts/${encodeURIComponent(sub)}`, {
    method: 'PUT',
    body: JSON.stringify(claims),
  })
  if (response.status !== 204) throw new Error(`upstream account: ${response.status}`)
}

/** Arms the provider to tamper with its next token answer (tests/upstream-provider.mjs `tamper`). */
export async function armAttack(issuer: string, attack: string) {
  const response = await fetch(`${issuer}/test/next-token`, { method: 'POST', body: JSON.stringify({ attack }) })
  if (response.status !== 204) throw new Error(`upstream attack: ${response.status}`)
}

/** A provider as a root administrator registers it (tests override what they need). */
export const providerDraft = (overrides: Partial<FournisseurInput> = {}): FournisseurInput => ({
  nom: 'Transports Dupont',
  issuer: UPSTREAM,
  clientId: 'portail',
  authentification: 'client_secret_basic',
  secret: UPSTREAM_SECRET,
  scopes: 'openid email profile',
  domaines: ['transports-dupont.fr'],
  premiereConnexion: 'INSCRIRE',
  structure: { id: 4 },
  confianceMfa: false,
  affiche: true,
  actif: true,
  ...overrides,
})

export const registeredProvider = (rootToken: string, overrides: Partial<FournisseurInput> = {}) =>
  okBody(api(rootToken).rest.bd.fournisseur.$post({ json: providerDraft(overrides) }), 201)

/** A browser's binding value (its cookie's): any random 32+ characters. */
export const browserValue = () => `navigateur-${crypto.randomUUID()}`

/** Starts a sign-in at provider `id` from the sign-in page; the authorization request. */
export async function started(id: number, navigateur: string, extra: { redirection?: string; mail?: string } = {}) {
  const response = await post(`/rest/public/bd/fournisseur/${id}/debut`, { navigateur, ...extra })
  if (response.status !== 200) throw new Error(`start: ${response.status} ${await response.text()}`)
  return ((await response.json()) as { url: string }).url
}

/** Sends the provider's answer back to the portal, as the callback page does. */
export const finished = (answer: URLSearchParams, navigateur: string) =>
  post('/rest/public/bd/fournisseur/retour', {
    navigateur,
    etat: answer.get('state') ?? '',
    ...(answer.has('code') ? { code: answer.get('code') } : {}),
    ...(answer.has('error') ? { erreur: answer.get('error') } : {}),
    ...(answer.has('iss') ? { iss: answer.get('iss') } : {}),
  })

/** A whole sign-in through provider `id` as the person `sub`: the portal's answer to the callback. */
export async function federatedSignIn(id: number, sub: string, options: { amr?: string; redirection?: string } = {}) {
  const navigateur = browserValue()
  const url = await started(id, navigateur, options.redirection ? { redirection: options.redirection } : {})
  return finished(await atProvider(url, sub, options.amr), navigateur)
}
