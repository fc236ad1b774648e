import { createRoute, z } from '@hono/zod-openapi'
import {
  DECISIONS_ALL_MAX,
  DECISIONS_MAX,
  reviewDecideAllResultSchema,
  reviewDecideAllSchema,
  reviewDecisionsResultSchema,
  reviewDecisionsSchema,
  reviewDetailQuery,
  reviewIdParam,
  reviewInputSchema,
  reviewItemSchema,
  reviewItemsQuery,
  reviewListQuery,
  reviewPageSchema,
  reviewSchema,
} from '../../contract/governance/access-reviews'
import { router } from '../../lib/validation'
import { decideAll, decideItems } from '../../services/governance/review-decisions'
import { reviewItems, reviewPage } from '../../services/governance/review-items'
import { reviewReport } from '../../services/governance/review-report'
import { closeReview, createReview, listReviews, reviewDetail } from '../../services/governance/reviews'
import { csv, csvFile, errors, json, jsonBody, totalCount } from '../openapi'

/**
 * Access reviews: an administrator opens a campaign over a sub-tree of their scope; the administrators who manage each
 * structure confirm or end its current posts until the due date, when the posts nobody reviewed are kept or ended as
 * the campaign said; closed, its report stays.
 */
export const accessReviewRoutes = router()
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/bd/revue',
      tags: ['Access reviews'],
      summary:
        'Open a campaign over the sub-tree of a structure of the caller’s scope: every current post becomes an item (written in the background); due after today, within a year',
      security: [{ bearer: [] }],
      request: { body: jsonBody(reviewInputSchema) },
      responses: { 201: json(z.object({ id: z.number().int() }), 'The campaign'), ...errors(400, 401, 403) },
    }),
    async (c) => c.json(await createReview(c.var.ctx, c.get('caller'), c.req.valid('json')), 201),
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/revue',
      tags: ['Access reviews'],
      summary:
        'The campaigns the caller sees (over or within their scope), newest first, with their progress in the caller’s scope; with page, one page (total in X-Total-Count)',
      security: [{ bearer: [] }],
      request: { query: reviewListQuery },
      responses: { 200: json(z.array(reviewSchema), 'Campaigns'), ...errors(400, 401, 403) },
    }),
    async (c) => {
      const { items, total } = await listReviews(c.var.ctx, c.get('caller'), c.req.valid('query'))
      return c.json(items, 200, totalCount(total))
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/revue/{id}',
      tags: ['Access reviews'],
      summary:
        'A campaign, with its progress per structure of the caller’s scope; with elements=N, a page of N of its items and their total too (page, structure, etat and q as …/elements)',
      security: [{ bearer: [] }],
      request: { params: reviewIdParam, query: reviewDetailQuery },
      responses: { 200: json(reviewPageSchema, 'The campaign'), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const { ctx } = c.var
      const id = c.req.valid('param').id
      const query = c.req.valid('query')
      const { elements } = query
      return c.json(
        elements === undefined
          ? await reviewDetail(ctx, c.get('caller'), id)
          : await reviewPage(ctx, c.get('caller'), id, { ...query, elements }),
        200,
      )
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/revue/{id}/elements',
      tags: ['Access reviews'],
      summary:
        'The items of the caller’s scope, by structure, those to review first; filtered by structure and state, searched; with page, one page (total in X-Total-Count)',
      security: [{ bearer: [] }],
      request: { params: reviewIdParam, query: reviewItemsQuery },
      responses: { 200: json(z.array(reviewItemSchema), 'Items'), ...errors(400, 401, 403, 404) },
    }),
    async (c) => {
      const { items, total } = await reviewItems(
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
      method: 'post',
      path: '/rest/bd/revue/{id}/decisions',
      tags: ['Access reviews'],
      summary: `Confirm or end items of the caller’s scope (${DECISIONS_MAX} at most; an ended post ends on dateFin, today by default), never the caller’s own post; those decided meanwhile are in dejaDecides (409 REVUE_DEJA_DECIDEE when none was decided)`,
      security: [{ bearer: [] }],
      request: { params: reviewIdParam, body: jsonBody(reviewDecisionsSchema) },
      responses: { 200: json(reviewDecisionsResultSchema, 'The decisions'), ...errors(400, 401, 403, 404, 409) },
    }),
    async (c) =>
      c.json(await decideItems(c.var.ctx, c.get('caller'), c.req.valid('param').id, c.req.valid('json')), 200),
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/bd/revue/{id}/decisions/tous',
      tags: ['Access reviews'],
      summary: `Confirm or end every item still to review of the caller’s scope that structure and q keep (as …/elements filters them), ${DECISIONS_ALL_MAX} at most a call, never the caller’s own post nor, to end it, a user they do not manage; restants counts those the filters keep still to review`,
      security: [{ bearer: [] }],
      request: { params: reviewIdParam, body: jsonBody(reviewDecideAllSchema) },
      responses: { 200: json(reviewDecideAllResultSchema, 'The decisions'), ...errors(400, 401, 403, 404, 409) },
    }),
    async (c) => c.json(await decideAll(c.var.ctx, c.get('caller'), c.req.valid('param').id, c.req.valid('json')), 200),
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/rest/bd/revue/{id}/cloture',
      tags: ['Access reviews'],
      summary:
        'Close a campaign (an administrator of its structure) once every item is decided or its due date applied (409 REVUE_INCOMPLETE before)',
      security: [{ bearer: [] }],
      request: { params: reviewIdParam },
      responses: { 204: { description: 'Closed' }, ...errors(400, 401, 403, 404, 409) },
    }),
    async (c) => {
      await closeReview(c.var.ctx, c.get('caller'), c.req.valid('param').id)
      return c.body(null, 204)
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/rest/bd/revue/{id}/rapport.csv',
      tags: ['Access reviews'],
      summary:
        'The report of the caller’s scope as CSV (UTF-8 with a byte order mark, in the caller’s language): who confirmed or ended which post, when and why',
      security: [{ bearer: [] }],
      request: { params: reviewIdParam },
      responses: {
        200: csv,
        ...errors(400, 401, 403, 404),
      },
    }),
    async (c) => {
      const id = c.req.valid('param').id
      const stream = await reviewReport(c.var.ctx, c.get('caller'), id)
      return c.body(stream, 200, csvFile(`revue-${id}.csv`))
    },
  )
