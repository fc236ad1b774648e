import { type Expression, type SqlBool, sql } from 'kysely'
import { type Filter, parse } from 'scim2-parse-filter'
import type { DB } from '../../../db/client'
import { invalidFilter } from './errors'

/**
 * A SCIM filter (RFC 7644 §3.4.2.2) as SQL on the resources read (users under `u`, groups under `f`
 * and `s`): parsed by scim2-parse-filter,
 * each comparison on an attribute the portal holds, its values bound. What D1 refuses never reaches
 * it: a filter is at most `FILTER_MAX_LENGTH` characters, `FILTER_MAX_COMPARISONS` comparisons and
 * `FILTER_MAX_DEPTH` levels, and a pattern (`co`, `sw`, `ew`) at most `PATTERN_MAX_BYTES`; past that,
 * 400 invalidFilter.
 */

/** Far above what a provisioning client sends (`userName eq "…"`); the parser is slow on long unterminated strings. */
export const FILTER_MAX_LENGTH = 1000
/** Each comparison binds one or two values; D1 binds 100 a statement, the rest of the statement some. */
export const FILTER_MAX_COMPARISONS = 20
/**
 * How deep parentheses (a value path's brackets with them) and, apart, `not` nest: each level deepens the SQL, which
 * D1 parses at most 100 deep with the scope's own conditions (a `not` takes two: 50 of them were a 500).
 */
export const FILTER_MAX_DEPTH = 10
/** D1's LIKE pattern limit (50 bytes) less the two `%`. */
const PATTERN_MAX_BYTES = 48

export type Column = {
  sql: Expression<unknown>
  kind: 'text' | 'exact' | 'boolean' | 'instant' | 'id'
}

/** The attributes a filter on users may name (lower case, as SCIM compares them), and the column each is. */
export const USER_ATTRIBUTES: Record<string, Column> = {
  id: { sql: sql.ref('u.id'), kind: 'id' },
  username: { sql: sql.ref('u.login'), kind: 'text' },
  externalid: { sql: sql.ref('u.external_id'), kind: 'exact' },
  'name.familyname': { sql: sql.ref('u.nom'), kind: 'text' },
  'name.givenname': { sql: sql.ref('u.prenom'), kind: 'text' },
  emails: { sql: sql.ref('u.mail'), kind: 'text' },
  'emails.value': { sql: sql.ref('u.mail'), kind: 'text' },
  active: { sql: sql`(u.actif = 1)`, kind: 'boolean' },
  'meta.lastmodified': { sql: sql.ref('u.updated_at'), kind: 'instant' },
  'meta.created': { sql: sql.ref('u.created_at'), kind: 'instant' },
}

const SCHEMA_PREFIXES = ['urn:ietf:params:scim:schemas:core:2.0:user:', 'urn:ietf:params:scim:schemas:core:2.0:group:']

/** An attribute path as written, normalised: case folded, the core schema's URN prefix dropped. */
export function attributeName(path: string): string {
  const lower = path.toLowerCase()
  const prefix = SCHEMA_PREFIXES.find((urn) => lower.startsWith(urn))
  return prefix ? lower.slice(prefix.length) : lower
}

/** The parsed filter, or 400 invalidFilter. */
export function parsedFilter(text: string): Filter {
  // Control characters first: with a quote left open, the parser's time grows with each line feed.
  if (text.length > FILTER_MAX_LENGTH) throw invalidFilter(`A filter holds at most ${FILTER_MAX_LENGTH} characters`)
  if (/\p{Cc}/u.test(text)) throw invalidFilter('A filter holds no control character')
  const tooDeep = invalidFilter(`Parentheses and not nest at most ${FILTER_MAX_DEPTH} deep in a filter`)
  if (bracketDepth(text) > FILTER_MAX_DEPTH) throw tooDeep
  let filter: Filter
  try {
    filter = parse(text)
  } catch {
    throw invalidFilter('The filter cannot be read (RFC 7644 §3.4.2.2)')
  }
  if (notDepth(filter) > FILTER_MAX_DEPTH) throw tooDeep
  return filter
}

