import { z } from 'zod'
import { type Failure, fieldErrors } from '~/lib/api-errors'
import type { BusinessCode } from '../../../worker-api/contract/errors'
import { jwksSchema, SERVICE_SCOPES } from '../../../worker-api/contract/machines/service-accounts'

/**
 * What the service accounts' forms share as a form posts them (the create form, a row's edit panel): the fields, and
 * the API's refusals read back onto them.
 */

/** A checkbox as a form posts it: 'on' when ticked, absent otherwise. */
export const checkbox = z.preprocess((value) => value === 'on' || value === 'true' || value === true, z.boolean())

/** The public keys' textarea: nothing, a JWK Set, or a single key (taken as a set of one). */
export const jwksText = z
  .string()
  .max(20_000, 'validation.tooLong')
  .optional()
  .transform((text, ctx) => {
    if (!text?.trim()) return null
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      ctx.addIssue({ code: 'custom', message: 'serviceAccounts.jwksJson' })
      return z.NEVER
    }
    const single = typeof value === 'object' && value !== null && !Array.isArray(value) && !('keys' in value)
    const keys = jwksSchema.safeParse(single ? { keys: [value] } : value)
    if (!keys.success) {
      ctx.addIssue({ code: 'custom', message: 'validation.publicKey' })
      return z.NEVER
    }
    return keys.data
  })

/** The fields of an account both forms write: its name, description, scopes, keys, and the proof of the caller. */
export const accountFields = {
  nom: z.string('validation.required').trim().min(3, 'validation.nameLength').max(50, 'validation.nameLength'),
  description: z.string().trim().max(200, 'validation.tooLong').optional(),
  scopes: z
    .array(z.enum(SERVICE_SCOPES, 'validation.invalid'), 'serviceAccounts.scopesRequired')
    .min(1, 'serviceAccounts.scopesRequired')
    .transform((scopes) => [...new Set(scopes)]),
  jwks: jwksText,
  motDePasse: z.string().max(200, 'validation.tooLong').optional(),
  code: z.string().trim().max(40, 'validation.tooLong').optional(),
}

/** The API's refusals of a proof, on the field that said it. */
const PROOF_FIELDS: Partial<Record<BusinessCode, [string, string]>> = {
  BAD_OLD_PASSWORD: ['motDePasse', 'mfa.proof.wrongPassword'],
  MFA_CODE_INVALID: ['code', 'errors.MFA_CODE_INVALID'],
}

/**
 * The field errors of a refused write, by the form's names (a service account's, a webhook's): the body's fields
 * (`structure.id` is the structure's select, a key of `jwks` the textarea, `evenements.3` the events, `preuve` the
 * password), each message once, or the proof's refusal.
 */
export function refusedFields(failure: Failure): Record<string, string[]> | null {
  const proof = PROOF_FIELDS[failure.error.businessCode]
  if (proof) return { [proof[0]]: [proof[1]] }
  // A structure deleted meanwhile.
  if (failure.status === 404) return { structure: ['validation.unknown'] }
  const fields = fieldErrors(failure)
  if (!fields || Object.keys(fields).length === 0) return null
  const byName: Record<string, string[]> = {}
  for (const [field, errors] of Object.entries(fields)) {
    const [first = field] = field.split('.')
    const name = first === 'preuve' ? 'motDePasse' : first
    const said = first === 'preuve' ? ['serviceAccounts.proofRequired'] : errors
    byName[name] = [...new Set([...(byName[name] ?? []), ...said])]
  }
  return byName
}
