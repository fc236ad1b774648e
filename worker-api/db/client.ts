import {
  CompiledQuery,
  type Expression,
  type InsertObject,
  isExpression,
  Kysely,
  type Compilable as KyselyCompilable,
  sql,
} from 'kysely'
import { D1Dialect } from 'kysely-d1'
import type { Database } from './schema'

export type DB = Kysely<Database>

const cache = new WeakMap<D1Database, DB>()

/** One Kysely instance per D1 binding (the binding object is stable for an isolate). */
export function getDb(d1: D1Database): DB {
  let db = cache.get(d1)
  if (!db) {
    db = new Kysely<Database>({ dialect: new D1Dialect({ database: d1 }) })
    cache.set(d1, db)
  }
  return db
}

export type Compilable = { compile(): { sql: string; parameters: readonly unknown[] } }

/** The row a statement answers: what Kysely infers of its query, or what a raw statement declares. */
type RowOf<Q> = Q extends KyselyCompilable<infer O> ? O : Record<string, unknown>

/**
 * A statement written in SQL (an upsert Kysely cannot say), to run in a batch beside Kysely's, with
 * the row it answers.
 */
export const rawStatement = <Row = Record<string, unknown>>(
  text: string,
  parameters: readonly unknown[],
): KyselyCompilable<Row> => ({
  compile: () => CompiledQuery.raw(text, [...parameters]) as CompiledQuery<Row>,
})

/**
 * Runs compiled queries in one D1 batch: all succeed or none do (kysely-d1 has no transactions).
 */
export async function batch(d1: D1Database, queries: Compilable[]) {
  const statements = queries.map((q) => {
    const { sql, parameters } = q.compile()
    return d1.prepare(sql).bind(...parameters)
  })
  return d1.batch(statements)
}

/** What `namedBatch` answers under a name: a statement's result, or the results of a list of them. */
type NamedResult<Q> = Q extends readonly Compilable[] ? D1Result[] : D1Result<RowOf<NonNullable<Q>>> | undefined

/**
 * `batch` over named queries, run in the order given: each result comes back under its query's name,
 * so adding a statement cannot shift what another result is read as. A `null` query is left out (its
 * result is `undefined`); a list of statements (the rows of a whole list written) runs in its place
 * and answers the list of their results.
 */
export async function namedBatch<Q extends Record<string, Compilable | readonly Compilable[] | null>>(
  d1: D1Database,
  queries: Q,
): Promise<{ [K in keyof Q]: NamedResult<Q[K]> }> {
  const names = Object.keys(queries)
  const statements = names.flatMap((name) => {
    const query = queries[name]
    return query === null || query === undefined ? [] : Array.isArray(query) ? query : [query as Compilable]
  })
  const results = await batch(d1, statements)
  let next = 0
  const answered: Record<string, unknown> = {}
  for (const name of names) {
    const query = queries[name]
    if (query === null || query === undefined) answered[name] = undefined
    else if (Array.isArray(query)) {
      answered[name] = results.slice(next, next + query.length)
      next += query.length
    } else answered[name] = results[next++]
  }
  return answered as { [K in keyof Q]: NamedResult<Q[K]> }
}

/**
 * Writes, then a read of what they left, in one batch (one round trip): the read sees the writes,
 * and comes back apart from their results.
 */
export async function writeThenRead<Q extends Compilable>(
  d1: D1Database,
  writes: Compilable[],
  read: Q,
): Promise<{ written: D1Result[]; rows: RowOf<Q>[] }> {
  const results = await batch(d1, [...writes, read])
  return { written: results.slice(0, writes.length), rows: (results[writes.length]?.results ?? []) as RowOf<Q>[] }
}

/** A condition a write repeats inside its batch: the statement takes place only if it finds a row. */
export type Guard = Expression<unknown>

/**
 * An INSERT of one row that takes place only if `condition` finds a row at that point of a batch: the
 * second half of a write that must not happen when the first lost a race (D1 has no transactions
 * across requests, but a batch runs as one).
 */
export function insertWhen<T extends keyof Database & string>(
  db: DB,
  table: T,
  row: InsertObject<Database, T>,
  condition: Guard,
) {
  const values = row as Record<string, unknown>
  const columns = Object.keys(values)
  return db
    .insertInto(table)
    .columns(columns as (keyof Database[T] & string)[])
    .expression(
      db
        .selectNoFrom((eb) =>
          columns.map((column) => {
            const value = values[column]
            return isExpression(value) ? sql`${value}`.as(column) : eb.val(value).as(column)
          }),
        )
        .where(({ exists }) => exists(condition)),
    )
}
