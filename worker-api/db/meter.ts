/**
 * What one request costs, counted where it is spent: D1 statements and round trips (a batch is one
 * round trip carrying several statements), the in-process API calls of the UI, and rendering. Shown
 * in the `Server-Timing` header (development, or `SERVER_TIMING=on`) and read by `npm run bench`.
 */
export type Meter = {
  statements: number
  roundTrips: number
  d1Ms: number
  apiCalls: number
  apiMs: number
  renderMs: number
  /**
   * Whether the request prepared a statement that revokes refresh tokens: the one write that may queue
   * a back-channel logout (migrations/0022's trigger), to deliver once the answer is out.
   */
  revokesTokens: boolean
  /** Whether it prepared a statement that writes an event (services/core/events.ts): webhooks may be due. */
  emitsEvents: boolean
}

export function createMeter(): Meter {
  return {
    statements: 0,
    roundTrips: 0,
    d1Ms: 0,
    apiCalls: 0,
    apiMs: 0,
    renderMs: 0,
    revokesTokens: false,
    emitsEvents: false,
  }
}

/** A statement that sets `revoked_at` on refresh tokens, as Kysely or raw SQL writes it. */
const REVOCATION = /\bupdate\s+"?refresh_token"?\s+set\b[\s\S]*?\brevoked_at"?\s*=/i

export const revokesTokens = (query: string) => REVOCATION.test(query)

/** A statement that writes an event, or makes a delivery due again, as Kysely writes them. */
const EVENT = /^\s*(insert\s+into\s+"?evenement"?|update\s+"?webhook_livraison"?)\s/i

/** Runs `task` (one round trip of `statements` statements) and adds it to the meter. */
async function timed<T>(meter: Meter, statements: number, task: () => Promise<T>): Promise<T> {
  const started = performance.now()
  try {
    return await task()
  } finally {
    meter.statements += statements
    meter.roundTrips += 1
    meter.d1Ms += performance.now() - started
  }
}

/** A D1 statement (or session) wrapped so that running it counts; `batch` needs the real ones back. */
const unwrapped = new WeakMap<object, D1PreparedStatement>()

function meteredStatement(inner: D1PreparedStatement, meter: Meter): D1PreparedStatement {
  const statement = {
    bind: (...values: unknown[]) => meteredStatement(inner.bind(...values), meter),
    first: (column?: string) => timed(meter, 1, () => (column === undefined ? inner.first() : inner.first(column))),
    all: () => timed(meter, 1, () => inner.all()),
    run: () => timed(meter, 1, () => inner.run()),
    raw: (options?: { columnNames?: boolean }) =>
      timed(meter, 1, () => (options?.columnNames ? inner.raw({ columnNames: true }) : inner.raw())),
  }
  unwrapped.set(statement, inner)
  return statement as unknown as D1PreparedStatement
}

/** The part of D1 the portal uses: a database or a session of one (`withSession`). */
export type D1Like = Pick<D1Database, 'prepare' | 'batch'>

/** `database` with every statement it runs counted in `meter`. */
export function meteredD1<T extends D1Like>(database: T, meter: Meter): T {
  return {
    prepare: (query: string) => {
      // A revocation may end a portal session, which migration 0048's trigger tells as an event.
      if (revokesTokens(query)) meter.revokesTokens = meter.emitsEvents = true
      if (EVENT.test(query)) meter.emitsEvents = true
      return meteredStatement(database.prepare(query), meter)
    },
    batch: <R = unknown>(statements: D1PreparedStatement[]) =>
      timed(meter, statements.length, () =>
        database.batch<R>(statements.map((statement) => unwrapped.get(statement) ?? statement)),
      ),
  } as T
}

/** The `Server-Timing` header value (milliseconds, rounded to 0.1). */
export function serverTiming(meter: Meter, totalMs?: number): string {
  const ms = (value: number) => Math.round(value * 10) / 10
  const metrics = [`d1;dur=${ms(meter.d1Ms)};desc="${meter.statements} statements, ${meter.roundTrips} round trips"`]
  if (meter.apiCalls > 0) metrics.push(`api;dur=${ms(meter.apiMs)};desc="${meter.apiCalls} in-process calls"`)
  if (meter.renderMs > 0) metrics.push(`render;dur=${ms(meter.renderMs)}`)
  if (totalMs !== undefined) metrics.push(`total;dur=${ms(totalMs)}`)
  return metrics.join(', ')
}
