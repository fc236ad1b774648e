import type { Context } from 'hono'

/**
 * Runs `work` after the response is sent (the Worker's waitUntil). Without an execution context (a
 * script calling `app.request` with none) it still runs, unawaited; failures are logged, never thrown.
 */
export function afterResponse(c: Context, work: () => Promise<unknown>) {
  const promise = work().catch((error: unknown) => console.error('Background work failed', error))
  try {
    c.executionCtx.waitUntil(promise)
  } catch {
    // No execution context: nothing to extend, the promise runs on its own.
  }
}
