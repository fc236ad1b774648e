/**
 * D1's limits, as production applies them: it refuses a statement that binds more than 100 values, is longer than
 * 100 000 bytes, or matches a LIKE or GLOB pattern longer than 50 bytes (https://developers.cloudflare.com/d1/platform/limits/),
 * and the request answers 500. The local D1 (wrangler dev, the tests' workerd) refuses the first two without saying
 * which statement, and takes any pattern. Local runs wrap their D1 in `productionLimited`, so that all three fail
 * there, before D1 sees the statement, with the limit and the statement in the error.
 *
 * What is checked, statement by statement (a batch's each):
 * - the values bound (`bind`), and the highest parameter the text names (`?`, `?NNN`): 100 at most;
 * - the text: 100 000 bytes at most, in UTF-8;
 * - each LIKE or GLOB pattern: the operator's right-hand side, a bound value (`like ?`) or a string literal
 *   (`like 'a%'`), 50 bytes at most in UTF-8. A pattern written otherwise (a column, a concatenation, the
 *   `like(…)` function) cannot be measured before it runs, so it is refused too: the portal binds its
 *   patterns whole (lib/search-text.ts, the SCIM filter), which keeps this rule exact.
 */
export const D1_MAX_BOUND_VALUES = 100
export const D1_MAX_STATEMENT_BYTES = 100_000
export const D1_MAX_PATTERN_BYTES = 50

/** How much of a refused statement its error shows. */
const SHOWN_CHARACTERS = 2000

const utf8 = new TextEncoder()
const bytesOf = (text: string) => utf8.encode(text).length

/** Whether an environment runs on the local D1, which must refuse what production's does. */
export const isLocalEnvironment = (env: { ENVIRONMENT?: string }) =>
  env.ENVIRONMENT === 'development' || env.ENVIRONMENT === 'test'

function refused(limit: string, query: string): Error {
  const shown = query.length > SHOWN_CHARACTERS ? `${query.slice(0, SHOWN_CHARACTERS)}…` : query
  return new Error(`D1 refuses this statement in production: ${limit}. Statement: ${shown}`)
}

/** What a statement's text says of its limits: its highest parameter, and where its patterns come from. */
type Shape = {
  parameters: number
  /** The (1-based) parameters bound as LIKE or GLOB patterns. */
  patternParameters: number[]
}

/**
 * SQLite's tokens, as far as the limits need them: blanks and comments, a string literal (group 1), a quoted name, a
 * parameter (`?`, `?NNN`: group 2 its number), a word (group 3), or any other character.
 */
const TOKEN =
  /\s+|--[^\n]*|\/\*[\s\S]*?(?:\*\/|$)|'((?:[^']|'')*)'?|"(?:[^"]|"")*"?|`(?:[^`]|``)*`?|\[[^\]]*\]?|\?(\d*)|([A-Za-z_][A-Za-z0-9_$]*)|[\s\S]/y

/** The first character of the operators that bind tighter than LIKE: `||`, `->`, arithmetic, bits, comparisons. */
const TIGHTER = /^[|*/%+\-&<>]$/

/**
 * Reads a statement's text as SQLite's tokenizer would: literals, quoted names and comments are skipped, parameters
 * numbered (`?` takes the highest so far plus one), and the right-hand side of each LIKE and GLOB is looked at.
 * Throws when the text itself breaks a limit.
 */
function shapeOf(query: string): Shape {
  let parameters = 0
  const patternParameters: number[] = []
  /** Set after LIKE or GLOB: the next token is the pattern. */
  let patternOperator: string | null = null
  /** Set after a pattern: the operator it was the pattern of. */
  let afterPattern: string | null = null
  TOKEN.lastIndex = 0
  for (let match = TOKEN.exec(query); match !== null; match = TOKEN.exec(query)) {
    const [token, literal, number, word] = match
    if (/^\s|^--|^\/\*/.test(token)) continue
    const parameter = number === undefined ? null : number === '' ? parameters + 1 : Number(number)
    if (parameter !== null) parameters = Math.max(parameters, parameter)
    if (afterPattern !== null) {
      // An operator binding tighter than LIKE makes the pattern another value than the one measured.
      if (TIGHTER.test(token))
        throw refused(`a ${afterPattern} pattern computed in the statement cannot be measured (bind it whole)`, query)
      afterPattern = null
    }
    if (patternOperator !== null) {
      afterPattern = patternOperator
      if (parameter !== null) patternParameters.push(parameter)
      else if (literal !== undefined) {
        const bytes = bytesOf(literal.replaceAll("''", "'"))
        if (bytes > D1_MAX_PATTERN_BYTES)
          throw refused(`a ${patternOperator} pattern of ${bytes} bytes, over ${D1_MAX_PATTERN_BYTES}`, query)
      } else
        throw refused(
          `a ${patternOperator} pattern that is neither a bound value nor a literal cannot be measured (bind it whole)`,
          query,
        )
      patternOperator = null
      continue
    }
    const keyword = word?.toLowerCase()
    if (keyword === 'like' || keyword === 'glob') patternOperator = keyword.toUpperCase()
  }
  if (patternOperator !== null) throw refused(`a ${patternOperator} without a pattern`, query)
  return { parameters, patternParameters }
}

