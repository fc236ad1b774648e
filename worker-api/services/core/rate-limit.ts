import ipaddr from 'ipaddr.js'
import { type Expression, type SqlBool, sql } from 'kysely'
import { type DB, rawStatement } from '../../db/client'
import { BusinessError } from '../../lib/errors'

const WINDOW_SECONDS = 60

/** Requests that carry no usable client address all count under this one key. */
export const UNKNOWN_CLIENT = 'unknown'

/**
 * What a client is counted under: its IPv4 address; for IPv6 its /64 network (a subscriber gets a
 * whole /64, and hopping addresses inside it must not buy more tries; an IPv4-mapped address counts as
 * the IPv4 one); anything else — no CF-Connecting-IP at all, or a value that is no address — the one
 * shared key, so that leaving out or varying the header never escapes the limit.
 */
export function clientKey(ip: string | null | undefined): string {
  const address = ip?.trim() ?? ''
  if (!ipaddr.isValid(address)) return UNKNOWN_CLIENT
  const parsed = ipaddr.process(address)
  if (parsed.kind() === 'ipv4') return parsed.toString()
  const network = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16))
  return `${network.join(':')}::/64`
}

/**
 * Per-client limit (DESIGN §3): `limit` requests of one kind per client (`clientKey`) and minute, counted by one
 * statement of the caller's batch, so it costs no round trip. With `onlyIf` (SQL, no parameters) it counts only when
 * that holds; `check` throws 429 TOO_MANY_ATTEMPTS with the seconds to wait.
 */
export const clientCounter = (kind: string, ip: string | null, limit: number) =>
  rateCounter(`${kind}:${clientKey(ip)}`, limit)

/** Per-client-application limit: at most `limit` requests of one kind per OpenID Connect client and minute. */
export const oidcClientCounter = (kind: string, clientId: string, limit: number) =>
  rateCounter(`${kind}:oidc:${clientId}`, limit)

/**
 * Per client application and address: at most `limit` requests of one kind a minute for one OpenID Connect client
 * (or service account) from one client address (`clientKey`).
 */
export const oidcClientAddressCounter = (kind: string, clientId: string, ip: string | null, limit: number) =>
  rateCounter(`${kind}:oidc:${clientId}:${clientKey(ip)}`, limit)

/** Per-user limit: at most `limit` requests of one kind per signed-in user and minute, wherever they come from. */
export const userCounter = (kind: string, userId: number, limit: number) => rateCounter(`${kind}:user:${userId}`, limit)

function rateCounter(key: string, limit: number, now = new Date()) {
  const windowStart = new Date(
    Math.floor(now.getTime() / (WINDOW_SECONDS * 1000)) * WINDOW_SECONDS * 1000,
  ).toISOString()
  return {
    /**
     * The counting statement. `alongside` adds columns to its answer (SQL whose parameters are `?3` on,
     * given in `values`): what the request reads with its count, in the same statement.
     */
    statement: <Also extends object = object>(
      onlyIf = 'true',
      alongside: { columns: string; values: readonly unknown[] } = { columns: '', values: [] },
    ) =>
      rawStatement<{ count: number } & Also>(
        `INSERT INTO rate_limit (key, window_start, count) SELECT ?1, ?2, 1 WHERE ${onlyIf}
         ON CONFLICT (key) DO UPDATE SET
           count = CASE WHEN window_start = ?2 THEN count + 1 ELSE 1 END,
           window_start = ?2
         RETURNING count${alongside.columns ? `, ${alongside.columns}` : ''}`,
        [key, windowStart, ...alongside.values],
      ),
    /** `statement` with its condition written with the query builder (`condition`: a read of the same batch). */
    statementWhen: (db: DB, condition: Expression<SqlBool>) =>
      db
        .insertInto('rate_limit')
        .columns(['key', 'window_start', 'count'])
        .expression(
          db
            .selectNoFrom([sql.val(key).as('key'), sql.val(windowStart).as('window_start'), sql.lit(1).as('count')])
            .where(condition),
        )
        .onConflict((oc) =>
          oc.column('key').doUpdateSet({
            count: sql<number>`case when rate_limit.window_start = ${windowStart} then rate_limit.count + 1 else 1 end`,
            window_start: windowStart,
          }),
        )
        .returning('count'),
    /** This minute's count so far, counting nothing (no row when there is none). */
    current: () =>
      rawStatement<{ count: number }>('SELECT count FROM rate_limit WHERE key = ?1 AND window_start = ?2', [
        key,
        windowStart,
      ]),
    /**
     * SQL true once this request was counted within the limit (for the statements after it). Limits are
     * whole numbers: the Worker refuses to serve with any other (`configurationProblems`).
     */
    within: `(SELECT count FROM rate_limit WHERE key = '${key.replaceAll("'", "''")}') <= ${Math.trunc(limit)}`,
    /** Throws 429 when the counted request (the statement's first row) is over the limit. */
    check(row: { count: number } | null | undefined) {
      if ((row?.count ?? 0) > limit) {
        const wait = Math.max(1, Math.ceil((Date.parse(windowStart) + WINDOW_SECONDS * 1000 - now.getTime()) / 1000))
        throw new BusinessError('TOO_MANY_ATTEMPTS', 429, `Too many requests; retry in ${wait} s`, [wait])
      }
    },
  }
}
