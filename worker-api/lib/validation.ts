import { OpenAPIHono } from '@hono/zod-openapi'
import type { HonoOptions } from 'hono/hono-base'
import { BusinessError } from './errors'
import type { AppEnv } from './types'

/** Turns a failed request validation into the 400 VALIDATION_FAILED body, with the field errors. */
function validationHook(result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) {
  if (!result.success) {
    const fields = (result.error?.issues ?? []).map((issue) => ({
      field: issue.path.map(String).join('.'),
      message: issue.message,
    }))
    throw new BusinessError('VALIDATION_FAILED', 400, 'Invalid request', fields)
  }
}

/** A router of the API: OpenAPI-described routes whose bad input answers 400 VALIDATION_FAILED. */
export function router(options: { getPath?: (request: Request) => string } & Pick<HonoOptions<AppEnv>, 'router'> = {}) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook, ...options })
}
