import type { OpenAPIHono } from '@hono/zod-openapi'
import { expect } from 'vitest'
import { z } from 'zod'

/**
 * The OpenAPI document the Worker serves at `/openapi.json`, which the typed client does not cover: the routes
 * describe it, they do not type it. It is read through a schema tied to the type the Worker builds (`doc31`'s,
 * `satisfies`), so a changed document type fails the typecheck, and a document of another shape fails the test where
 * it is read, never a cast. Only the parts the tests read are kept: the rest of each object is dropped.
 */

/** What the Worker serves (`app.doc31`): OpenAPIHono's 3.1 document. */
type WorkerDocument = ReturnType<OpenAPIHono['getOpenAPI31Document']>

/** The JSON types a schema names (OpenAPI 3.1, JSON Schema 2020-12). */
const schemaType = z.enum(['integer', 'number', 'string', 'boolean', 'object', 'null', 'array'])

/** A schema of the document: the keywords the tests read, a `$ref` and the schemas it is made of included. */
export type OpenApiSchema = {
  $ref?: string
  type?: z.infer<typeof schemaType> | z.infer<typeof schemaType>[]
  format?: string
  pattern?: string
  minLength?: number
  maxLength?: number
  enum?: unknown[]
  properties?: Record<string, OpenApiSchema>
  items?: OpenApiSchema
  allOf?: OpenApiSchema[]
  anyOf?: OpenApiSchema[]
  oneOf?: OpenApiSchema[]
}

/** A schema, with the schemas it holds (its type named, not `satisfies`: the schema is recursive). */
const schema: z.ZodType<OpenApiSchema> = z.object({
  $ref: z.string().optional(),
  type: z.union([schemaType, z.array(schemaType)]).optional(),
  format: z.string().optional(),
  pattern: z.string().optional(),
  minLength: z.number().optional(),
  maxLength: z.number().optional(),
  enum: z.array(z.unknown()).optional(),
  get properties() {
    return z.record(z.string(), schema).optional()
  },
  get items() {
    return schema.optional()
  },
  get allOf() {
    return z.array(schema).optional()
  },
  get anyOf() {
    return z.array(schema).optional()
  },
  get oneOf() {
    return z.array(schema).optional()
  },
})

/** A parameter of an operation: in its path, its query, a header or a cookie. */
const parameter = z.object({
  name: z.string(),
  in: z.enum(['path', 'query', 'header', 'cookie']),
  required: z.boolean().optional(),
  schema: schema.optional(),
})

/** A parameter, as the tests read it. */
export type OpenApiParameter = z.infer<typeof parameter>

/** An operation: its parameters, its body by content type, the security it asks for, its answers by status. */
const operation = z.object({
  parameters: z.array(parameter).optional(),
  requestBody: z
    .object({
      required: z.boolean().optional(),
      content: z.record(z.string(), z.object({ schema: schema.optional() })),
    })
    .optional(),
  security: z.array(z.record(z.string(), z.array(z.string()))).optional(),
  responses: z.record(z.string(), z.object({ description: z.string() })).optional(),
})

/** The document: its version, its operations by path then method, its named schemas and security schemes. */
const openApi = z.object({
  openapi: z.string(),
  info: z.object({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.record(z.string(), operation)),
  components: z
    .object({
      schemas: z.record(z.string(), schema).optional(),
      securitySchemes: z
        .record(
          z.string(),
          z.object({
            type: z.enum(['apiKey', 'http', 'oauth2', 'openIdConnect']),
            scheme: z.string().optional(),
            bearerFormat: z.string().optional(),
          }),
        )
        .optional(),
    })
    .optional(),
}) satisfies z.ZodType<WorkerDocument>

/** The OpenAPI document of an answer to `/openapi.json`, which must be 200. */
export async function openApiDocument(response: Response): Promise<z.infer<typeof openApi>> {
  expect(response.status).toBe(200)
  return openApi.parse(await response.json())
}
