import { z } from 'zod'
import type { ErrorBody } from '../../worker-api/contract/errors'
import type { ScimErrorAnswer } from '../../worker-api/contract/machines/scim'
import type { OAuthErrorBody } from '../../worker-api/lib/oauth'
import { apiError } from './client'
import { scimError } from './machines/scim-answers'
import { oauthErrorAnswer } from './oauth-answers'

/**
 * The error body of any refused call, whichever of the Worker's three it is: the API's (`{ businessCode, message,
 * attributs }`), OAuth's (the OpenID Connect protocol's endpoints) or SCIM's (SCIM's endpoints). Each is read strictly
 * through its own reader's schema, so a body of none of the three fails the read, and the keys of the one read are all
 * it had. For a test that tells them apart by the operation it called; a test of one kind reads it with that kind's
 * reader.
 */
const anyError = z.union([apiError, oauthErrorAnswer, scimError]) satisfies z.ZodType<
  ErrorBody | OAuthErrorBody | ScimErrorAnswer
>

/** The error body of a refused call, of whichever kind (its status checked by the caller). */
export async function anyErrorBody(response: Response): Promise<ErrorBody | OAuthErrorBody | ScimErrorAnswer> {
  return anyError.parse(await response.json())
}
