import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { data } from '@remix-run/cloudflare'
import { z } from 'zod'
import { proofOf } from '~/features/sign-in/second-factor.server'
import { apiMessage, encodeMessage } from '~/lib/api-errors'
import type { Auth } from '~/lib/auth.server'
import type { FormReply } from '~/lib/form'
import { focusFragment, formReply, readForm, rowAction, submitted } from '~/lib/form.server'
import { listQuery } from '~/lib/pagination'
import { redirectPastLast } from '~/lib/pagination.server'
import { pathWithout } from '~/lib/url'
import { requiredId } from '../../../worker-api/contract/common'
import { structureChoices } from '../organisation/structure-choices.server'
import {
  CREATE_INTENT,
  type CreateReplyChoices,
  DELETE_INTENT,
  EDIT_INTENT,
  EDIT_PARAM,
  HANDOVER_INTENT,
  HANDOVER_PARAM,
  HEIR_SEARCH_PARAM,
  HEIRS_SHOWN,
  RENEW_INTENT,
  RENEW_PARAM,
  RESPONSIBLE_PARAM,
  SEARCH_INTENT,
  SECRET_FIELDS,
  type ShownServiceSecret,
  TAKEOVER_INTENT,
  TAKEOVER_PARAM,
} from './service-account'
import { editAccount, serviceAccountEditSchema } from './service-account-edit.server'
import { accountFields, checkbox, refusedFields } from './service-account-fields.server'

/** An administrator account asks for the proof: the password, or a code. */
function proofWhenAdmin(form: { admin?: unknown; motDePasse?: unknown; code?: unknown }, ctx: z.RefinementCtx) {
  if (form.admin === true && !form.motDePasse && !form.code) {
    ctx.addIssue({ code: 'custom', message: 'serviceAccounts.proofRequired', path: ['motDePasse'] })
  }
}

/**
 * The create form (POST rest/bd/compteService as a form posts it): the scopes as checkboxes, the keys
 * as JSON text, and the proof of the person at the keyboard, which an administrator account asks for.
 */
const serviceAccountFormSchema = z
  .object({
    ...accountFields,
    structure: requiredId(),
    admin: checkbox,
  })
  // Said with the other fields' errors, not only once they are right.
  .superRefine(proofWhenAdmin, { when: (payload) => typeof payload.value === 'object' && payload.value !== null })
export type ServiceAccountForm = z.input<typeof serviceAccountFormSchema>

/**
 * What the screen reads, in the round trip of the admin check: a page of the accounts of the scope,
 * the structures to create one in, whether the admin's authenticator app is on (the proof may be a
 * code), and the account whose renewal is open (`?secret=`), read by id wherever it is listed.
 */
export async function serviceAccountsData(request: Request, auth: Auth) {
  const url = new URL(request.url)
  // `?responsable=`: the accounts acting for one administrator (a departure's confirmation links here).
  const responsable = Number(url.searchParams.get(RESPONSIBLE_PARAM))
  const actingFor = Number.isSafeInteger(responsable) && responsable > 0 ? responsable : null
  const query = { ...listQuery(url.searchParams, []), ...(actingFor ? { responsable: actingFor } : {}) }
  const one = (param: string) => {
    const id = Number(url.searchParams.get(param))
    return Number.isSafeInteger(id) && id > 0
      ? auth.settle(auth.api.rest.bd.compteService[':id'].$get({ param: { id } }))
      : null
  }
  // The hand-over panel (`?confier=`): the account, and the administrators it may go to (searched past the select's).
  const handed = Number(url.searchParams.get(HANDOVER_PARAM))
  const heirSearch = url.searchParams.get(HEIR_SEARCH_PARAM)?.trim().slice(0, 100) ?? ''
  const heirsOf =
    Number.isSafeInteger(handed) && handed > 0
      ? auth.settle(
          auth.api.rest.bd.compteService[':id'].responsables.$get({
            param: { id: handed },
            query: { page: 1, taille: HEIRS_SHOWN, ...(heirSearch ? { q: heirSearch } : {}) },
          }),
        )
      : null
  const [{ items, total }, { choices }, factors, renewed, taken, handing, heirs, edited] = await Promise.all([
    auth.expectPage(auth.api.rest.bd.compteService.$get({ query })),
    structureChoices(auth, url.searchParams, null),
    auth.expect(auth.api.rest.bd.mfa.$get()),
    one(RENEW_PARAM),
    one(TAKEOVER_PARAM),
    one(HANDOVER_PARAM),
    heirsOf,
    one(EDIT_PARAM),
  ])
  redirectPastLast(url, query.page, total, items.length, await auth.headers())
  return {
    comptes: items,
    total,
    page: query.page,
    q: query.q ?? '',
    actingFor,
    choices,
    withCode: factors.totp,
    renewing: renewed?.ok ? renewed.data : null,
    takingOver: taken?.ok ? taken.data : null,
    handingOver:
      handing?.ok && heirs?.ok
        ? { account: handing.data, heirs: heirs.data, total: heirs.total ?? heirs.data.length, search: heirSearch }
        : null,
    editing: edited?.ok ? { account: edited.data, constraint: getZodConstraint(serviceAccountEditSchema) } : null,
    moi: auth.user.id,
    constraint: getZodConstraint(serviceAccountFormSchema),
  }
}