/** The shapes of the statements seen (the portal's texts are few: most are compiled once per isolate). */
const shapes = new Map<string, Shape>()
const SHAPES_KEPT = 500

function checkedText(query: string): Shape {
  let shape = shapes.get(query)
  if (shape) return shape
  const bytes = bytesOf(query)
  if (bytes > D1_MAX_STATEMENT_BYTES) throw refused(`${bytes} bytes, over ${D1_MAX_STATEMENT_BYTES}`, query)
  shape = shapeOf(query)
  if (shape.parameters > D1_MAX_BOUND_VALUES)
    throw refused(`${shape.parameters} parameters, over ${D1_MAX_BOUND_VALUES}`, query)
  if (shapes.size >= SHAPES_KEPT) shapes.clear()
  shapes.set(query, shape)
  return shape
}

function checkValues(query: string, shape: Shape, values: readonly unknown[]) {
  if (values.length > D1_MAX_BOUND_VALUES)
    throw refused(`${values.length} bound values, over ${D1_MAX_BOUND_VALUES}`, query)
  for (const index of shape.patternParameters) {
    const value = values[index - 1]
    if (value === null || value === undefined) continue
    const bytes = bytesOf(String(value))
    if (bytes > D1_MAX_PATTERN_BYTES)
      throw refused(
        `the pattern bound as parameter ${index} has ${bytes} bytes, over ${D1_MAX_PATTERN_BYTES} (${JSON.stringify(value)})`,
        query,
      )
  }
}

/** The binding's own statements behind the checked ones that `prepare` answers (`batch` needs them). */
const own = new WeakMap<object, D1PreparedStatement>()

function checkedStatement(inner: D1PreparedStatement, query: string, shape: Shape): D1PreparedStatement {
  const statement = {
    bind: (...values: unknown[]) => {
      checkValues(query, shape, values)
      return inner.bind(...values)
    },
    first: (column?: string) => (column === undefined ? inner.first() : inner.first(column)),
    all: () => inner.all(),
    run: () => inner.run(),
    raw: (options?: { columnNames?: boolean }) =>
      options?.columnNames ? inner.raw({ columnNames: true }) : inner.raw(),
  }
  own.set(statement, inner)
  return statement as unknown as D1PreparedStatement
}

/** A database, or a session of one: what the portal's data layer calls. */
type D1Surface = Pick<D1Database, 'prepare' | 'batch'> &
  Partial<Pick<D1Database, 'withSession' | 'exec'> & Pick<D1DatabaseSession, 'getBookmark'>>

const wrapped = new WeakSet<object>()
const wrappers = new WeakMap<object, object>()

/**
 * `database` (a binding or a session) refusing what production's D1 refuses, with the statement in the error.
 * Wrapping twice wraps once, and the same binding gets the same wrapper (Kysely's instance is kept per binding).
 */
export function productionLimited<T extends D1Surface>(database: T): T {
  if (wrapped.has(database)) return database
  const known = wrappers.get(database)
  if (known) return known as T
  const limited: D1Surface = {
    prepare: (query: string) => checkedStatement(database.prepare(query), query, checkedText(query)),
    batch: <R = unknown>(statements: D1PreparedStatement[]) =>
      database.batch<R>(statements.map((statement) => own.get(statement) ?? statement)),
  }
  const { withSession, getBookmark, exec } = database
  if (withSession)
    limited.withSession = (constraint?: D1SessionBookmark | D1SessionConstraint) =>
      productionLimited(withSession.call(database, constraint))
  if (getBookmark) limited.getBookmark = () => getBookmark.call(database)
  // Scripts' migrations and seeds only: no request runs `exec`, whose many statements go unchecked.
  if (exec) limited.exec = (query: string) => exec.call(database, query)
  wrapped.add(limited)
  wrappers.set(database, limited)
  return limited as T
}
