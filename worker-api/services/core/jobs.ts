import type { Job } from '../../contract/jobs'
import { BusinessError } from '../../lib/errors'
import type { Ctx } from '../../lib/types'

/**
 * Sends one step of a job to the jobs queue. On a Worker configured without the queue nothing is sent: a call that
 * starts a job asks `jobsConfigured` first, and the steps a job sends itself are picked up again by the cron.
 */
export async function enqueue(ctx: Pick<Ctx, 'env'>, job: Job): Promise<void> {
  await ctx.env.JOBS?.send(job)
}

/** What a call that starts a job answers, before it writes anything, on a Worker configured without the queue: 503. */
export function jobsConfigured(ctx: Pick<Ctx, 'env'>): void {
  if (!ctx.env.JOBS)
    throw new BusinessError('TECHNICAL_ERROR', 503, 'The jobs queue is not configured on this server (JOBS)')
}
