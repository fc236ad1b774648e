import { parse, type SubmissionResult } from '@conform-to/react'
import { data } from '@remix-run/cloudflare'
import { z } from 'zod'
import type { BusinessCode } from '../../worker-api/contract/errors'
import { apiMessage, encodeMessage, type Failure, fieldErrors, type Message } from './api-errors'
import { FOCUS_FIELD } from './focus'
import type { FormReply } from './form'

/**
 * The submitted form, or a 400 when the body is not a form at all (a script posting JSON, say):
 * bad input is never a 500.
 */
export async function readForm(request: Request): Promise<FormData> {
  try {
    return await request.formData()
  } catch {
    throw new Response('Expected a form submission', { status: 400 })
  }
}

/** An id as the pages write them (`anchorId`): anything else in the field is ignored. */
const ANCHOR = /^[a-z][a-z0-9-]{0,63}$/

/**
 * The fragment an action's redirect carries so that, without JavaScript, focus goes back where the
 * form said (`FOCUS_FIELD`); empty when it said nothing usable. With JavaScript the page's focus
 * keeper does the same, and the fragment changes nothing.
 */
export function focusFragment(form: FormData): string {
  const id = form.get(FOCUS_FIELD)
  return typeof id === 'string' && ANCHOR.test(id) ? `#${id}` : ''
}

/**
 * The action a list's row asked for (its `intent`, one of `intents`) and the row's `id`, or null
 * when the form is not such a request (a hand-made post): the page answers it as a technical error.
 */
export function rowAction<Intent extends string>(
  form: FormData,
  intents: readonly Intent[],
): { intent: Intent; id: number } | null {
  const intent = String(form.get('intent'))
  const id = Number(form.get('id'))
  if (!intents.includes(intent as Intent) || !Number.isSafeInteger(id) || id < 1) return null
  return { intent: intent as Intent, id }
}

/**
 * What a form without a schema of its own posted (a row's button, a panel), as conform reads it: its
 * `reply()` gives the page back what was sent (`initialValue`). A hand-made post conform cannot read
 * is a 400, not a 500.
 */
export function submitted(form: FormData) {
  try {
    return parse<Record<string, unknown>, string[]>(form, { resolve: (value) => ({ value }) })
  } catch {
    throw new Response('Malformed form', { status: 400 })
  }
}

/**
 * The form a page's action was sent and its fields, as `intents` (a zod discriminated union on `intent`)
 * reads them; null for a post that is none of them (a hand-made one), which the page answers as a
 * technical error. A form without an `intent` field is the page's main form, `main`.
 */
export function intentOf<Intents extends z.ZodType>(form: FormData, intents: Intents, main?: string) {
  const fields: Record<string, unknown> = main ? { intent: main } : {}
  for (const [name, value] of form) if (typeof value === 'string') fields[name] = value
  const parsed = intents.safeParse(fields)
  return parsed.success ? (parsed.data as z.infer<Intents>) : null
}

/** A text the API judges (its rules and messages are its own): the form carries it trimmed, '' when not sent. */
export const carried = z.string().trim().default('')

/** A row's or a record's id in a form: a positive whole number. */
export const formId = z.number().int().positive()

/** A text field of an intent: '' when not sent, cut at `max` characters (the API bounds it again). */
export const textField = (max: number) =>
  z
    .string()
    .default('')
    .transform((value) => value.slice(0, max))

/**
 * A form's answer on its page (app/lib/form.ts `FormReply`): what `form` posted, the secret fields
 * (`hideFields`) left out, its message and what it shows; 400 when it carries a message, else 200.
 */
export function replyTo<Intent extends string, Shown = never>(
  intent: Intent,
  form: FormData | null,
  options: { error?: Message | null; shown?: Shown; hideFields?: string[]; headers?: HeadersInit } = {},
) {
  const { error = null, shown, hideFields, headers } = options
  const result = form ? submitted(form).reply({ hideFields }) : {}
  return data<FormReply<Intent, Shown>>({ intent, result, error, shown }, { status: error ? 400 : 200, headers })
}

/**
 * The one failed answer of every form action (app/lib/form.ts `FormReply`): which form it was,
 * conform's reply, the form's message, and what the form needs to be shown again (`extra`: the
 * structures to choose from, say); status 400.
 */
