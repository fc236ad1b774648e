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

/** The words of a search, folded: a user matches when their folded names contain each of them. */
export const searchWords = (text: string) => foldSearchText(text).split(/\s+/).filter(Boolean)
