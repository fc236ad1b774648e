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

/** A page's form posted as a browser posts it (urlencoded, from the portal's own origin) with the session `cookie`. */
export async function postForm(
  path: string,
  cookie: string,
  fields: Record<string, string> | [string, string][],
  overrides: Partial<typeof env> = {},
) {
  const response = await visit(
    path,
    {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Origin: ORIGIN,
        Host: new URL(ORIGIN).host,
        Cookie: cookie,
      },
      body: new URLSearchParams(fields).toString(),
    },
    overrides,
  )
  return { status: response.status, location: response.headers.get('Location'), html: await response.text() }
}
