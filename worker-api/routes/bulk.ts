import { createRoute, z } from '@hono/zod-openapi'
import { IMPORT_MAX_BYTES, IMPORT_MAX_ROWS, IMPORT_TYPES, importPreviewSchema, importQuery } from '../contract/bulk'
import { todayIso } from '../contract/dates'
import { router } from '../lib/validation'
import { exportOrganisation } from '../services/bulk/export'
import { previewImport } from '../services/bulk/preview'
import { errors, json } from './openapi'

/** Where a file is posted: the one route whose body may exceed a form's bound (app.ts). */
export const IMPORT_PATH = '/rest/bd/import'

/**
 * Moving an organisation in and keeping it in step: the structures and the users of the caller's scope as CSV files
 * in the import's own format, and the preview of importing such a file.
 */
export const bulkRoutes = router()
  .openapi(
    createRoute({
      method: 'post',
      path: IMPORT_PATH,
      tags: ['Import'],
      summary: `With essai=true, what importing the file (CSV, up to ${IMPORT_MAX_ROWS} rows and ${IMPORT_MAX_BYTES / 1024 / 1024} MiB) would do in the caller's scope, row by row, nothing written`,
      security: [{ bearer: [] }],
      request: {
        query: importQuery.extend({ essai: z.literal('true').describe('The preview: nothing is written') }),
        body: { content: { 'text/csv': { schema: z.string() } }, required: true },
      },
      responses: {
        200: json(importPreviewSchema, 'What the import would do'),
        ...errors(400, 401, 403, 413),
      },
    }),
    async (c) =>
      c.json(await previewImport(c.var.ctx, c.get('caller'), c.req.valid('query').type, c.req.raw.body), 200),
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/export/{fichier}',
      tags: ['Import'],
      summary:
        "The caller's scope in the import's format (structures.csv: nom;type;parent; utilisateurs.csv: a row per current or future post), UTF-8 with a byte order mark, in the caller's language, streamed; the export is itself recorded",
      security: [{ bearer: [] }],
      request: {
        params: z.object({ fichier: z.enum(IMPORT_TYPES.map((type) => `${type}.csv` as const)) }),
      },
      responses: {
        200: { content: { 'text/csv': { schema: z.string() } }, description: 'CSV' },
        ...errors(400, 401, 403),
      },
    }),
    async (c) => {
      const fichier = c.req.valid('param').fichier
      const type = fichier === 'structures.csv' ? 'structures' : 'utilisateurs'
      const stream = await exportOrganisation(c.var.ctx, c.get('caller'), type)
      return c.body(stream, 200, {
        'Content-Type': 'text/csv; charset=utf-8',
        'Content-Disposition': `attachment; filename="${type}-${todayIso()}.csv"`,
        'Cache-Control': 'no-store',
      })
    },
  )
