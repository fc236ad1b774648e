import {
  createExecutionContext,
  createMessageBatch,
  env,
  getQueueResult,
  waitOnExecutionContext,
} from 'cloudflare:test'
import worker from '../../server'
import type { Job } from '../../worker-api/contract/jobs'

/** A job's step of one kind, as the queue carries it. */
export type JobOf<Kind extends Job['kind']> = Extract<Job, { kind: Kind }>

/**
 * The jobs queue in the tests (imports, review campaigns): what the API sends is kept, then delivered one message at a
 * time to the real Worker's `queue` handler (server.ts) over the real D1, as Cloudflare Queues would — a message the
 * handler retries comes again with its attempt counted, and the step it runs sends the next.
 * The messages are an import's lots unless the test says otherwise (`jobsQueue<JobOf<'review-step'>>()`).
 */
export function jobsQueue<Message extends Job = JobOf<'import-lot'>>() {
  const waiting: { body: Message; attempts: number }[] = []
  const delivered: { body: Message; attempts: number; outcome: 'ack' | 'retry' }[] = []
  let next = 0
  const binding = {
    async send(body: Message) {
      waiting.push({ body: structuredClone(body), attempts: 1 })
    },
    async sendBatch(messages: Iterable<{ body: Message }>) {
      for (const message of messages) waiting.push({ body: structuredClone(message.body), attempts: 1 })
    },
  } as unknown as Queue<Message>
  const bindings = { ...env, JOBS: binding }

  /** Delivers one waiting message (with bindings changed: `overrides`); false when none waits. */
  async function deliverOne(overrides: Partial<typeof env> = {}): Promise<boolean> {
    const message = waiting.shift()
    if (!message) return false
    const id = `m${++next}`
    const batch = createMessageBatch<Message>('portail-jobs', [
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
    env: { JOBS: binding },
    waiting,
    delivered,
    deliverOne,
    /** The minute's cron trigger, as the Worker gets it. */
    async cron() {
      const ctx = createExecutionContext()
      await worker.scheduled({ cron: '* * * * *', scheduledTime: Date.now(), noRetry() {} }, bindings, ctx)
      await waitOnExecutionContext(ctx)
    },
    /** The hourly cron trigger (pruning, deadlines, the history's archive), as the Worker gets it. */
    async hourly() {
      const ctx = createExecutionContext()
      await worker.scheduled({ cron: '17 * * * *', scheduledTime: Date.now(), noRetry() {} }, bindings, ctx)
      await waitOnExecutionContext(ctx)
    },
    /** Delivers until nothing waits (a bound keeps a loop from running forever). */
    async drain(limit = 10_000) {
      for (let n = 0; n < limit; n++) if (!(await deliverOne())) return n
      throw new Error(`The queue still had messages after ${limit} deliveries`)
    },
  }
}
