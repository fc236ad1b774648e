import { parseWithZod } from '@conform-to/zod/v4'
import { z } from 'zod'
import type { Auth } from '~/lib/auth.server'
import { carried, formFailure, formId, formReply, readForm } from '~/lib/form.server'

const ACCESS_PAGE = '/pages/user/acces'

/**
 * "Mes accès"' two forms: asking for an application (one form per application, `application` saying which) and
 * withdrawing a waiting request (`id`, after its confirmation).
 */
export const requestForms = z.discriminatedUnion('intent', [
  z.object({ intent: z.literal('request'), application: formId, motif: carried, dateDebut: carried, dateFin: carried }),
  z.object({ intent: z.literal('withdraw'), id: formId, application: formId.optional() }),
])
export type RequestIntent = z.infer<typeof requestForms>['intent']

/**
 * Asks for a demandable application (POST rest/bd/demande: why and for when) or withdraws a waiting request (DELETE
 * rest/bd/demande/:id). Success comes back to the page with a notice; a refusal is a `FormReply` on the application's
 * own form, opened again with what was typed. A post whose ids no form writes (a hand-made one) is a technical error.
 */
export async function requestAccessAction(request: Request, auth: Auth) {
  const submission = parseWithZod(await readForm(request), { schema: requestForms })
  const intent: RequestIntent = submission.payload.intent === 'withdraw' ? 'withdraw' : 'request'
  const headers = await auth.headers()
  if (submission.status !== 'success')
    return formReply(intent, submission.reply(), { key: 'errors.technical' }, headers)
  const form = submission.value
  const result =
    form.intent === 'withdraw'
      ? await auth.settle(auth.api.rest.bd.demande[':id'].$delete({ param: { id: form.id } }))
      : await auth.settle(
          auth.api.rest.bd.demande.$post({
            json: {
              application: { id: form.application },
              motif: form.motif,
              dateDebut: form.dateDebut,
              dateFin: form.dateFin,
            },
          }),
        )
  if (result.ok) {
    const key = form.intent === 'withdraw' ? 'requests.withdrawn' : 'requests.sent'
    return auth.redirectWithToast(ACCESS_PAGE, { type: 'success', key })
  }
  return formFailure(intent, submission, { failure: result, fallback: 'errors.updateFailed', headers })
}
