import { createRoute, z } from '@hono/zod-openapi'
import { todayIso } from '../../contract/dates'
import { clientLogSchema, logEntrySchema, logExportQuery, logListQuery } from '../../contract/history/logs'
import { router } from '../../lib/validation'
import { writeClientLog } from '../../services/core/client-log'
import { listLogs } from '../../services/history/logs'
import { exportLogs } from '../../services/history/logs-export'
import { csv, csvFile, errors, json, jsonBody, totalCount } from '../openapi'

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
        "The entries of the users in the caller's scope, newest first, in a range of days (yyyyMMdd, inclusive, Paris time); with page, one page (total in X-Total-Count)",
      security: [{ bearer: [] }],
      request: { query: logListQuery },
      responses: { 200: json(z.array(logEntrySchema), 'Entries'), ...errors(400, 401, 403) },
    }),
    async (c) => {
      const { items, total } = await listLogs(c.var.ctx, c.get('caller'), c.req.valid('query'))
      return c.json(items, 200, totalCount(total))
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/logs/export',
      tags: ['History'],
      summary:
        "The list's entries (same filters, every page) as CSV in UTF-8 with a byte order mark, in the caller's language, streamed; the export is itself recorded",
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
