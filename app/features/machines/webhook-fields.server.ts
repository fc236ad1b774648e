import { parseWithZod } from '@conform-to/zod/v4'
import { z } from 'zod'
import { WEBHOOK_EVENTS_MAX, webhookEventSchema } from '../../../worker-api/contract/machines/webhooks'
import { OIDC_URI_MAX_LENGTH } from '../../../worker-api/contract/oidc/oidc'
import { checkbox } from './service-account-fields.server'

/**
 * A subscription's form as it posts (the create form and a row's edit panel alike): its events ticked by family, a
 * family ticked whole standing for its events (present and future). The API's refusals are read back onto the fields
 * as the service accounts' are (`refusedFields`).
 */

/** The events ticked: a family ticked whole (`poste.*`) keeps none of its events beside it. */
const eventsTicked = z
  .array(z.string().max(60), 'webhooks.eventsRequired')
  .min(1, 'webhooks.eventsRequired')
  .transform((posted, ctx) => {
    // A name no box has (a hand-made post) is said on the events, not on an element no field shows.
    const ticked = posted.flatMap((name) => {
      const known = webhookEventSchema.safeParse(name)
      return known.success ? [known.data] : []
    })
    if (ticked.length < posted.length) {
      ctx.addIssue({ code: 'custom', message: 'validation.invalid' })
      return z.NEVER
    }
    const whole = new Set(ticked.filter((name) => name.endsWith('.*')).map((name) => name.slice(0, -2)))
    const kept = [...new Set(ticked)].filter((name) => name.endsWith('.*') || !whole.has(name.split('.')[0] ?? ''))
    if (kept.length > WEBHOOK_EVENTS_MAX) ctx.addIssue({ code: 'custom', message: 'validation.tooMany' })
    return kept
  })

const editFields = {
  url: z
    .string('validation.required')
    .trim()
    .min(1, 'validation.required')
    .max(OIDC_URI_MAX_LENGTH, 'validation.tooLong'),
  evenements: eventsTicked,
  description: z.string().trim().max(200, 'validation.tooLong').optional(),
  actif: checkbox.optional().transform((ticked) => ticked === true),
}

/** The edit panel: what a subscription's change sends (its structure stays). */
export const webhookEditSchema = z.object(editFields)

/** The create form: the same, and the structure whose sub-tree it hears. */
export const webhookFormSchema = z.object({
  ...editFields,
  structure: z.number('validation.required').int('validation.required').positive('validation.required'),
})
export type WebhookForm = z.input<typeof webhookFormSchema>

/** A form as conform reads it; a hand-made post conform cannot read is a 400. */
export function parseWebhook<Schema extends z.ZodType>(form: FormData, schema: Schema) {
  try {
    return parseWithZod<Schema>(form, { schema })
  } catch {
    throw new Response('Malformed form', { status: 400 })
  }
}
