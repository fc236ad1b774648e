import { type SqlBool, sql } from 'kysely'
import { addSeconds, nowIso } from '../../contract/dates'
import { insertWhen, namedBatch, rawStatement } from '../../db/client'
import type { NewLog } from '../../db/schema'
import type { Ctx } from '../../lib/types'
import { oidcClientAddressCounter, oidcClientCounter } from './rate-limit'

/** Failed client authentications a minute per client and address; past them the token endpoint answers 429. */
export const CLIENT_AUTH_FAILURES_PER_MINUTE = 10

/** A run of failed authentications (one history entry) goes on while its failures are less than this apart. */
export const FAILURE_RUN_QUIET_SECONDS = 3600

/** What a refused authentication writes in the history: the entry of its client, and what it says. */
export type Refusal = { entry: NewLog; what: string; reason?: string }

/**
 * SQL true when the request's credentials are its client's: parameters `?3` on, given with it. The token endpoint's
 * budget counts the request in its first statement only then, so that knowing a client id spends nothing.
 */
export type Authenticated = { sql: string; values: readonly unknown[] }

/**
 * The token endpoint's two limits on a client, so that knowing a client id holds nobody back: its budget
 * (`OIDC_TOKEN_RATE_PER_MINUTE`) is spent by its authenticated requests only, and its failed authentications are
 * counted apart, per client address, past which that address is answered 429 and its credentials are not checked.
 * A run of failures is one history entry, its count kept up to date. Both are read in the request's first round
 * trip; only a failure writes a second one, so a grant keeps its two (its reads, then its write).
 */
export function tokenLimits(ctx: Ctx, clientId: string) {
  const budget = oidcClientCounter('oidc-token', clientId, Number(ctx.env.OIDC_TOKEN_RATE_PER_MINUTE ?? 120))
  const failures = oidcClientAddressCounter(
    'oidc-token-failure',
    clientId,
    ctx.request.ip,
    CLIENT_AUTH_FAILURES_PER_MINUTE,
  )
  return {
    /** For the request's first batch: this address's failures with this client in the minute. */
    failuresSoFar: failures.current(),
    /** Throws 429 when the address has used up its failures of the minute (this request would be one more). */
    checkFailures(row: { count: number } | undefined) {
      failures.check({ count: (row?.count ?? 0) + 1 })
    },
    /** For the request's first batch: the request counted in the client's budget when it is authenticated. */
    spend: (authenticated: Authenticated) =>
      budget.statement(authenticated.sql, { columns: '', values: authenticated.values }),
    /** Throws 429 when the request, counted by `spend`, is past the client's budget of the minute. */
    checkBudget(row: { count: number } | undefined) {
      budget.check(row)
    },
    /**
     * A failure, counted in one statement (429 when a burst went past the limit meanwhile); for a known client, in
     * the history too: the first failure of a run writes its entry, the next ones its count.
     */
    async failed(refusal: Refusal | null) {
      const { counted } = await namedBatch(ctx.d1, {
        counted: failures.statement(),
        ...(refusal === null ? {} : runStatements(ctx, clientId, refusal)),
      })
      failures.check(counted?.results[0])
    },
  }
}

export type TokenLimits = ReturnType<typeof tokenLimits>

/** The run's entry (written when no run is under way), the run (with that entry's id), and the entry's count. */
function runStatements(ctx: Ctx, clientId: string, refusal: Refusal) {
  const db = ctx.db
  const now = nowIso()
  const runFrom = addSeconds(-FAILURE_RUN_QUIET_SECONDS).toISOString()
  const runGoesOn = sql<SqlBool>`exists (select 1 from client_auth_failure_run
    where client_id = ${clientId} and last_failure_at >= ${runFrom})`
  return {
    entry: insertWhen(
      db,
      'log',
      { ...refusal.entry, commentaire: refusal.what },
      db.selectNoFrom(sql.lit(1).as('first')).where(sql<SqlBool>`not ${runGoesOn}`),
    ),
    // A new run takes the entry just written (the batch's last insert); a run that goes on keeps its own.
    run: rawStatement(
      `INSERT INTO client_auth_failure_run (client_id, log_id, failures, last_failure_at)
       VALUES (?1, last_insert_rowid(), 1, ?2)
       ON CONFLICT (client_id) DO UPDATE SET
         log_id = CASE WHEN last_failure_at >= ?3 THEN log_id ELSE excluded.log_id END,
         failures = CASE WHEN last_failure_at >= ?3 THEN failures + 1 ELSE 1 END,
         last_failure_at = ?2`,
      [clientId, now, runFrom],
    ),
    count: rawStatement(
      `UPDATE log SET commentaire = ?2 || ' : ' || run.failures
         || CASE WHEN run.failures > 1 THEN ' échecs' ELSE ' échec' END || ?3
       FROM client_auth_failure_run AS run WHERE run.client_id = ?1 AND log.id = run.log_id`,
      [clientId, refusal.what, refusal.reason ? `, le dernier : ${refusal.reason}` : ''],
    ),
  }
}