/** How deep parentheses and brackets nest in a filter's text, those of its quoted values aside. */
function bracketDepth(text: string): number {
  let depth = 0
  let deepest = 0
  let quoted = false
  for (let at = 0; at < text.length; at++) {
    const char = text[at]
    if (quoted) {
      if (char === '\\') at++
      else if (char === '"') quoted = false
    } else if (char === '"') quoted = true
    else if (char === '(' || char === '[') deepest = Math.max(deepest, ++depth)
    else if (char === ')' || char === ']') depth--
  }
  return deepest
}

/** How many `not` a parsed filter holds one within another (the parser takes `not` without parentheses too). */
function notDepth(filter: Filter): number {
  switch (filter.op) {
    case 'and':
    case 'or':
      return Math.max(...filter.filters.map(notDepth))
    case 'not':
      return 1 + notDepth(filter.filter)
    case '[]':
      return notDepth(filter.valFilter)
    default:
      return 0
  }
}

/** The filter as SQL on the columns `attributes` names (users' by default). */
export function filterSql(text: string, attributes: Record<string, Column> = USER_ATTRIBUTES): Expression<SqlBool> {
  return toSql(parsedFilter(text), { comparisons: 0, attributes }, null)
}

/**
 * The filter as the text of its SQL, a `?` in each value's place, and its values: what keys a statement
 * compiled once per filter's form (db/client.ts `prepared`), each client's values bound to it.
 */
export type FilterForm = { text: string; values: unknown[] }

export function filterForm(db: DB, text: string, attributes: Record<string, Column> = USER_ATTRIBUTES): FilterForm {
  const { sql: compiled, parameters } = sql<SqlBool>`${filterSql(text, attributes)}`.compile(db)
  return { text: compiled, values: [...parameters] }
}

/** A filter's SQL again, from its form and the value (or a prepared statement's marker) of each `?` by its index. */
export function fromForm(text: string, valueAt: (index: number) => unknown): Expression<SqlBool> {
  const parts = text.split('?')
  const values = parts.slice(1).map((_, index) => valueAt(index))
  return sql<SqlBool>`(${sql<SqlBool>(Object.assign(parts, { raw: parts }), ...values)})`
}

const utf8 = new TextEncoder()
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

type Walk = { comparisons: number; attributes: Record<string, Column> }

function toSql(filter: Filter, counter: Walk, within: string | null): Expression<SqlBool> {
  switch (filter.op) {
    case 'and':
    case 'or':
      return sql<SqlBool>`(${sql.join(
        filter.filters.map((part) => toSql(part, counter, within)),
        filter.op === 'and' ? sql` and ` : sql` or `,
      )})`
    case 'not':
      return sql<SqlBool>`(not coalesce(${toSql(filter.filter, counter, within)}, 0))`
    case '[]': {
      // A value path on the one multi-valued attribute held: the user's single mail, of type work and primary.
      const attribute = attributeName(filter.attrPath)
      if (attribute !== 'emails' || !counter.attributes.emails)
        throw invalidFilter(`No value filter on ${filter.attrPath}`)
      return toSql(filter.valFilter, counter, 'emails')
    }
    default:
      break
  }
  counter.comparisons += 1
  if (counter.comparisons > FILTER_MAX_COMPARISONS) {
    throw invalidFilter(`A filter makes at most ${FILTER_MAX_COMPARISONS} comparisons`)
  }
  const name = within === null ? attributeName(filter.attrPath) : `emails.${attributeName(filter.attrPath)}`
  // Within `emails[…]`, its `type` and `primary` are those of the only address held: work, primary.
  if (counter.attributes.emails && (name === 'emails.type' || name === 'emails.primary')) {
    const held = name === 'emails.type' ? 'work' : true
    return constant(filter, held)
  }
  const column = counter.attributes[name]
  if (!column) throw invalidFilter(`Unknown or unfilterable attribute: ${filter.attrPath}`)
  if (filter.op === 'pr') return sql<SqlBool>`(${column.sql} is not null and ${column.sql} <> '')`
  return compare(column, filter.op, filter.compValue, filter.attrPath)
}

