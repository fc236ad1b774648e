import { DEFAULT_PAGE_SIZE } from '../../worker-api/contract/base'
import { readSearch } from './url'

/** Spec: 10 items per page by default (the API's default too), 5 page links shown. */
export { DEFAULT_PAGE_SIZE }
export const PAGES_SHOWN = 5

/** How many pages `total` items fill (0 for none). */
export function pageCount(total: number, pageSize = DEFAULT_PAGE_SIZE): number {
  return total > 0 && pageSize > 0 ? Math.ceil(total / pageSize) : 0
}

/**
 * `shown` consecutive page numbers centred on `page`, shifted to stay within 1…pageCount.
 * @example pageWindow(1, 10) // [1, 2, 3, 4, 5]
 * @example pageWindow(6, 10) // [4, 5, 6, 7, 8]
 */
export function pageWindow(page: number, pageCount: number, shown = PAGES_SHOWN): number[] {
  if (pageCount < 1 || shown < 1) return []
  const current = Math.min(Math.max(1, Math.trunc(page) || 1), pageCount)
  const size = Math.min(shown, pageCount)
  const start = Math.min(Math.max(1, current - Math.floor(size / 2)), pageCount - size + 1)
  return Array.from({ length: size }, (_, index) => start + index)
}

/**
 * The `page` param as a page number: a positive integer, else 1. A page past the end is the loader's
 * to clamp once it knows the total.
 */
export function readPage(value: string | null): number {
  return value && /^[1-9]\d{0,8}$/.test(value) ? Number(value) : 1
}

/**
 * A paged list's query as its URL carries it: the page, the page size, and the search text and the
 * sort when they are set (a sort the API does not offer is dropped rather than refused).
 */
export function listQuery<Sort extends string>(params: URLSearchParams, sorts: readonly Sort[]) {
  const q = readSearch(params)
  const tri = params.get('tri')
  return {
    page: readPage(params.get('page')),
    taille: DEFAULT_PAGE_SIZE,
    ...(q ? { q } : {}),
    ...(sorts.includes(tri as Sort) ? { tri: tri as Sort } : {}),
  }
}
