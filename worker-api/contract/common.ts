import { z } from 'zod'

export const errorSchema = z.object({
  businessCode: z.string(),
  message: z.string(),
  attributs: z.array(z.unknown()),
})

export const json = <T extends z.ZodType>(schema: T, description: string) => ({
  content: { 'application/json': { schema } },
  description,
})

/** The error responses every route may give, for the OpenAPI description. */
export const errors = (...statuses: (400 | 401 | 403 | 404 | 409 | 410 | 429)[]) =>
  Object.fromEntries(statuses.map((status) => [status, json(errorSchema, 'Error (DESIGN §2)')]))
