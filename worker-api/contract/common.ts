import { z } from 'zod'
import { fromWireDate } from './dates'

/** A positive integer in a path or a query: the client passes a number, the URL carries its digits. */
export const positiveInt = () => z.coerce.number<number>().int().positive()

/** A reference to another object by its id (`{id}`), as the spec's payloads carry them. */
export const ref = z.object({ id: positiveInt() })

/** A choice a form posts as an id (a select): required, a positive integer. */
export const requiredId = () =>
  z.coerce.number<number>('validation.required').int('validation.required').positive('validation.required')

/** The optional paging, search and sort of a list call (DESIGN §1): one page of the same array. */
export const pageQuery = {
  page: positiveInt().optional().describe('1-based page; with it the answer is one page, the total in X-Total-Count'),
  taille: positiveInt().max(100).optional().describe('Items per page (default 10)'),
  q: z
    .string()
    .trim()
    .max(100)
    .optional()
    .describe('Search text; its first 6 words, or its text, looked for by their first 48 bytes (UTF-8)'),
}

/** A date as the spec's forms and payloads write it, 'dd/MM/yyyy', that exists on the calendar. */
export const wireDateSchema = z
  .string('validation.required')
  .trim()
  // An empty date is missing, not also malformed: one message per problem.
  .min(1, { message: 'validation.required', abort: true })
  .refine((value) => fromWireDate(value) !== null, 'validation.date')
  .describe('dd/MM/yyyy')

/** `schema` with its `dateDebut`–`dateFin` pair in order (the end on or after the start), else an error on `dateFin`. */
export const datesInOrder = <T extends z.ZodType<{ dateDebut: string; dateFin: string }>>(schema: T) =>
  schema.refine(({ dateDebut, dateFin }) => (fromWireDate(dateDebut) ?? '') <= (fromWireDate(dateFin) ?? ''), {
    message: 'validation.dateRange',
    path: ['dateFin'],
  })

/** An application as a launcher shows it. */
export const applicationSchema = z.object({ id: z.number().int(), libelle: z.string(), icone: z.string() })
export type ApplicationSummary = z.infer<typeof applicationSchema>