export function formReply<Intent extends string, Extra extends object = object>(
  intent: Intent,
  result: SubmissionResult<string[]>,
  error: Message | null,
  headers?: HeadersInit,
  extra?: Extra,
) {
  return data<FormReply<Intent> & Extra>({ ...(extra as Extra), intent, result, error }, { status: 400, headers })
}

/**
 * A form action's failed answer (`FormReply`, 400): the API's field errors on their fields, a code the form knows on
 * its field (`onField`), else the form's message. `nestedIn` maps an API body's object to the form (`poste.dateFin` →
 * `dateFin`); `withAttribute` (spec §8, logged creation) also gives a field's code the form's message and
 * `values.attribut`.
 */
export function formFailure<Intent extends string, Extra extends object = object>(
  intent: Intent,
  submission: {
    reply(options?: { fieldErrors?: Record<string, string[]>; hideFields?: string[] }): SubmissionResult<string[]>
    error?: Record<string, string[] | null> | null | undefined
  },
  options: {
    failure?: Failure
    fallback?: string
    onField?: Partial<Record<BusinessCode, string>>
    messages?: Partial<Record<BusinessCode, string>>
    headers?: HeadersInit | undefined
    hideFields?: string[]
    nestedIn?: string
    /** The form's name of an API body field where they differ (`{ commentaire: 'motifRefus' }`, or a function of it). */
    fieldNames?: FieldNames
    withAttribute?: boolean
    /** What the form needs to be shown again, beside its reply (`formReply`'s `extra`). */
    extra?: Extra
  } = {},
) {
  const {
    extra,
    failure,
    fallback = 'errors.saveFailed',
    onField = {},
    messages = {},
    headers,
    hideFields,
    nestedIn,
    fieldNames = {},
    withAttribute,
  } = options
  let result = submission.reply({ hideFields })
  // A post that names no form of the page (a hand-made one) has nowhere to show its fields' errors.
  let error: Message | null = submission.error?.intent ? { key: 'errors.technical' } : null
  if (failure) {
    const field = onField[failure.error.businessCode]
    const fields = formFields(fieldErrors(failure), nestedIn, fieldNames)
    const own = messages[failure.error.businessCode]
    const message = own ? { key: own } : apiMessage(failure, fallback)
    if (field) {
      result = submission.reply({ hideFields, fieldErrors: { [field]: [encodeMessage(message)] } })
      if (withAttribute) error = withFirstAttribute(message, failure)
    } else if (fields && Object.keys(fields).length > 0) {
      result = submission.reply({ hideFields, fieldErrors: fields })
    } else {
      error = withAttribute ? withFirstAttribute(message, failure) : message
    }
  }
  return formReply(intent, result, error, headers, extra)
}

/** The form's names of the API body's fields, where they differ: by name, or as a function of the API's. */
type FieldNames = Record<string, string> | ((field: string) => string)

/** `formFailure`'s `nestedIn` for a body that is a list: each element's field is the form's one field (`3.dateFin` is `dateFin`). */
export const EACH_ELEMENT = '[]'

/**
 * The API's body fields as a form's: a reference `type.id` is the form's `type` select, and a field
 * of the `nestedIn` object is the form's own (`poste.structure.id` is `structure`; with `EACH_ELEMENT`,
 * `0.dateFin` is `dateFin`), and `fieldNames` renames what the form calls otherwise. A message said of
 * several elements, or of two fields the form shows as one, is said once.
 */
function formFields(fields: Record<string, string[]> | null, nestedIn?: string, fieldNames: FieldNames = {}) {
  if (!fields) return null
  const prefix = nestedIn && nestedIn !== EACH_ELEMENT ? `${nestedIn}.` : null
  const name = (field: string) => {
    if (nestedIn === EACH_ELEMENT) return field.replace(/^\d+\./, '')
    return prefix && field.startsWith(prefix) ? field.slice(prefix.length) : field
  }
  const byField: Record<string, string[]> = {}
  for (const [field, errors] of Object.entries(fields)) {
    const api = name(field).replace(/\.id$/, '')
    const own = typeof fieldNames === 'function' ? fieldNames(api) : (fieldNames[api] ?? api)
    byField[own] = [...new Set([...(byField[own] ?? []), ...errors])]
  }
  return byField
}

/** `message` with the failure's first attribute as `values.attribut`, when it is a text or a number. */
function withFirstAttribute(message: Message, failure: Failure): Message {
  const [first] = failure.error.attributs
  if (typeof first !== 'string' && typeof first !== 'number') return message
  return { ...message, values: { ...message.values, attribut: first } }
}
