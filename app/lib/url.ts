/** The search params lists share: what is searched, how it is sorted, which page (state lives in the URL). */
export const SEARCH_PARAM = 'q'
export const SORT_PARAM = 'tri'
export const PAGE_PARAM = 'page'

/**
 * The current search string with some params changed, as a link that stays on the current path: a
 * string sets the param (replacing every value it had), `null` removes it, the others keep their order.
 * With nothing left it gives `?`, which a `<Link>` resolves to the bare path.
 * @example urlWith('?q=du&page=3', { tri: '-nom', page: null }) // '?q=du&tri=-nom'
 */
export function urlWith(search: URLSearchParams | string, changes: Record<string, string | null>): string {
  // A copy: the URLSearchParams given (often a hook's) is never changed.
  const params = new URLSearchParams(search)
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) params.delete(name)
    else params.set(name, value)
  }
  return `?${params.toString()}`
}

/** A search box's text from the URL or a posted form (`q` unless named), trimmed, at most 100 characters as the API takes. */
export function readSearch(params: URLSearchParams | FormData, name = SEARCH_PARAM): string {
  const value = params.get(name)
  return typeof value === 'string' ? value.trim().slice(0, 100) : ''
}

/** Where a form that was posted to `url` leads back: the same path and params, less `names`. */
export function pathWithout(url: string, names: string[]): string {
  const back = new URL(url)
  for (const name of names) back.searchParams.delete(name)
  return `${back.pathname}${back.search}`
}

export type Sort<Key extends string = string> = { key: Key; descending: boolean }

/**
 * Reads a sort param (`nom`, or `-nom` for descending) against the keys a list can sort by, so that a
 * loader never passes an unknown column to the API; anything else gives the fallback.
 * @example readSort(url.searchParams.get(SORT_PARAM), ['nom', 'date'], { key: 'nom', descending: false })
 */
export function readSort<Key extends string>(
  value: string | null,
  keys: readonly Key[],
  fallback: Sort<Key> | null = null,
): Sort<Key> | null {
  if (!value) return fallback
  const descending = value.startsWith('-')
  const key = descending ? value.slice(1) : value
  return (keys as readonly string[]).includes(key) ? { key: key as Key, descending } : fallback
}

/** The sort param a column header links to: ascending first, then each click flips the direction. */
export function nextSort(current: string | null, key: string): string {
  return current === key ? `-${key}` : key
}

/** How the list is sorted by this column now, for `aria-sort` (nothing when it is sorted by another). */
export function sortDirection(current: string | null, key: string): 'ascending' | 'descending' | undefined {
  if (current === key) return 'ascending'
  if (current === `-${key}`) return 'descending'
  return undefined
}
