/**
 * The folding of names for search (the user list: first and last names whatever their case and
 * accents). The `recherche` column of `utilisateur` holds "nom prenom" folded by the same table in SQL
 * (migration 0009's triggers), so a searched word folded here finds it with a plain `like`.
 */
const FOLDS: [letters: string, base: string][] = [
  ['àáâãäåÀÁÂÃÄÅ', 'a'],
  ['çÇ', 'c'],
  ['èéêëÈÉÊË', 'e'],
  ['ìíîïÌÍÎÏ', 'i'],
  ['ñÑ', 'n'],
  ['òóôõöøÒÓÔÕÖØ', 'o'],
  ['ùúûüÙÚÛÜ', 'u'],
  ['ýÿÝŸ', 'y'],
  ['œŒ', 'oe'],
  ['æÆ', 'ae'],
  ['ß', 'ss'],
]

const BASE = new Map(FOLDS.flatMap(([letters, base]) => [...letters].map((letter) => [letter, base] as const)))

/** Folds like the column: the table's letters to their base, then ASCII letters to lower case (SQLite's `lower`). */
export function foldSearchText(text: string): string {
  return [...text]
    .map((c) => BASE.get(c) ?? c)
    .join('')
    .replace(/[A-Z]/g, (c) => c.toLowerCase())
}

/**
 * How many words of a search are looked for; the rest are ignored. Each is bound once in a statement
 * that holds others values besides, and D1 binds at most 100 values a statement.
 */
export const SEARCH_WORDS = 6

/** D1 refuses a LIKE pattern of more than 50 bytes (UTF-8); a searched text's takes two `%` more. */
const LIKE_PATTERN_BYTES = 50

const utf8 = new TextEncoder()

/** `%`, `_` and `\` typed in a search match themselves. */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

/**
 * The longest beginning of `text` (whole characters) whose LIKE pattern D1 accepts, so that a text
 * past the limit is searched by its first 48 bytes (24 accented letters, fewer escaped characters).
 * Control characters are dropped: no name holds one, and a search across several columns joins them
 * with a line feed (`containsText`).
 */
function searchable(text: string): string {
  let room = LIKE_PATTERN_BYTES - 2
  let kept = ''
  for (const character of text.replace(/\p{Cc}/gu, '')) {
    const bytes = utf8.encode(escapeLike(character)).length
    if (bytes > room) break
    room -= bytes
    kept += character
  }
  return kept
}

/** The LIKE pattern (`escape '\'`) finding `text` anywhere, within D1's limit (`searchable`). */
export const likePattern = (text: string) => `%${escapeLike(searchable(text))}%`

/**
 * The words of a search, folded: a user matches when their folded names contain each of them. The
 * first `SEARCH_WORDS` only, each cut to what a LIKE pattern may hold (`searchable`): D1's limits are
 * met here, before any statement, whatever the search box held.
 */
export const searchWords = (text: string) =>
  foldSearchText(text).split(/\s+/).map(searchable).filter(Boolean).slice(0, SEARCH_WORDS)
