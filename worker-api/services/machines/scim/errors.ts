import { HTTPException } from 'hono/http-exception'
import type { ScimErrorAnswer, ScimType } from '../../../contract/machines/scim'
import { BusinessError } from '../../../lib/errors'

/**
 * SCIM's errors (RFC 7644 §3.12): `{schemas: [Error], status: "400", scimType?, detail}`, never the
 * portal's own error body on the SCIM paths.
 */

export const SCIM_ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error'

export type ScimStatus = 400 | 401 | 403 | 404 | 409 | 412 | 413 | 429 | 500 | 501

export class ScimError extends Error {
  constructor(
    readonly status: ScimStatus,
    readonly detail: string,
    readonly scimType?: ScimType,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail)
  }
}

export const SCIM_CONTENT_TYPE = 'application/scim+json'

/** The answer of a SCIM error. */
export function scimErrorResponse(error: ScimError): Response {
  const body: ScimErrorAnswer = { schemas: [SCIM_ERROR], status: String(error.status), detail: error.detail }
  if (error.scimType) body.scimType = error.scimType
  return new Response(JSON.stringify(body), {
    status: error.status,
    headers: { 'Content-Type': SCIM_CONTENT_TYPE, 'Cache-Control': 'no-store', ...error.headers },
  })
}

export const invalidFilter = (detail: string) => new ScimError(400, detail, 'invalidFilter')
export const invalidValue = (detail: string) => new ScimError(400, detail, 'invalidValue')
export const invalidPath = (detail: string) => new ScimError(400, detail, 'invalidPath')

/**
 * Any failure of a SCIM call as SCIM's error: the portal's business errors by their status (a
 * validation failure is `invalidValue`, a limit keeps its `Retry-After`), bad input Hono refused as
 * `invalidSyntax`, anything else a 500 that says nothing more.
 */
export function asScimError(error: unknown): ScimError {
  if (error instanceof ScimError) return error
  if (error instanceof BusinessError) {
    const status = ([400, 401, 403, 404, 409, 412, 429] as const).find((known) => known === error.status) ?? 400
    const wait = status === 429 ? error.attributs[0] : undefined
    const headers: Record<string, string> = typeof wait === 'number' ? { 'Retry-After': String(wait) } : {}
    if (status === 401) headers['WWW-Authenticate'] = 'Bearer'
    const scimType = error.businessCode === 'VALIDATION_FAILED' ? 'invalidValue' : undefined
    const fields = error.businessCode === 'VALIDATION_FAILED' ? ` ${JSON.stringify(error.attributs)}` : ''
    return new ScimError(status, `${error.message}${fields}`, scimType, headers)
  }
  if (error instanceof HTTPException && error.status < 500) {
    return new ScimError(400, error.message || 'The request cannot be read', 'invalidSyntax')
  }
  console.error('Unhandled SCIM error', error)
  return new ScimError(500, 'Technical error')
}
