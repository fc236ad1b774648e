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
import { API_BASE } from '../../../worker-api/contract/base'
import { FOURNISSEUR_SORTS, type Fournisseur } from '../../../worker-api/contract/federation/providers'
import { FEDERATION_CALLBACK_PATH } from '../../../worker-api/contract/federation/sign-in'
import type { StructureChoices } from '../organisation/structure-choice'
import { structureChoices } from '../organisation/structure-choices.server'
import {
  CREATE_INTENT,
  DELETE_INTENT,
  EDIT_INTENT,
  EDIT_PARAM,
  EDIT_SEARCH_INTENT,
  type ProviderAddresses,
  type ReplyChoices,
  SEARCH_INTENT,
  SECRET_FIELDS,
} from './provider'
import { parseProvider, providerBody, providerFormSchema, refusedFields } from './provider-fields.server'

/**
 * What the identity providers' screen reads, in the round trip of the root administrator's check: a page of the
 * providers (searched and sorted by the API), the structures a registration may wait in, and the provider whose edit
 * panel is open (`?modifier=<id>`), read by id wherever it is listed.
 */
export async function providersData(request: Request, auth: Auth) {
  const url = new URL(request.url)
  const query = listQuery(url.searchParams, FOURNISSEUR_SORTS)
  const edited = Number(url.searchParams.get(EDIT_PARAM))
  const [{ items, total }, { choices }, editing] = await Promise.all([
    auth.expectPage(auth.api.rest.bd.fournisseur.$get({ query })),
    structureChoices(auth, url.searchParams, null),
    Number.isSafeInteger(edited) && edited > 0
      ? auth.settle(auth.api.rest.bd.fournisseur[':id'].$get({ param: { id: edited } }))
      : null,
  ])
  redirectPastLast(url, query.page, total, items.length, await auth.headers())
  return {
    fournisseurs: items,
    total,
    page: query.page,
    q: query.q ?? '',
    choices,
    editing: editing?.ok ? { provider: editing.data, choices: withStructure(choices, editing.data) } : null,
    addresses: addressesOf(url),
    constraint: getZodConstraint(providerFormSchema),
  }
}

/** The structures to choose from with the provider's own (beyond the first page, it stays chosen). */
function withStructure(choices: StructureChoices, provider: Fournisseur): StructureChoices {
  const own = provider.structure
  if (!own || choices.structures.some((structure) => structure.id === own.id)) return choices
  return { ...choices, structures: [own, ...choices.structures] }
}

/**
 * What the administrator registers at the provider, on the origin the page is read from (users are bound to the host
 * they signed in on: each host of the portal has its own redirect URI).
 */
function addressesOf(url: URL): ProviderAddresses {
  return { redirectUri: `${url.origin}${FEDERATION_CALLBACK_PATH}`, jwksUri: `${url.origin}${API_BASE}/oidc/jwks` }
}

/**
 * The screen's forms: a provider registered, a row's change (its panel, `?modifier=<id>`) or its deletion once
 * confirmed; without JavaScript, the create form or the panel posted back to search the structures.
 */
export async function providersAction(request: Request, auth: Auth) {
  const form = await readForm(request)
  const intent = form.get('intent')
  const back = pathWithout(request.url, ['confirmer', 'id', EDIT_PARAM])
  if (intent === CREATE_INTENT || intent === SEARCH_INTENT) {
    return saveProvider(auth, form, { id: null, searching: intent === SEARCH_INTENT, back })
  }
  const row = rowAction(form, [EDIT_INTENT, EDIT_SEARCH_INTENT, DELETE_INTENT])
  if (!row) {
    return formReply(
      '',
      submitted(form).reply({ hideFields: SECRET_FIELDS }),
      { key: 'errors.technical' },
      await auth.headers(),
    )
  }
  if (row.intent === DELETE_INTENT) return deleteProvider(auth, form, row.id, back)
  return saveProvider(auth, form, { id: row.id, searching: row.intent === EDIT_SEARCH_INTENT, back })
}

/**
 * POST (a new provider) or PUT (`id`) rest/bd/fournisseur from the create form or a row's panel, the provider's
 * discovery document read by the API first: back to the list with a notice. A refusal stays in its form, on its field
 * (the API's VALIDATION_FAILED) or as the form's message (an issuer or a domain taken, a discovery that failed), with
 * the structures to choose from as the form posted them, and never the secret.
 */
async function saveProvider(
  auth: Auth,
  form: FormData,
  { id, searching, back }: { id: number | null; searching: boolean; back: string },
) {
  const intent = id === null ? CREATE_INTENT : EDIT_INTENT
  const again = async (result: SubmissionResult<string[]>, error: FormReply['error'] = null) => {
    const structure = Number(form.get('structure'))
    const chosen = Number.isSafeInteger(structure) && structure > 0 ? structure : null
    const { choices } = await structureChoices(auth, form, chosen)
    return data<FormReply<typeof intent> & ReplyChoices>(
      { intent, result, error, choices },
      { status: searching ? 200 : 400, headers: await auth.headers() },
    )
  }
  if (searching) return again(submitted(form).reply({ hideFields: SECRET_FIELDS }))
  const submission = parseProvider(form)
  if (submission.status !== 'success') return again(submission.reply({ hideFields: SECRET_FIELDS }))
  const json = providerBody(submission.value)
  const result =
    id === null
      ? await auth.settle(auth.api.rest.bd.fournisseur.$post({ json }))
      : await auth.settle(auth.api.rest.bd.fournisseur.$put({ json: { ...json, id } }))
  if (!result.ok) {
    // Deleted meanwhile: the list, read again, says how it is now.
    if (id !== null && result.status === 404) return gone(auth, back, form)
    const fields = refusedFields(result, json)
    if (fields) return again(submission.reply({ hideFields: SECRET_FIELDS, fieldErrors: fields }))
    return again(submission.reply({ hideFields: SECRET_FIELDS }), apiMessage(result, 'errors.saveFailed'))
  }
  return auth.redirectWithToast(id === null ? back : `${back}${focusFragment(form)}`, {
    type: 'success',
    key: id === null ? 'fournisseurs.created' : 'fournisseurs.edited',
    values: { nom: result.data.nom },
  })
}

/** DELETE rest/bd/fournisseur/{id}, once confirmed: its links go with it, its users keep their accounts. */
async function deleteProvider(auth: Auth, form: FormData, id: number, back: string) {
  const deleted = await auth.settle(auth.api.rest.bd.fournisseur[':id'].$delete({ param: { id } }))
  if (!deleted.ok) {
    if (deleted.status === 404) return gone(auth, back, form)
    const message = apiMessage(deleted, 'errors.updateFailed')
    return formReply(DELETE_INTENT, submitted(form).reply(), message, await auth.headers())
  }
  return auth.redirectWithToast(`${back}${focusFragment(form)}`, {
    type: 'success',
    key: 'fournisseurs.deleted',
    values: { nom: String(form.get('nom') ?? '') },
  })
}

/** A provider another administrator deleted meanwhile: said on the list, read again. */
function gone(auth: Auth, back: string, form: FormData) {
  return auth.redirectWithToast(back, {
    type: 'error',
    key: 'fournisseurs.gone',
    values: { nom: String(form.get('ancienNom') ?? form.get('nom') ?? '') },
  })
}
