import { parseWithZod } from '@conform-to/zod/v4'
import { z } from 'zod'
import { apiMessage, encodeMessage } from '~/lib/api-errors'
import type { Auth } from '~/lib/auth.server'
import type { FormReply } from '~/lib/form'
import { focusFragment, formReply } from '~/lib/form.server'
import type { ServiceAccount, ServiceAccountUpdate } from '../../../worker-api/contract/machines/service-accounts'
import { EDIT_INTENT, SECRET_FIELDS } from './service-account'
import { accountFields, checkbox, refusedFields } from './service-account-fields.server'

/**
 * A row's edit panel (PATCH rest/bd/compteService/{id} as a form posts it): its name, description, scopes as
 * checkboxes, whether it is on, new public keys for a keys-only account (empty: its keys kept), and the proof of the
 * person at the keyboard, which widening an administrator account asks for.
 */
export const serviceAccountEditSchema = z.object({ ...accountFields, actif: checkbox })
export type ServiceAccountEditForm = z.input<typeof serviceAccountEditSchema>

/** The form as conform reads it; a hand-made post conform cannot read is a 400. */
function parseEdit(form: FormData) {
  try {
    return parseWithZod(form, { schema: serviceAccountEditSchema })
  } catch {
    throw new Response('Malformed form', { status: 400 })
  }
}

type Edited = z.output<typeof serviceAccountEditSchema>

/**
 * What the form changes of the account as it is now: only that is sent, so that the history names what changed and an
 * unchanged field asks for no proof. Keys are sent when some were pasted.
 */
function changesOf(account: ServiceAccount, edited: Edited): Omit<ServiceAccountUpdate, 'preuve'> {
  const description = edited.description || null
  const scopes = [...edited.scopes].sort()
  return {
    ...(edited.nom === account.nom ? {} : { nom: edited.nom }),
    ...(description === account.description ? {} : { description }),
    ...(scopes.join(' ') === [...account.scopes].sort().join(' ') ? {} : { scopes }),
    ...(edited.actif === account.actif ? {} : { actif: edited.actif }),
    ...(edited.jwks ? { jwks: edited.jwks } : {}),
  }
}

/**
 * PATCH rest/bd/compteService/{id} from a row's panel: what changed, read against the account as it is now, then back
 * to the list with a notice naming it. A refusal stays in the panel, on its field (the proof, the keys of an account
 * that signs in with its secret); an account deleted meanwhile is said on the list.
 */
export async function editAccount(auth: Auth, form: FormData, id: number, back: string) {
  const submission = parseEdit(form)
  const reply = async (fields?: Record<string, string[]>, error: FormReply['error'] = null) =>
    formReply(
      EDIT_INTENT,
      submission.reply({ hideFields: SECRET_FIELDS, ...(fields ? { fieldErrors: fields } : {}) }),
      error,
      await auth.headers(),
    )
  if (submission.status !== 'success') return reply()
  const gone = () =>
    auth.redirectWithToast(back, {
      type: 'error',
      key: 'serviceAccounts.gone',
      values: { nom: String(form.get('ancienNom') ?? '') },
    })
  const current = await auth.settle(auth.api.rest.bd.compteService[':id'].$get({ param: { id } }))
  if (!current.ok) {
    return current.status === 404 ? gone() : reply(undefined, apiMessage(current, 'serviceAccounts.editFailed'))
  }
  const account = current.data
  const changes = changesOf(account, submission.value)
  const done = `${back}${focusFragment(form)}`
  if (Object.keys(changes).length === 0) {
    return auth.redirectWithToast(done, {
      type: 'info',
      key: 'serviceAccounts.unchanged',
      values: { nom: account.nom },
    })
  }
  const { motDePasse, code } = submission.value
  const preuve = code ? { code } : motDePasse ? { motDePasse } : undefined
  const result = await auth.settle(
    auth.api.rest.bd.compteService[':id'].$patch({
      param: { id },
      // Checked (and counted) only where it is asked for: an administrator account's.
      json: { ...changes, ...(account.admin && preuve ? { preuve } : {}) },
    }),
  )
  if (!result.ok) {
    if (result.status === 404) return gone()
    if (result.error.businessCode === 'SERVICE_ACCOUNT_SECRET_ONLY') {
      return reply({ jwks: [encodeMessage(apiMessage(result, 'serviceAccounts.editFailed'))] })
    }
    const fields = refusedFields(result)
    return fields ? reply(fields) : reply(undefined, apiMessage(result, 'serviceAccounts.editFailed'))
  }
  return auth.redirectWithToast(done, {
    type: 'success',
    key: 'serviceAccounts.edited',
    values: { nom: result.data.nom },
  })
}
