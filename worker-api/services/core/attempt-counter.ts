import { addSeconds, nowIso } from '../../contract/dates'
import { type DB, rawStatement } from '../../db/client'
import type { AttemptCounter } from '../../db/schema'
import { BusinessError } from '../../lib/errors'

/** Brute-force throttle: free failures, wait step, cap, and when the count starts over. */
export const FREE_FAILURES = 4
const WAIT_STEP_SECONDS = 60
const MAX_WAIT_SECONDS = 15 * 60
const FAILURES_RESET_SECONDS = 12 * 60 * 60

/**
 * Counts an attempt before the password is checked, in the caller's batch, so that a burst of concurrent attempts
 * cannot all pass a lock check made before any is recorded. With `onlyIf` (an SQL condition on what the batch did
 * before) it counts only when that holds; `check` reads the results.
 */
export function attemptCounter(counter: AttemptCounter, identifier: string | CountedBy, onlyIf = 'true') {
  // The identifier, or the subquery that finds it (bound as ?8): no row found, nothing counted.
  const id = typeof identifier === 'string' ? '?1' : `(${identifier.sql})`
  const bound = typeof identifier === 'string' ? [identifier] : [null]
  const more = typeof identifier === 'string' ? [] : [identifier.bind]
  const now = nowIso()
  const resetBefore = addSeconds(-FAILURES_RESET_SECONDS).toISOString()
  return {
    statements: {
      claim: rawStatement<{ failures: number }>(
        `INSERT INTO login_attempt (counter, identifier, failures, last_failure_at, locked_until)
         SELECT ?7, ${id}, 1, ?2, NULL WHERE (${onlyIf}) AND ${id} IS NOT NULL
         ON CONFLICT (counter, identifier) DO UPDATE SET
           failures = CASE WHEN last_failure_at < ?3 THEN 1 ELSE failures + 1 END,
           last_failure_at = ?2,
           locked_until = CASE WHEN last_failure_at >= ?3 AND failures + 1 > ?4
             THEN strftime('%Y-%m-%dT%H:%M:%fZ', ?2, '+' || MIN((failures + 1 - ?4) * ?5, ?6) || ' seconds')
             ELSE NULL END
           WHERE locked_until IS NULL OR locked_until <= ?2
         RETURNING failures`,
        [...bound, now, resetBefore, FREE_FAILURES, WAIT_STEP_SECONDS, MAX_WAIT_SECONDS, counter, ...more],
      ),
      lock: rawStatement<{ locked_until: string | null }>(
        `SELECT locked_until FROM login_attempt WHERE counter = ?7 AND identifier = ${id}`,
        [...bound, now, null, null, null, null, counter, ...more],
      ),
    },
    /** Throws 429 TOO_MANY_ATTEMPTS, with the seconds to wait, when the identifier was locked (the attempt then not counted). */
    check(results: {
      claim?: { results: unknown[] } | undefined
      lock?: { results: { locked_until: string | null }[] } | undefined
    }) {
      if (results.claim?.results.length) return
      const lockedUntil = results.lock?.results[0]?.locked_until
      const wait = Math.max(1, Math.ceil((Date.parse(lockedUntil ?? now) - Date.now()) / 1000))
      throw new BusinessError('TOO_MANY_ATTEMPTS', 429, `Too many attempts; retry in ${wait} s`, [wait])
    },
  }
}

/** An identifier found in SQL: `sql` a scalar subquery that reads `bind` as ?8. */
export type CountedBy = { sql: string; bind: string }

/** Starts a count over (after a success), as a statement for the success's batch. */
export function clearAttempts(db: DB, counter: AttemptCounter, identifier: string) {
  return db.deleteFrom('login_attempt').where('counter', '=', counter).where('identifier', '=', identifier)
}
