import type { SubmissionResult } from '@conform-to/react'
import { getZodConstraint } from '@conform-to/zod/v4'
import { data } from '@remix-run/cloudflare'
import { apiMessage } from '~/lib/api-errors'
import type { Auth } from '~/lib/auth.server'
import type { FormReply } from '~/lib/form'
import { focusFragment, formReply, readForm, rowAction, submitted } from '~/lib/form.server'
import { listQuery } from '~/lib/pagination'
import { redirectPastLast } from '~/lib/pagination.server'
import { pathWithout } from '~/lib/url'
import { structureChoices } from '../organisation/structure-choices.server'
import { refusedFields } from './service-account-fields.server'
import {
  CREATE_INTENT,
  DELETE_INTENT,
  EDIT_INTENT,
  EDIT_PARAM,
  FROM_LOG_PARAM,
  logPath,
  RENEW_INTENT,
  RENEW_PARAM,
  type ReplyChoices,
  SEARCH_INTENT,
  type ShownWebhookSecret,
} from './webhook'
import { parseWebhook, webhookEditSchema, webhookFormSchema } from './webhook-fields.server'

/**
 * What the webhooks' screen reads, in the round trip of the admin check: a page of the subscriptions of the scope
 * (searched by the API), the structures to make one on, and the subscription whose panel is open (`?modifier=`,
 * `?secret=`), read by id wherever it is listed.
 */
export async function webhooksData(request: Request, auth: Auth) {
  const url = new URL(request.url)
  const query = listQuery(url.searchParams, [])
  const one = (param: string) => {
    const id = Number(url.searchParams.get(param))
    return Number.isSafeInteger(id) && id > 0
      ? auth.settle(auth.api.rest.bd.webhook[':id'].$get({ param: { id } }))
      : null
  }
  const [{ items, total }, { choices }, edited, renewed] = await Promise.all([
    auth.expectPage(auth.api.rest.bd.webhook.$get({ query })),
    structureChoices(auth, url.searchParams, null),
    one(EDIT_PARAM),
    one(RENEW_PARAM),
  ])
  redirectPastLast(url, query.page, total, items.length, await auth.headers())
  return {
    webhooks: items,
    total,
    page: query.page,
    q: query.q ?? '',
    choices,
    editing: edited?.ok ? edited.data : null,
    renewing: renewed?.ok ? renewed.data : null,
    constraint: getZodConstraint(webhookFormSchema),
    editConstraint: getZodConstraint(webhookEditSchema),
  }
}

/**
 * The screen's forms: a subscription made (its secret then shown once), or, without JavaScript, the create form
 * posted back to search the structures; a row's change (its panel), its new secret (shown once) or its deletion, once
 * confirmed.
 */
export async function webhooksAction(request: Request, auth: Auth) {
  const form = await readForm(request)
  const intent = form.get('intent')
  if (intent === CREATE_INTENT || intent === SEARCH_INTENT) return createWebhook(auth, form, intent === SEARCH_INTENT)
  const row = rowAction(form, [EDIT_INTENT, RENEW_INTENT, DELETE_INTENT])
  if (!row) return formReply('', submitted(form).reply(), { key: 'errors.technical' }, await auth.headers())
  const back = pathWithout(request.url, ['confirmer', 'id', EDIT_PARAM, RENEW_PARAM, FROM_LOG_PARAM])
  if (row.intent === DELETE_INTENT) return deleteWebhook(auth, form, row.id, back)
  if (row.intent === EDIT_INTENT) {
    // Opened from its delivery log: saved, back to that log.
    const fromLog = new URL(request.url).searchParams.has(FROM_LOG_PARAM)
    return editWebhook(auth, form, row.id, back, fromLog ? logPath(row.id) : back)
  }
  return renewSecret(auth, form, row.id, back)
}

/**
 * POST rest/bd/webhook from the create form: its secret shown once. A refusal comes back on its fields, with the
 * structures to choose from as the form posted them (the one chosen among them): without JavaScript too.
 */
