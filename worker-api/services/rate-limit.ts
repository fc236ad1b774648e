import type { Env } from '../env'
import { BusinessError } from '../lib/errors'

const WINDOW_SECONDS = 60

/**
 * Per-client limit (DESIGN §3): at most `limit` requests of one kind per client address and minute,
 * counted atomically in D1. Cloudflare (and wrangler dev) set CF-Connecting-IP; a request without it
 * has nothing to key on and is not limited.
 */
export async function limitClient(env: Env, kind: string, ip: string | null, limit: number) {
  if (!ip) return
  const now = new Date()
  const windowStart = new Date(
    Math.floor(now.getTime() / (WINDOW_SECONDS * 1000)) * WINDOW_SECONDS * 1000,
  ).toISOString()
  const row = await env.DB.prepare(
    `INSERT INTO rate_limit (key, window_start, count) VALUES (?1, ?2, 1)
     ON CONFLICT (key) DO UPDATE SET
       count = CASE WHEN window_start = ?2 THEN count + 1 ELSE 1 END,
       window_start = ?2
     RETURNING count`,
  )
    .bind(`${kind}:${ip}`, windowStart)
    .first<{ count: number }>()
  if ((row?.count ?? 0) > limit) {
    const wait = Math.max(1, Math.ceil((Date.parse(windowStart) + WINDOW_SECONDS * 1000 - now.getTime()) / 1000))
    throw new BusinessError('TOO_MANY_ATTEMPTS', 429, `Too many requests; retry in ${wait} s`, [wait])
  }
}
