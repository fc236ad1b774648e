import { z } from 'zod'
import { errorSchema } from '../contract/errors'

/** A JSON answer of a route, for its `responses`. */
export const json = <T extends z.ZodType>(schema: T, description: string) => ({
  content: { 'application/json': { schema } },
  description,
})

/** The error answers a route may give (the one error body, DESIGN §2), for its `responses`. */
export const errors = (...statuses: (400 | 401 | 403 | 404 | 409 | 410 | 413 | 429 | 503)[]) =>
  Object.fromEntries(statuses.map((status) => [status, json(errorSchema, 'Error (DESIGN §2)')]))

/** A route's required JSON body, for its `request`: the one way every route declares one. */
export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  content: { 'application/json': { schema } },
  required: true,
})

/** The total of a paged list's answer, in X-Total-Count (none for a list asked without a page). */
export const totalCount = (total: number | null): Record<string, string> =>
  total === null ? {} : { 'X-Total-Count': String(total) }

/** A CSV file a route answers, for its `responses` (the body `csvStream` writes, lib/csv.ts). */
export const csv = { content: { 'text/csv': { schema: z.string() } }, description: 'CSV' }

/** The headers of a CSV file's answer: a download named `name`, never kept by a cache (it is the caller's scope). */
export const csvFile = (name: string) => ({
  'Content-Type': 'text/csv; charset=utf-8',
  'Content-Disposition': `attachment; filename="${name}"`,
  'Cache-Control': 'no-store',
})
