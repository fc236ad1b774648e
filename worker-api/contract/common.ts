import { z } from 'zod'
import { errorSchema } from './errors'

/** A positive integer in a path or a query: the client passes a number, the URL carries its digits. */
export const positiveInt = () => z.coerce.number<number>().int().positive()

export const json = <T extends z.ZodType>(schema: T, description: string) => ({
  content: { 'application/json': { schema } },
  description,
})

/** The error responses every route may give, for the OpenAPI description. */
export const errors = (...statuses: (400 | 401 | 403 | 404 | 409 | 410 | 429)[]) =>
  Object.fromEntries(statuses.map((status) => [status, json(errorSchema, 'Error (DESIGN §2)')]))
