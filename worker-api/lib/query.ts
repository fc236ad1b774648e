import { type Expression, type SqlBool, sql } from 'kysely'
import { DEFAULT_PAGE_SIZE, WHOLE_LIST_MAX } from '../contract/base'
import { BusinessError } from './errors'
import { likePattern, searchWords } from './search-text'

// Query pieces every list shares: search boxes, pages, whole lists.

/**
 * Whether one of `columns` contains `text`, whatever its case (a search box), the text cut to what
 * D1 accepts (`likePattern`).
 */
export const containsText = (columns: (string | Expression<string>)[], text: string): Expression<SqlBool> =>
  containsPattern(columns, likePattern(text))

/**
 * Whether one of `columns` matches a `likePattern`. Several columns are joined by a line feed, which no
 * pattern holds, so that the pattern is bound once and never matches across two of them.
 */
export function containsPattern(columns: (string | Expression<string>)[], pattern: string): Expression<SqlBool> {
  const searched = sql.join(
    columns.map((column) => (typeof column === 'string' ? sql.ref(column) : column)),
    sql` || char(10) || `,
  )
  return sql<SqlBool>`(${searched} like ${pattern} escape '\\')`
}

/** The `likePattern`s of a search box's words (`searchWords`: any case, any accents, its first few within D1's limits). */
export const searchPatterns = (q: string | undefined) => searchWords(q ?? '').map(likePattern)

/** Whether every one of `patterns` (`searchPatterns`) is in one of `columns`; null for none. */
export function containsEveryPattern(columns: string[], patterns: readonly string[]): Expression<SqlBool> | null {
  if (patterns.length === 0) return null
  return sql<SqlBool>`${sql.join(
    patterns.map((pattern) => containsPattern(columns, pattern)),
    sql` and `,
  )}`
}

/**
 * Whether every word of a search box (`searchWords`: any case, any accents, its first few words
 * within D1's limits) is in one of `columns`; null when it holds no word.
 */
export const containsEveryWord = (columns: string[], q: string | undefined) =>
  containsEveryPattern(columns, searchPatterns(q))

export type PageQuery = { page?: number | undefined; taille?: number | undefined }

/** The rows a whole list (no `page`) reads: one more than it may answer, to know when it is too large. */
export const WHOLE_LIST_READ = WHOLE_LIST_MAX + 1

/** A whole list's entries, or 400 LIST_TOO_LARGE past `WHOLE_LIST_MAX` (its client then asks for pages). */
export function wholeList<T>(items: T[]): T[] {
  if (items.length <= WHOLE_LIST_MAX) return items
  throw new BusinessError('LIST_TOO_LARGE', 400, `More than ${WHOLE_LIST_MAX} entries: ask for pages`, [WHOLE_LIST_MAX])
}

/**
 * The rows a list reads (DESIGN §1): a page's when `page` is asked, else a whole list's, one more than it
 * may answer (`WHOLE_LIST_READ`); for the lists that split their read in two (`onePage` for the others).
 */
export function pageWindow({ page, taille }: PageQuery): { size: number; offset: number } {
  if (page === undefined) return { size: WHOLE_LIST_READ, offset: 0 }
  const size = taille ?? DEFAULT_PAGE_SIZE
  return { size, offset: (page - 1) * size }
}

/** One page of a list when `page` is asked (DESIGN §1), else all of it. */
export function onePage<Q extends { limit(n: number): Q; offset(n: number): Q }>(query: Q, asked: PageQuery): Q {
  if (asked.page === undefined) return query
  const { size, offset } = pageWindow(asked)
  return query.limit(size).offset(offset)
}

/**
 * A list's `tri` (a sort key, `-` first for descending; the contract names the keys) as the key and its
 * direction, `fallback` when none is asked.
 */
export function sortOf<T extends string>(
  tri: T | undefined,
  fallback: NoInfer<T>,
): { key: T extends `-${infer K}` ? K : T; direction: 'asc' | 'desc' } {
  const asked: string = tri ?? fallback
  const descending = asked.startsWith('-')
  return {
    key: (descending ? asked.slice(1) : asked) as T extends `-${infer K}` ? K : T,
    direction: descending ? 'desc' : 'asc',
  }
}

/** Whether a write failed on a unique index: two writers raced for one name, and the second lost. */
export const uniqueViolation = (error: unknown) => String(error).includes('UNIQUE constraint failed')

/** Whether a write failed on a foreign key: what it points to was deleted meanwhile, and nothing was written. */
export const foreignKeyViolation = (error: unknown) => String(error).includes('FOREIGN KEY constraint failed')

/** A stored day ('YYYY-MM-DD') column as the API writes it ('dd/MM/yyyy'), in SQL (contract/dates.ts `toWireDate`). */
export const wireDateSql = (column: string) =>
  sql<string>`substr(${sql.ref(column)}, 9, 2) || '/' || substr(${sql.ref(column)}, 6, 2) || '/' || substr(${sql.ref(column)}, 1, 4)`
