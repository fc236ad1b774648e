import { clientHostKind } from '../../contract/oidc/oidc'
import { isLocalEnvironment } from '../../env'
import type { Env } from '../../lib/types'

/**
 * Where the portal may post (a back-channel logout, a webhook's delivery): in development (and tests) this machine
 * only — a local receiver gets it for real; elsewhere https on another host, never the machine the Worker runs on nor an
 * address of a private, link-local or special range (registration refuses them too: this holds for a
 * client registered before that rule).
 */
export function deliverable(env: Pick<Env, 'ENVIRONMENT'>, uri: string): boolean {
  const local = isLocalEnvironment(env)
  try {
    const url = new URL(uri)
    const kind = clientHostKind(url.hostname)
    return local ? kind === 'loopback' : url.protocol === 'https:' && kind === 'public'
  } catch {
    return false
  }
}
