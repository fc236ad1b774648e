import { createRoute, z } from '@hono/zod-openapi'
import {
  IMPORT_MAX_BYTES,
  IMPORT_MAX_ROWS,
  IMPORT_TYPES,
  importIdParam,
  importLaunchSchema,
  importPreviewSchema,
  importStartQuery,
  importStatusQuery,
  importStatusSchema,
  PREVIEW_CHANGES_LISTED,
  STATUS_ERRORS_LISTED,
} from '../../contract/bulk/bulk'
import { todayIso } from '../../contract/dates'
import { router } from '../../lib/validation'
import { exportOrganisation } from '../../services/bulk/export'
import { previewImport } from '../../services/bulk/preview'
import { importErrorsFile, importStatus, listImports } from '../../services/bulk/status'
import { launchImport, startImport } from '../../services/bulk/upload'
import { csv, csvFile, errors, json, jsonBody } from '../openapi'

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
      summary: `A file (CSV, up to ${IMPORT_MAX_ROWS} rows and ${IMPORT_MAX_BYTES / 1024 / 1024} MiB) into the caller's scope. With essai=true, the preview: what each row would do and, of a users file, which existing users it renames, readdresses, makes or unmakes administrator, deactivates or reactivates, nothing written (200). Without, the import runs in the background (202 {id}; its progress: GET import/{id}); a file refused whole (not text, no header, a wrong one, one past 64 KiB, too many rows or blank lines) is 400 VALIDATION_FAILED`,
      security: [{ bearer: [] }],
      request: {
        query: importStartQuery,
        body: { content: { 'text/csv': { schema: z.string() } }, required: true },
      },
      responses: {
        200: json(importPreviewSchema, 'What the import would do'),
        202: json(z.object({ id: z.number().int() }), 'The import, started'),
        ...errors(400, 401, 403, 413),
      },
    }),
    async (c) => {
      const { type, essai, conserver, invitation, fichier } = c.req.valid('query')
      const body = c.req.raw.body
      const name = fichier || 'import.csv'
      if (essai === 'true') {
        const keep = conserver === 'true' ? { fichier: name } : null
        return c.json(await previewImport(c.var.ctx, c.get('caller'), type, body, keep), 200)
      }
      const request = { type, invitation: invitation === 'true', fichier: name }
      return c.json(await startImport(c.var.ctx, c.get('caller'), request, body), 202)
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: IMPORT_PATH,
      tags: ['Import'],
      summary: "The caller's latest imports, newest first, with their counts",
      security: [{ bearer: [] }],
      responses: { 200: json(z.array(importStatusSchema), 'Imports'), ...errors(401, 403) },
    }),
    async (c) => c.json(await listImports(c.var.ctx, c.get('caller')), 200),
  )
  .openapi(
    createRoute({
      method: 'get',
      path: `${IMPORT_PATH}/{id}`,
      tags: ['Import'],
      summary: `An import of the caller (or a kept preview): its state, counts, a page of ${STATUS_ERRORS_LISTED} errors, the time left and, a kept preview, the first ${PREVIEW_CHANGES_LISTED} changes of existing users`,
      security: [{ bearer: [] }],
      request: { params: importIdParam, query: importStatusQuery },
      responses: { 200: json(importStatusSchema, 'The import'), ...errors(400, 401, 403, 404) },
    }),
    async (c) =>
      c.json(await importStatus(c.var.ctx, c.get('caller'), c.req.valid('param').id, c.req.valid('query').page), 200),
  )
  .openapi(
    createRoute({
      method: 'post',
      path: `${IMPORT_PATH}/{id}/lancement`,
      tags: ['Import'],
      summary:
        'A preview the caller kept (conserver=true), imported in the background (202); once only: 409 IMPORT_ALREADY_STARTED',
      security: [{ bearer: [] }],
      request: { params: importIdParam, body: jsonBody(importLaunchSchema) },
      responses: {
        202: json(z.object({ id: z.number().int() }), 'The import, started'),
        ...errors(400, 401, 403, 404, 409),
      },
    }),
    async (c) => {
      const { id } = c.req.valid('param')
      const { invitation } = c.req.valid('json')
      return c.json(await launchImport(c.var.ctx, c.get('caller'), id, invitation === true), 202)
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: `${IMPORT_PATH}/{id}/erreurs.csv`,
      tags: ['Import'],
      summary: "An import's errors (line, column, message in the caller's language) as CSV, streamed",
      security: [{ bearer: [] }],
      request: { params: importIdParam },
      responses: {
        200: csv,
        ...errors(400, 401, 403, 404),
      },
    }),
    async (c) => {
      const id = c.req.valid('param').id
      const stream = await importErrorsFile(c.var.ctx, c.get('caller'), id)
      return c.body(stream, 200, csvFile(`import-${id}-erreurs.csv`))
    },
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
        200: csv,
        ...errors(400, 401, 403),
      },
    }),
    async (c) => {
      const fichier = c.req.valid('param').fichier
      const type = fichier === 'structures.csv' ? 'structures' : 'utilisateurs'
      const stream = await exportOrganisation(c.var.ctx, c.get('caller'), type)
      return c.body(stream, 200, csvFile(`${type}-${todayIso()}.csv`))
    },
  )
