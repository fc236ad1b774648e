import * as oauth from 'oauth4webapi'
import { isClientUri } from '../../contract/oidc/oidc'
import { isLocalEnvironment } from '../../env'
import { BusinessError } from '../../lib/errors'
import type { Env } from '../../lib/types'

/** How long the portal waits for a provider (discovery, keys, token endpoint) before it answers that it failed. */
export const PROVIDER_TIMEOUT_MS = 5000

/** What the portal keeps of a provider's discovery document (`fournisseur.metadata`). */
export type ProviderMetadata = oauth.AuthorizationServer

/** The options of every request to a provider: plain http to this machine in development and tests only. */
export const providerRequest = (env: Pick<Env, 'ENVIRONMENT'>) => ({
  [oauth.allowInsecureRequests]: isLocalEnvironment(env),
  signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
})

const discoveryFailed = (reason: string) =>
  new BusinessError('IDP_DISCOVERY_FAILED', 400, `The provider's discovery document: ${reason}`, [reason])

/**
 * Reads and checks a provider's discovery document (OpenID Connect Discovery 1.0 §4): its issuer must be the one asked
 * (§4.3), it must offer the code flow and name its authorization, token and key endpoints, each an address the portal
 * may call (the rule of a client's addresses: https, public, loopback in development). 400 IDP_DISCOVERY_FAILED,
 * with the reason, when it cannot be read or does not pass.
 */
export async function discover(env: Pick<Env, 'ENVIRONMENT'>, issuer: string): Promise<ProviderMetadata> {
  const url = new URL(issuer)
  let response: Response
  try {
    response = await oauth.discoveryRequest(url, providerRequest(env))
  } catch (error) {
    throw discoveryFailed(unreachable(error))
  }
  let metadata: ProviderMetadata
  try {
    metadata = await oauth.processDiscoveryResponse(url, response)
  } catch (error) {
    throw discoveryFailed(error instanceof Error ? error.message : 'unreadable')
  }
  const loopback = isLocalEnvironment(env)
  for (const name of ['authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const) {
    const address = metadata[name]
    if (typeof address !== 'string') throw discoveryFailed(`${name} is missing`)
    if (!isClientUri(address, { loopback })) throw discoveryFailed(`${name} is not an address the portal calls`)
  }
  const endSession = metadata.end_session_endpoint
  if (endSession !== undefined && (typeof endSession !== 'string' || !isClientUri(endSession, { loopback }))) {
    throw discoveryFailed('end_session_endpoint is not an address the portal calls')
  }
  const responseTypes = metadata.response_types_supported
  if (Array.isArray(responseTypes) && !responseTypes.includes('code')) {
    throw discoveryFailed('the provider does not offer the code flow')
  }
  return metadata
}

/** Why a request to a provider got no answer, as the administrator reads it: never a stack. */
export function unreachable(error: unknown): string {
  if (error instanceof DOMException && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `no answer within ${PROVIDER_TIMEOUT_MS / 1000} s`
  }
  return `unreachable (${error instanceof Error ? error.message : 'no answer'})`
}

/** The authentication methods the provider accepts at its token endpoint (RFC 8414: client_secret_basic by default). */
export const tokenAuthMethods = (metadata: ProviderMetadata): string[] =>
  Array.isArray(metadata.token_endpoint_auth_methods_supported)
    ? metadata.token_endpoint_auth_methods_supported
    : ['client_secret_basic']
