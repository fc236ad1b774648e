import type { ContentfulStatusCode } from 'hono/utils/http-status'
import type { BusinessCode, ErrorBody } from '../contract/errors'

/** A failure the client can act on; rendered as DESIGN §2's JSON body by `app.onError`. */
export class BusinessError extends Error {
  constructor(
    readonly businessCode: BusinessCode,
    readonly status: ContentfulStatusCode,
    message?: string,
    readonly attributs: unknown[] = [],
  ) {
    super(message ?? businessCode)
    this.name = 'BusinessError'
  }
}

export function errorBody(businessCode: BusinessCode, message: string, attributs: unknown[] = []): ErrorBody {
  return { businessCode, message, attributs }
}

export const unauthorized = (code: BusinessCode = 'UNAUTHORIZED', message = 'Authentication required') =>
  new BusinessError(code, 401, message)
export const forbidden = (message = 'Not allowed') => new BusinessError('FORBIDDEN', 403, message)
export const notFound = (message = 'Not found') => new BusinessError('NOT_FOUND', 404, message)

/** 400 VALIDATION_FAILED about one field of the body, as the schema's own refusals name them. */
export const invalidField = (field: string, message: string, key: string) =>
  new BusinessError('VALIDATION_FAILED', 400, message, [{ field, message: key }])
