import { createRoute, z } from '@hono/zod-openapi'
import { pageQuery } from '../../contract/common'
import { todayIso } from '../../contract/dates'
import {
  clientLogSchema,
  logEntrySchema,
  logExportQuery,
  logListQuery,
  logSearchInput,
} from '../../contract/history/logs'
import { logSearchSchema, SEARCH_KEPT_HOURS, SEARCH_MAX_ROWS, SEARCH_RUNNING_MAX } from '../../contract/history/search'
import { router } from '../../lib/validation'
import { writeClientLog } from '../../services/core/client-log'
import { readSearch, searchEntries, startSearch } from '../../services/history/archive-search'
import { listLogs } from '../../services/history/logs'
import { exportLogs, exportSearch } from '../../services/history/logs-export'
import { csv, csvFile, errors, json, jsonBody, totalCount } from '../openapi'

/** A search of the archive by its id (random, 24 characters). */
const searchIdParam = z.object({
  id: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .describe('The search'),
})
const searchPageQuery = z.object({ page: pageQuery.page, taille: pageQuery.taille })

/** The header of a list whose range reaches archived months: 'first/last' (YYYY-MM). */
const archivedMonths = (archived: { first: string; last: string } | null): Record<string, string> =>
  archived ? { 'X-Archived-Months': `${archived.first}/${archived.last}` } : {}

/**
 * The audit history (spec §2 admin/listeLogs, §7, DESIGN §8): what a client reports, and the
 * administrators' reading of their scope's entries, as a list or as a CSV file.
 */
export const logRoutes = router()
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/bd/logs/',
      tags: ['History'],
      summary:
        "Report an action of the caller (a log type, or an application's name: its type by spec §9); kept as reported by the client; 60 a minute per user, then 429 TOO_MANY_ATTEMPTS",
      security: [{ bearer: [] }],
      request: { body: jsonBody(clientLogSchema) },
      responses: { 201: json(z.object({ id: z.number().int() }), 'Recorded'), ...errors(400, 401, 429) },
    }),
    async (c) => c.json(await writeClientLog(c.var.ctx, c.get('caller'), c.req.valid('json')), 201),
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/logs/',
      tags: ['History'],
      summary:
        "The entries of the users in the caller's scope kept in the database, newest first, in a range of days (yyyyMMdd, inclusive, Paris time); with page, one page (total in X-Total-Count). A range reaching archived months says so in X-Archived-Months (first/last, YYYY-MM): POST rest/bd/logs/recherches searches them",
      security: [{ bearer: [] }],
      request: { query: logListQuery },
      responses: { 200: json(z.array(logEntrySchema), 'Entries'), ...errors(400, 401, 403) },
    }),
    async (c) => {
      const { items, total, archived } = await listLogs(c.var.ctx, c.get('caller'), c.req.valid('query'))
      return c.json(items, 200, { ...totalCount(total), ...archivedMonths(archived) })
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/logs/export',
      tags: ['History'],
      summary:
        "The list's entries (same filters, every page) as CSV in UTF-8 with a byte order mark, in the caller's language, streamed; then those of the archived months of the range, read from R2 file by file (each checked against its checksum). The export is itself recorded",
      security: [{ bearer: [] }],
      request: { query: logExportQuery },
      responses: {
        200: csv,
        ...errors(400, 401, 403),
      },
    }),
    async (c) => {
      const stream = await exportLogs(c.var.ctx, c.get('caller'), c.req.valid('query'))
      // The organisation's day, as the history's own days are (a UTC day is yesterday after midnight).
      const day = todayIso()
      return c.body(stream, 200, csvFile(`historique-${day}.csv`))
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/bd/logs/recherches',
      tags: ['History'],
      summary: `Search the archived months of a range (the list's filters; no dates: every month) in the background: 202 with the search, its progress at GET …/recherches/{id}, its entries kept ${SEARCH_KEPT_HOURS} h (at most ${SEARCH_MAX_ROWS}, newest first). ${SEARCH_RUNNING_MAX} running at once per caller, then 429 TOO_MANY_ATTEMPTS`,
      security: [{ bearer: [] }],
      request: { body: jsonBody(logSearchInput) },
      responses: {
        202: json(logSearchSchema, 'Started (or done, with no archived month in the range)'),
        ...errors(400, 401, 403, 429, 503),
      },
    }),
    async (c) => c.json(await startSearch(c.var.ctx, c.get('caller'), c.req.valid('json')), 202),
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/logs/recherches/{id}',
      tags: ['History'],
      summary: "Where the caller's search of the archive stands (404 for another's, or once no longer kept)",
      security: [{ bearer: [] }],
      request: { params: searchIdParam },
      responses: { 200: json(logSearchSchema, 'The search'), ...errors(401, 403, 404) },
    }),
    async (c) => c.json(await readSearch(c.var.ctx, c.get('caller'), c.req.valid('param').id), 200),
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/logs/recherches/{id}/entrees',
      tags: ['History'],
      summary:
        'A page of the entries the search found so far, newest first (total in X-Total-Count); each as it was when archived',
      security: [{ bearer: [] }],
      request: { params: searchIdParam, query: searchPageQuery },
      responses: { 200: json(z.array(logEntrySchema), 'Entries'), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const { items, total } = await searchEntries(
        c.var.ctx,
        c.get('caller'),
        c.req.valid('param').id,
        c.req.valid('query'),
      )
      return c.json(items, 200, totalCount(total))
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/logs/recherches/{id}/export',
      tags: ['History'],
      summary: "The entries the search found, as the history's CSV (streamed)",
      security: [{ bearer: [] }],
      request: { params: searchIdParam },
      responses: { 200: csv, ...errors(401, 403, 404) },
    }),
    async (c) => {
      const stream = await exportSearch(c.var.ctx, c.get('caller'), c.req.valid('param').id)
      return c.body(stream, 200, csvFile(`historique-archive-${todayIso()}.csv`))
    },
  )