/** A comparison with a value the portal knows without reading (an address's type, its primary flag). */
function constant(filter: Exclude<Filter, { op: 'and' | 'or' | 'not' | '[]' }>, held: string | boolean) {
  if (filter.op === 'pr') return sql<SqlBool>`1`
  const value = filter.compValue
  const same = typeof held === 'string' ? typeof value === 'string' && value.toLowerCase() === held : value === held
  if (filter.op === 'eq') return same ? sql<SqlBool>`1` : sql<SqlBool>`0`
  if (filter.op === 'ne') return same ? sql<SqlBool>`0` : sql<SqlBool>`1`
  throw invalidFilter(`${filter.op} does not apply to ${filter.attrPath}`)
}

function compare(
  column: Column,
  op: 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'gt' | 'lt' | 'ge' | 'le',
  value: boolean | null | number | string,
  path: string,
): Expression<SqlBool> {
  if (column.kind === 'boolean') {
    if (typeof value !== 'boolean' || (op !== 'eq' && op !== 'ne')) {
      throw invalidFilter(`${path} is compared with eq or ne to true or false`)
    }
    return op === (value ? 'eq' : 'ne') ? sql<SqlBool>`${column.sql}` : sql<SqlBool>`(not ${column.sql})`
  }
  if (column.kind === 'id') {
    const id = typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : null
    if (op !== 'eq' && op !== 'ne') throw invalidFilter(`${path} is compared with eq or ne`)
    if (id === null) return op === 'eq' ? sql<SqlBool>`0` : sql<SqlBool>`1`
    return op === 'eq' ? sql<SqlBool>`(${column.sql} = ${id})` : sql<SqlBool>`(${column.sql} <> ${id})`
  }
  if (typeof value !== 'string') throw invalidFilter(`${path} is compared with a string`)
  if (column.kind === 'instant') {
    if (Number.isNaN(Date.parse(value))) throw invalidFilter(`${path} is compared with a date and time`)
    const instant = new Date(value).toISOString()
    const operator = { eq: '=', ne: '<>', gt: '>', ge: '>=', lt: '<', le: '<=' }[op as 'eq']
    if (!operator) throw invalidFilter(`${op} does not apply to ${path}`)
    return sql<SqlBool>`(${column.sql} ${sql.raw(operator)} ${instant})`
  }
  // Strings: userName, names and mail whatever their case (SCIM's caseExact false); externalId exactly.
  const collate = column.kind === 'text' ? sql` collate nocase` : sql``
  if (op === 'co' || op === 'sw' || op === 'ew') {
    if (utf8.encode(escapeLike(value)).length > PATTERN_MAX_BYTES) {
      throw invalidFilter(`A ${op} value holds at most ${PATTERN_MAX_BYTES} bytes`)
    }
    const pattern = `${op === 'sw' ? '' : '%'}${escapeLike(value)}${op === 'ew' ? '' : '%'}`
    // LIKE ignores the case of ASCII letters: an exact attribute is compared again exactly.
    const like = sql<SqlBool>`(${column.sql} like ${pattern} escape '\\')`
    if (column.kind === 'text') return like
    return sql<SqlBool>`(${like} and instr(${column.sql}, ${value}) > 0)`
  }
  const operator = { eq: '=', ne: '<>', gt: '>', ge: '>=', lt: '<', le: '<=' }[op]
  if (op === 'ne') return sql<SqlBool>`(${column.sql} is null or ${column.sql}${collate} <> ${value})`
  return sql<SqlBool>`(${column.sql}${collate} ${sql.raw(operator)} ${value})`
}