async function createWebhook(auth: Auth, form: FormData, searching: boolean) {
  const again = async (result: SubmissionResult<string[]>, error: FormReply['error'] = null) => {
    const structure = Number(form.get('structure'))
    const chosen = Number.isSafeInteger(structure) && structure > 0 ? structure : null
    const { choices } = await structureChoices(auth, form, chosen)
    return data<FormReply<typeof CREATE_INTENT> & ReplyChoices>(
      { intent: CREATE_INTENT, result, error, choices },
      { status: searching ? 200 : 400, headers: await auth.headers() },
    )
  }
  if (searching) return again(submitted(form).reply())
  const submission = parseWebhook(form, webhookFormSchema)
  if (submission.status !== 'success') return again(submission.reply())
  const { url, evenements, description, actif, structure } = submission.value
  const result = await auth.settle(
    auth.api.rest.bd.webhook.$post({
      json: { url, evenements, description: description || null, actif, structure: { id: structure } },
    }),
  )
  if (!result.ok) {
    const fields = refusedFields(result)
    if (fields) return again(submission.reply({ fieldErrors: fields }))
    return again(submission.reply(), apiMessage(result, 'errors.saveFailed'))
  }
  return showSecret(auth, { event: 'created', url, secret: result.data.secret, ancienSecretExpire: null })
}

/**
 * PATCH rest/bd/webhook/{id} from a row's panel: back to the list with a notice. Switched on again, a subscription the
 * portal had stopped delivers once more. A refusal stays in the panel, on its field.
 */
async function editWebhook(auth: Auth, form: FormData, id: number, back: string, saved: string) {
  const reply = async (result: SubmissionResult<string[]>, error: FormReply['error'] = null) =>
    formReply(EDIT_INTENT, result, error, await auth.headers())
  const submission = parseWebhook(form, webhookEditSchema)
  if (submission.status !== 'success') return reply(submission.reply())
  const { url, evenements, description, actif } = submission.value
  // Sent only when changed: saved as it was, a subscription the portal stopped keeps saying why.
  const switched = actif !== (form.get('actifAvant') === 'true')
  const result = await auth.settle(
    auth.api.rest.bd.webhook[':id'].$patch({
      param: { id },
      json: { url, evenements, description: description || null, ...(switched ? { actif } : {}) },
    }),
  )
  if (!result.ok) {
    if (result.status === 404) return gone(auth, back, form)
    const fields = refusedFields(result)
    if (fields) return reply(submission.reply({ fieldErrors: fields }))
    return reply(submission.reply(), apiMessage(result, 'errors.saveFailed'))
  }
  return auth.redirectWithToast(`${saved}${focusFragment(form)}`, {
    type: 'success',
    key: 'webhooks.edited',
    values: { url: result.data.url },
  })
}

/**
 * POST rest/bd/webhook/{id}/secret from a row's panel: the new secret shown once, the former one signing beside it a
 * day unless revoked at once.
 */
async function renewSecret(auth: Auth, form: FormData, id: number, back: string) {
  const result = await auth.settle(
    auth.api.rest.bd.webhook[':id'].secret.$post({
      param: { id },
      json: { revoquerAncien: form.get('revoquerAncien') === 'on' },
    }),
  )
  if (!result.ok) {
    if (result.status === 404) return gone(auth, back, form)
    return formReply(
      RENEW_INTENT,
      submitted(form).reply(),
      apiMessage(result, 'webhooks.renewFailed'),
      await auth.headers(),
    )
  }
  return showSecret(auth, {
    event: 'renewed',
    url: result.data.url,
    secret: result.data.secret,
    ancienSecretExpire: result.data.ancienSecretExpire,
  })
}

/** DELETE rest/bd/webhook/{id}, once confirmed: nothing more is delivered to it. */
async function deleteWebhook(auth: Auth, form: FormData, id: number, back: string) {
  const deleted = await auth.settle(auth.api.rest.bd.webhook[':id'].$delete({ param: { id } }))
  if (!deleted.ok) {
    if (deleted.status === 404) return gone(auth, back, form)
    return formReply(
      DELETE_INTENT,
      submitted(form).reply(),
      apiMessage(deleted, 'errors.updateFailed'),
      await auth.headers(),
    )
  }
  return auth.redirectWithToast(`${back}${focusFragment(form)}`, {
    type: 'success',
    key: 'webhooks.deleted',
    values: { url: String(form.get('url') ?? '') },
  })
}

/** A subscription another administrator deleted meanwhile (or out of reach now): said on the list, read again. */
function gone(auth: Auth, back: string, form: FormData) {
  return auth.redirectWithToast(back, {
    type: 'error',
    key: 'webhooks.gone',
    values: { url: String(form.get('ancienneUrl') ?? form.get('url') ?? '') },
  })
}

/**
 * The page that shows a secret once: the action's answer itself (data, not a redirect), so that the secret is in no
 * URL, no history entry's address and no cookie.
 */
async function showSecret(auth: Auth, shown: Omit<ShownWebhookSecret, 'intent'>) {
  return data<ShownWebhookSecret>({ intent: 'secretShown', ...shown }, { headers: await auth.headers() })
}
