import { SCIM_LIST, SCIM_MAX_RESULTS, type ScimListQuery, type ScimListResponse } from '../../../contract/machines/scim'
import { invalidValue } from './errors'

/** A whole number of the query (`startIndex`, `count`), or the default; anything else is 400 invalidValue. */
function wholeNumber(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback
  if (!/^-?\d{1,9}$/.test(value)) throw invalidValue(`${name} is a whole number`)
  return Number(value)
}

/** A list's window (RFC 7644 §3.4.2.4): `startIndex` from 1, `count` up to `SCIM_MAX_RESULTS`, and the order. */
export function scimWindow(query: ScimListQuery) {
  return {
    startIndex: Math.max(1, wholeNumber(query.startIndex, 1, 'startIndex')),
    count: Math.min(SCIM_MAX_RESULTS, Math.max(0, wholeNumber(query.count, SCIM_MAX_RESULTS, 'count'))),
    order: (query.sortOrder ?? 'ascending').toLowerCase() === 'descending' ? ('desc' as const) : ('asc' as const),
  }
}

/** A ListResponse (RFC 7644 §3.4.2). */
export const listResponse = <R>(
  resources: R[],
  totalResults = resources.length,
  startIndex = 1,
): ScimListResponse<R> => ({
  schemas: [SCIM_LIST],
  totalResults,
  startIndex,
  itemsPerPage: resources.length,
  Resources: resources,
})

/** A ListResponse whose resources are JSON texts already (a page of users as SQLite wrote them). */
export function listText(resources: string[], totalResults: number, startIndex: number): string {
  const head = JSON.stringify({
    schemas: [SCIM_LIST],
    totalResults,
    startIndex,
    itemsPerPage: resources.length,
  } satisfies Omit<ScimListResponse<never>, 'Resources'>)
  return `${head.slice(0, -1)},"Resources":[${resources.join(',')}]}`
}
