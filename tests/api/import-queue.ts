import {
  createExecutionContext,
  createMessageBatch,
  env,
  getQueueResult,
  waitOnExecutionContext,
} from 'cloudflare:test'
import worker from '../../server'
import type { ReviewMessage } from '../../worker-api/contract/access-reviews'
import type { ImportMessage as Lot } from '../../worker-api/contract/bulk'

/**
 * The background queue in the tests (imports, review campaigns): what the API sends is kept, then delivered one message at a time to the real
 * Worker's `queue` handler (server.ts) over the real D1, as Cloudflare Queues would — a message the handler retries
 * comes again with its attempt counted, and the lot it runs sends the next.
 */
/** The queue's messages are an import's lots unless the test says otherwise (a review campaign's steps). */
export function importQueue<ImportMessage extends Lot | ReviewMessage = Lot>() {
  const waiting: { body: ImportMessage; attempts: number }[] = []
  const delivered: { body: ImportMessage; attempts: number; outcome: 'ack' | 'retry' }[] = []
  let next = 0
  const binding = {
    async send(body: ImportMessage) {
      waiting.push({ body: structuredClone(body), attempts: 1 })
    },
    async sendBatch(messages: Iterable<{ body: ImportMessage }>) {
      for (const message of messages) waiting.push({ body: structuredClone(message.body), attempts: 1 })
    },
  } as unknown as Queue<ImportMessage>
  const bindings = { ...env, IMPORTS: binding }

  /** Delivers one waiting message (with bindings changed: `overrides`); false when none waits. */
  async function deliverOne(overrides: Partial<typeof env> = {}): Promise<boolean> {
    const message = waiting.shift()
    if (!message) return false
    const id = `m${++next}`
    const batch = createMessageBatch<ImportMessage>('portail-imports', [
      { id, timestamp: new Date(), body: message.body, attempts: message.attempts },
    ])
    const ctx = createExecutionContext()
    await worker.queue(batch, { ...bindings, ...overrides }, ctx)
    const result = await getQueueResult(batch, ctx)
    const retried =
      result.retryBatch.retry || result.retryMessages.some((retry: { msgId: string }) => retry.msgId === id)
    delivered.push({ ...message, outcome: retried ? 'retry' : 'ack' })
    if (retried) waiting.push({ body: message.body, attempts: message.attempts + 1 })
    return true
  }

  return {
    /** The binding to give the API (`call(…, { env: queue.env })`). */
    env: { IMPORTS: binding },
    waiting,
    delivered,
    deliverOne,
    /** The minute's cron trigger, as the Worker gets it. */
    async cron() {
      const ctx = createExecutionContext()
      await worker.scheduled({ cron: '* * * * *', scheduledTime: Date.now(), noRetry() {} }, bindings, ctx)
      await waitOnExecutionContext(ctx)
    },
    /** Delivers until nothing waits (a bound keeps a loop from running forever). */
    async drain(limit = 10_000) {
      for (let n = 0; n < limit; n++) if (!(await deliverOne())) return n
      throw new Error(`The queue still had messages after ${limit} deliveries`)
    },
  }
}