/**
 * The screen's forms: an account created (its credentials then shown once), or, without JavaScript,
 * the create form posted back to search the structures; a row's new secret (shown once), its change (its
 * panel, `?modifier=<id>`) or its deletion, once confirmed.
 */
export async function serviceAccountsAction(request: Request, auth: Auth) {
  const form = await readForm(request)
  const intent = form.get('intent')
  if (intent === CREATE_INTENT || intent === SEARCH_INTENT) return createAccount(auth, form, intent)
  const row = rowAction(form, [RENEW_INTENT, DELETE_INTENT, TAKEOVER_INTENT, HANDOVER_INTENT, EDIT_INTENT])
  if (!row) return formReply('', submitted(form).reply(), { key: 'errors.technical' }, await auth.headers())
  const nom = String(form.get('nom') ?? '')
  const back = pathWithout(request.url, [
    'confirmer',
    'id',
    RENEW_PARAM,
    TAKEOVER_PARAM,
    HANDOVER_PARAM,
    HEIR_SEARCH_PARAM,
    EDIT_PARAM,
  ])
  if (row.intent === DELETE_INTENT) {
    const deleted = await auth.settle(auth.api.rest.bd.compteService[':id'].$delete({ param: { id: row.id } }))
    if (!deleted.ok) {
      const message = apiMessage(deleted, 'errors.updateFailed')
      return formReply(DELETE_INTENT, submitted(form).reply(), message, await auth.headers())
    }
    return auth.redirectWithToast(`${back}${focusFragment(form)}`, {
      type: 'success',
      key: 'serviceAccounts.deleted',
      values: { nom },
    })
  }
  if (row.intent === TAKEOVER_INTENT) return takeOver(auth, form, row.id, back, TAKEOVER_INTENT)
  if (row.intent === HANDOVER_INTENT) return takeOver(auth, form, row.id, back, HANDOVER_INTENT)
  if (row.intent === EDIT_INTENT) return editAccount(auth, form, row.id, back)
  return renewSecret(auth, form, row.id, back)
}

/**
 * POST rest/bd/compteService from the create form: its credentials shown once. A refusal comes back
 * on its fields (the proof never echoed), with the structures to choose from as the form posted them
 * (the one chosen among them, however far down the list): without JavaScript too.
 */
async function createAccount(auth: Auth, form: FormData, intent: string) {
  const structure = Number(form.get('structure'))
  const chosen = Number.isSafeInteger(structure) && structure > 0 ? structure : null
  const again = async (result: FormReply['result'], error: FormReply['error'] = null) => {
    const { choices } = await structureChoices(auth, form, chosen)
    return data<FormReply<typeof CREATE_INTENT> & CreateReplyChoices>(
      { intent: CREATE_INTENT, result, error, choices },
      { status: intent === SEARCH_INTENT ? 200 : 400, headers: await auth.headers() },
    )
  }
  if (intent === SEARCH_INTENT) return again(submitted(form).reply({ hideFields: SECRET_FIELDS }))
  const submission = parseAccount(form)
  if (submission.status !== 'success') return again(submission.reply({ hideFields: SECRET_FIELDS }))
  const { nom, description, admin, scopes, jwks, motDePasse, code } = submission.value
  const preuve = code ? { code } : motDePasse ? { motDePasse } : undefined
  const result = await auth.settle(
    auth.api.rest.bd.compteService.$post({
      json: {
        nom,
        description: description || null,
        structure: { id: submission.value.structure },
        admin,
        scopes,
        jwks,
        // Asked of an administrator account only: nothing else checks (nor counts) a proof.
        ...(admin && preuve ? { preuve } : {}),
      },
    }),
  )
  if (!result.ok) {
    const fields = refusedFields(result)
    if (fields) {
      const encoded = Object.fromEntries(
        Object.entries(fields).map(([name, errors]) => [name, errors.map((key) => encodeMessage({ key }))]),
      )
      return again(submission.reply({ hideFields: SECRET_FIELDS, fieldErrors: encoded }))
    }
    return again(submission.reply({ hideFields: SECRET_FIELDS }), apiMessage(result, 'errors.saveFailed'))
  }
  return showSecret(auth, {
    event: 'created',
    nom,
    clientId: result.data.clientId,
    clientSecret: result.data.clientSecret ?? null,
    ancienSecretExpire: null,
  })
}

/** The create form as conform reads it; a hand-made post conform cannot read is a 400. */
function parseAccount(form: FormData) {
  try {
    return parseWithZod(form, { schema: serviceAccountFormSchema })
  } catch {
    throw new Response('Malformed form', { status: 400 })
  }
}

