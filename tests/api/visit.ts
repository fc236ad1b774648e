import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test'
import worker from '../../server'
import { ORIGIN } from './helpers'

/** One request through the real Worker entry (UI and API alike), its after-response work awaited. */
export async function visit(path: string, init: RequestInit = {}, overrides: Partial<typeof env> = {}) {
  const ctx = createExecutionContext()
  const response = await worker.fetch(new Request(`${ORIGIN}${path}`, init), { ...env, ...overrides }, ctx)
  // The body streams: read (a copy of) it whole before the work left after it.
  await response.clone().arrayBuffer()
  await waitOnExecutionContext(ctx)
  return response
}
