import {
  CompiledQuery,
  type Expression,
  type InsertObject,
  isExpression,
  Kysely,
  type Compilable as KyselyCompilable,
  type SqlBool,
  SqliteQueryCompiler,
  sql,
} from 'kysely'
import { D1Dialect } from 'kysely-d1'
import type { Database } from './schema'

export type DB = Kysely<Database>

const cache = new WeakMap<D1Database, DB>()

/**
 * Every Kysely instance compiles with the isolate's one SQL compiler: compiling is synchronous and
 * starts afresh each time, and making a compiler was most of the cost of a request's instance.
 */
const compiler = new SqliteQueryCompiler()
class D1SharedCompiler extends D1Dialect {
  override createQueryCompiler() {
    return compiler
  }
}

/** One Kysely instance per D1 binding: the isolate's binding, or a request's own session of it. */
export function getDb(d1: D1Database): DB {
  let db = cache.get(d1)
  if (!db) {
    db = new Kysely<Database>({ dialect: new D1SharedCompiler({ database: d1 }) })
    cache.set(d1, db)
  }
  return db
}

export type Compilable = { compile(): { sql: string; parameters: readonly unknown[] } }

/** The row a statement answers: what Kysely infers of its query, or what a raw statement declares. */
export type RowOf<Q> = Q extends KyselyCompilable<infer O> ? O : Record<string, unknown>

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

/** Where a value of a `prepared` statement goes: a named value of each use, or a constant of the statement. */
type Slot = { name: string } | { value: unknown }
type Template = { sql: string; slots: Slot[] }

/** The shapes a prepared statement keeps (one per origin's domain, say); past that, it starts again. */
const SHAPES_KEPT = 64

/**
 * Values that always decide a statement's SQL when it has them: whether its viewer or caller is a user
 * or a service account (lib/scope.ts), whose scope and checks are other statements.
 */
const ALWAYS_SHAPE = ['viewerKind', 'callerKind'] as const

/**
 * A statement compiled once per isolate and shape: `build` writes it with a marker for each named value
 * and each use binds its own values in their places (building and compiling with Kysely costs more
 * Worker CPU than the round trip). The values named in `shape` decide the SQL itself: they reach
 * `build` as they are and key the compiled text. Any other value must come out as a whole parameter.
 */
export function prepared<Values extends Record<string, unknown>, Row>(
  build: (db: DB, values: Values) => KyselyCompilable<Row>,
  shape: readonly (keyof Values & string)[] = [],
) {
  const templates = new Map<string, Template>()
  return (db: DB, values: Values): KyselyCompilable<Row> => ({
    compile() {
      const names = [...shape, ...ALWAYS_SHAPE.filter((name) => name in values)]
      const key = names.map((name) => String(values[name])).join('\u0000')
      let template = templates.get(key)
      if (!template) {
        if (templates.size >= SHAPES_KEPT) templates.clear()
        template = compileTemplate(db, build, values, names)
        templates.set(key, template)
      }
      const parameters = template.slots.map((slot) => ('name' in slot ? values[slot.name] : slot.value))
      return CompiledQuery.raw(template.sql, parameters) as CompiledQuery<Row>
    },
  })
}

function compileTemplate<Values extends Record<string, unknown>>(
  db: DB,
  build: (db: DB, values: Values) => KyselyCompilable<unknown>,
  values: Values,
  shape: readonly string[],
): Template {
  const names = Object.keys(values).filter((name) => !shape.includes(name))
  const marker = (name: string) => `\u0000prepared:${name}\u0000`
  const markers = { ...values, ...Object.fromEntries(names.map((name) => [name, marker(name)])) }
  const { sql, parameters } = build(db, markers).compile()
  const byMarker = new Map(names.map((name) => [marker(name), name]))
  const slots: Slot[] = parameters.map((value) => {
    const name = typeof value === 'string' ? byMarker.get(value) : undefined
    return name === undefined ? { value } : { name }
  })
  const bound = new Set(slots.flatMap((slot) => ('name' in slot ? [slot.name] : [])))
  const stray = (value: unknown) =>
    typeof value === 'string' && value.includes('\u0000prepared:') && !byMarker.has(value)
  // A service account's scope starts from its structure, not from posts current today: a statement
  // whose only dated part is the viewer's posts has no use for the day then.
  const unused = (name: string) => !bound.has(name) && !(name === 'today' && values.viewerKind === 'service')
  const misplaced = names.filter((name) => unused(name) || sql.includes(marker(name)))
  if (misplaced.length > 0 || parameters.some(stray)) {
    throw new Error(`prepared statement: ${misplaced.join(', ') || 'a value'} is not a whole parameter`)
  }
  return { sql, slots }
}

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

/** A guard for the statement after a write in a batch: that write changed exactly one row (`changes()`). */
export const afterOneChange = (db: DB) => db.selectNoFrom(sql<number>`1`.as('one')).where(sql<SqlBool>`changes() = 1`)

/**
 * A statement that stops its whole batch unless `condition` finds a row at that point: the first statement of a write
 * whose every part depends on what was read before it (a version, a permission), so that none of it takes place once
 * another request has changed that. SQLite raises outside triggers only on an error, here malformed JSON, which
 * `aborted` recognises.
 */
export function abortUnless(db: DB, condition: Guard) {
  return db.selectNoFrom((eb) =>
    eb
      .case()
      .when(eb.exists(condition as Parameters<typeof eb.exists>[0]))
      .then(sql<number>`1`)
      .else(sql<number>`json('batch aborted')`)
      .end()
      .as('held'),
  )
}

/** Whether a batch failed on its `abortUnless`. */
export const aborted = (error: unknown) => String(error).includes('malformed JSON')