/**
 * POST rest/bd/compteService/{id}/secret from a row's panel: the new secret shown once. An
 * administrator account's asks for the proof; a refusal stays in the panel, on its field.
 */
async function renewSecret(auth: Auth, form: FormData, id: number, back: string) {
  const nom = String(form.get('nom') ?? '')
  const preuve = proofOf(form)
  const reply = async (fields: Record<string, string[]> | undefined, error: FormReply['error'] = null) =>
    formReply(
      RENEW_INTENT,
      submitted(form).reply({ hideFields: SECRET_FIELDS, ...(fields ? { fieldErrors: fields } : {}) }),
      error,
      await auth.headers(),
    )
  if (form.get('admin') === 'true' && !preuve) return reply({ motDePasse: ['serviceAccounts.proofRequired'] })
  const result = await auth.settle(
    auth.api.rest.bd.compteService[':id'].secret.$post({
      param: { id },
      json: { revoquerAncien: form.get('revoquerAncien') === 'on', ...(preuve ? { preuve } : {}) },
    }),
  )
  if (!result.ok) {
    // Deleted meanwhile, or out of the caller's scope: the list, read again, says how it is now.
    if (result.status === 404) {
      return auth.redirectWithToast(back, { type: 'error', key: 'serviceAccounts.gone', values: { nom } })
    }
    const fields = refusedFields(result)
    return fields ? reply(fields) : reply(undefined, apiMessage(result, 'serviceAccounts.renewFailed'))
  }
  return showSecret(auth, {
    event: 'renewed',
    nom,
    clientId: String(form.get('clientId') ?? ''),
    clientSecret: result.data.clientSecret,
    ancienSecretExpire: result.data.ancienSecretExpire,
  })
}

/**
 * PUT rest/bd/compteService/{id}/responsable from a row's panel, for the administrator at the keyboard (`reprendre`)
 * or another administrator of the structure chosen in the panel (`confier`): the account's new secret shown once (an
 * account with keys keeps them: back to the list). An administrator account's asks for the proof; a refusal stays in
 * the panel, on its field (the administrator chosen, the proof).
 */
async function takeOver(
  auth: Auth,
  form: FormData,
  id: number,
  back: string,
  intent: typeof TAKEOVER_INTENT | typeof HANDOVER_INTENT,
) {
  const nom = String(form.get('nom') ?? '')
  const preuve = proofOf(form)
  const reply = async (fields: Record<string, string[]> | undefined, error: FormReply['error'] = null) =>
    formReply(
      intent,
      submitted(form).reply({ hideFields: SECRET_FIELDS, ...(fields ? { fieldErrors: fields } : {}) }),
      error,
      await auth.headers(),
    )
  const chosen = Number(form.get('utilisateur'))
  const to = intent === TAKEOVER_INTENT ? auth.user.id : Number.isSafeInteger(chosen) && chosen > 0 ? chosen : null
  const missing = {
    ...(to === null ? { utilisateur: ['validation.required'] } : {}),
    ...(form.get('admin') === 'true' && !preuve ? { motDePasse: ['serviceAccounts.proofRequired'] } : {}),
  }
  if (to === null || Object.keys(missing).length > 0) return reply(missing)
  const result = await auth.settle(
    auth.api.rest.bd.compteService[':id'].responsable.$put({
      param: { id },
      json: { utilisateur: { id: to }, ...(preuve ? { preuve } : {}) },
    }),
  )
  const done = intent === TAKEOVER_INTENT ? 'takenOver' : 'handedOver'
  if (!result.ok) {
    if (result.status === 404) {
      return auth.redirectWithToast(back, { type: 'error', key: 'serviceAccounts.gone', values: { nom } })
    }
    const { utilisateur, ...fields } = refusedFields(result) ?? {}
    // Taking an account over chooses nobody: a refusal of the one it would act for is the form's.
    if (utilisateur && intent === TAKEOVER_INTENT) return reply(fields, { key: utilisateur[0] ?? 'errors.technical' })
    if (utilisateur || Object.keys(fields).length > 0)
      return reply({ ...fields, ...(utilisateur ? { utilisateur } : {}) })
    return reply(
      undefined,
      apiMessage(result, `serviceAccounts.${intent === TAKEOVER_INTENT ? 'takeOver' : 'handOver'}Failed`),
    )
  }
  if (!result.data.clientSecret) {
    return auth.redirectWithToast(back, { type: 'success', key: `serviceAccounts.${done}`, values: { nom } })
  }
  return showSecret(auth, {
    event: done,
    nom,
    clientId: String(form.get('clientId') ?? ''),
    clientSecret: result.data.clientSecret,
    ancienSecretExpire: null,
  })
}

/**
 * The page that shows credentials once: the action's answer itself (data, not a redirect), so that
 * the secret is in no URL, no history entry's address and no cookie.
 */
async function showSecret(auth: Auth, shown: Omit<ShownServiceSecret, 'intent'>) {
  return data<ShownServiceSecret>({ intent: 'secretShown', ...shown }, { headers: await auth.headers() })
}
