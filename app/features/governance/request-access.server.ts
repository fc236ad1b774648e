import { data } from '@remix-run/cloudflare'
import { apiMessage, fieldErrors, type Message } from '~/lib/api-errors'
import type { Auth } from '~/lib/auth.server'
import { readForm } from '~/lib/form.server'

/** What a refused request or withdrawal brings back to "Mes accès": which application, why, and what was typed. */
export type RequestReply = {
  intent: 'request' | 'withdraw'
  application: number
  error: Message | null
  fields: Record<string, string[]>
  values: Record<string, string>
}

const ACCESS_PAGE = '/pages/user/acces'

/**
 * "Mes accès"' forms: ask for a demandable application (`intent=request`: why and for when), or withdraw a waiting
 * request (`intent=withdraw`, after its confirmation). Success comes back to the page with a notice; a refusal shows
 * on the application's own form, opened again with what was typed.
 */
export async function requestAccessAction(request: Request, auth: Auth) {
  const form = await readForm(request)
  const intent = form.get('intent') === 'withdraw' ? 'withdraw' : 'request'
  const text = (name: string) => String(form.get(name) ?? '').trim()
  const application = Number(form.get('application'))
  const values = { motif: text('motif'), dateDebut: text('dateDebut'), dateFin: text('dateFin') }
  const failed = async (failure: Pick<RequestReply, 'error' | 'fields'>) =>
    data({ intent, application, values, ...failure } satisfies RequestReply, {
      status: 400,
      headers: await auth.headers(),
    })
  if (intent === 'withdraw') {
    const id = Number(form.get('id'))
    if (!Number.isSafeInteger(id) || id < 1) return failed({ error: { key: 'errors.technical' }, fields: {} })
    const result = await auth.settle(auth.api.rest.bd.demande[':id'].$delete({ param: { id } }))
    if (result.ok) return auth.redirectWithToast(ACCESS_PAGE, { type: 'success', key: 'requests.withdrawn' })
    return failed({ error: apiMessage(result, 'errors.updateFailed'), fields: {} })
  }
  if (!Number.isSafeInteger(application) || application < 1)
    return failed({ error: { key: 'errors.technical' }, fields: {} })
  const result = await auth.settle(
    auth.api.rest.bd.demande.$post({ json: { application: { id: application }, ...values } }),
  )
  if (result.ok) return auth.redirectWithToast(ACCESS_PAGE, { type: 'success', key: 'requests.sent' })
  const fields = fieldErrors(result) ?? {}
  const onFields = ['motif', 'dateDebut', 'dateFin'].some((name) => fields[name])
  return failed({ error: onFields ? null : apiMessage(result, 'errors.updateFailed'), fields: onFields ? fields : {} })
}
