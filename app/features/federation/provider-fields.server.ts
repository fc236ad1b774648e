import { parseWithZod } from '@conform-to/zod/v4'
import { z } from 'zod'
import { encodeMessage, type Failure, fieldErrors } from '~/lib/api-errors'
import {
  AUTHENTIFICATIONS,
  domaineSchema,
  type FournisseurInput,
  MAX_DOMAINES,
  PREMIERES_CONNEXIONS,
} from '../../../worker-api/contract/federation/providers'
import { isClientUri } from '../../../worker-api/contract/oidc/oidc'
import { DEFAULT_SCOPES } from './provider'

/**
 * The provider's form as it posts (the create form and a row's edit panel alike): its domains typed in one field,
 * split here into the API's list, its boxes ticked or not, and the API's refusals read back onto the fields.
 */

/** A checkbox as a form posts it: 'on' when ticked, absent otherwise (never required: unticked is an answer). */
const checkbox = z
  .preprocess((value) => value === 'on' || value === 'true' || value === true, z.boolean())
  .optional()
  .transform((ticked) => ticked === true)

/** A domain the form refuses, named in the message (the field holds several). */
const badDomain = (domaine: string) => encodeMessage({ key: 'fournisseurs.badDomain', values: { domaine } })

/** The domains as typed: separated by commas, semicolons or spaces, lower-cased, each once. */
const domainesText = z
  .string()
  .max(5000, 'validation.tooLong')
  .optional()
  .transform((text, ctx) => {
    const typed = [
      ...new Set(
        (text ?? '')
          .split(/[\s,;]+/)
          .map((domain) => domain.trim().toLowerCase())
          .filter(Boolean),
      ),
    ]
    for (const domaine of typed) {
      if (!domaineSchema.safeParse(domaine).success) ctx.addIssue({ code: 'custom', message: badDomain(domaine) })
    }
    if (typed.length > MAX_DOMAINES) ctx.addIssue({ code: 'custom', message: 'validation.tooMany' })
    return typed
  })

export const providerFormSchema = z
  .object({
    nom: z.string('validation.required').trim().min(3, 'validation.nameLength').max(50, 'validation.nameLength'),
    issuer: z
      .string('validation.required')
      .trim()
      .max(255, 'validation.tooLong')
      .refine((value) => isClientUri(value), 'validation.issuer'),
    clientId: z.string('validation.required').trim().max(255, 'validation.tooLong'),
    authentification: z.enum(AUTHENTIFICATIONS, 'validation.required'),
    // Never trimmed: a secret is what the provider gave, spaces included.
    secret: z.string().max(512, 'validation.tooLong').optional(),
    // Its form and `openid` among them are the API's to check (its message lands here).
    scopes: z.string().trim().max(200, 'validation.tooLong').optional(),
    domaines: domainesText,
    premiereConnexion: z.enum(PREMIERES_CONNEXIONS, 'validation.required'),
    structure: z.number('validation.required').int('validation.required').positive('validation.required').optional(),
    confianceMfa: checkbox,
    affiche: checkbox,
    actif: checkbox,
  })
  // Said with the other fields' errors, not only once they are right.
  .superRefine(
    (form, ctx) => {
      if (form.premiereConnexion === 'INSCRIRE' && !form.structure) {
        ctx.addIssue({ code: 'custom', message: 'validation.required', path: ['structure'] })
      }
    },
    { when: (payload) => typeof payload.value === 'object' && payload.value !== null },
  )
export type ProviderForm = z.input<typeof providerFormSchema>
type Posted = z.output<typeof providerFormSchema>

/** The form as conform reads it; a hand-made post conform cannot read is a 400. */
export function parseProvider(form: FormData) {
  try {
    return parseWithZod(form, { schema: providerFormSchema })
  } catch {
    throw new Response('Malformed form', { status: 400 })
  }
}

/**
 * The API's body from the form: the secret only for a method that uses one (empty on a change: the one set stays),
 * the structure only for the rule that queues registrations there.
 */
export function providerBody(posted: Posted): FournisseurInput {
  const withSecret = posted.authentification !== 'private_key_jwt' && posted.secret
  return {
    nom: posted.nom,
    issuer: posted.issuer,
    clientId: posted.clientId,
    authentification: posted.authentification,
    ...(withSecret ? { secret: posted.secret } : {}),
    scopes: posted.scopes || DEFAULT_SCOPES,
    domaines: posted.domaines,
    premiereConnexion: posted.premiereConnexion,
    structure: posted.premiereConnexion === 'INSCRIRE' && posted.structure ? { id: posted.structure } : null,
    confianceMfa: posted.confianceMfa,
    affiche: posted.affiche,
    actif: posted.actif,
  }
}

/**
 * The API's field errors (VALIDATION_FAILED's `attributs`) by the form's names: `structure.id` is the structure's
 * select, `domaines.2` the domains' field (naming the domain refused), the rest as the API names them.
 */
export function refusedFields(failure: Failure, sent: FournisseurInput): Record<string, string[]> | null {
  const fields = fieldErrors(failure)
  if (!fields || Object.keys(fields).length === 0) return null
  const byName: Record<string, string[]> = {}
  for (const [field, errors] of Object.entries(fields)) {
    const [name = field, index] = field.split('.')
    const domaine = name === 'domaines' && index !== undefined ? sent.domaines[Number(index)] : undefined
    const said = errors.map((error) => (domaine && error === 'validation.domain' ? badDomain(domaine) : error))
    byName[name] = [...new Set([...(byName[name] ?? []), ...said])]
  }
  return byName
}
