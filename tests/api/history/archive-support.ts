import { env } from 'cloudflare:test'

/** The archive's bucket of the tests (vitest.api.config.ts). */
export const archiveBucket = () => {
  if (!env.ARCHIVE) throw new Error('No ARCHIVE bucket in the tests')
  return env.ARCHIVE
}

/** 'YYYY-MM', `back` months before this one (UTC). */
export const monthsAgo = (back: number) => {
  const now = new Date()
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1)).toISOString().slice(0, 7)
}
