import { parseWithZod } from '@conform-to/zod/v4'
import { data } from '@remix-run/cloudflare'
import { z } from 'zod'
import { structureChoices } from '~/features/organisation/structure-choices.server'
import type { Auth } from '~/lib/auth.server'
import type { FormReply } from '~/lib/form'
import { carried, formFailure, formId, readForm, submitted } from '~/lib/form.server'
import { listQuery } from '~/lib/pagination'
import { UNREVIEWED_OUTCOMES } from '../../../worker-api/contract/governance/access-reviews'
import { OPEN_INTENT, REVIEW_SEARCH_INTENT } from './review-page'

/** The campaign form: what the API needs to open one; its own rules and messages judge the name and the due date. */
const openForm = z.object({
  nom: carried,
  structure: z.number('validation.required').int('validation.required').positive('validation.required'),
  echeance: carried,
  siNonRevu: z.enum(UNREVIEWED_OUTCOMES, 'validation.required'),
})

/** A campaign form sent back (refused, or its structures searched without JavaScript): the structures to choose from. */
export type ReviewFormChoices = { choices: Awaited<ReturnType<typeof structureChoices>>['choices'] }

/** The campaigns the administrator sees (a page), and the structures to open one on, in one round trip. */
export async function reviewsData(request: Request, auth: Auth) {
  const url = new URL(request.url)
  const query = listQuery(url.searchParams, [])
  const [{ items, total }, { choices }] = await Promise.all([
    auth.expectPage(auth.api.rest.bd.revue.$get({ query: { page: query.page, taille: query.taille } })),
    structureChoices(auth, url.searchParams, null),
  ])
  return { revues: items, total, page: query.page, choices }
}

/**
 * The campaign form: opens one (POST rest/bd/revue, then its page), or, without JavaScript, searches the structures
 * (`intent=structures`: the form again with what was typed). A refusal comes back on its fields (`FormReply`), with the
 * structures to choose from as the form posted them.
 */
export async function reviewsAction(request: Request, auth: Auth) {
  const form = await readForm(request)
  const submission = parseWithZod(form, { schema: openForm })
  // The structure posted stays among the choices, however far down the list, whatever else was refused.
  const chosen = formId.safeParse(Number(form.get('structure'))).data ?? null
  const again = async () => ({ choices: (await structureChoices(auth, form, chosen)).choices })
  const headers = await auth.headers()
  if (form.get('intent') === REVIEW_SEARCH_INTENT) {
    return data<FormReply<typeof OPEN_INTENT> & ReviewFormChoices>(
      { intent: OPEN_INTENT, result: submitted(form).reply(), error: null, ...(await again()) },
      { headers },
    )
  }
  if (submission.status !== 'success') return formFailure(OPEN_INTENT, submission, { headers, extra: await again() })
  const { structure, ...fields } = submission.value
  const result = await auth.settle(auth.api.rest.bd.revue.$post({ json: { ...fields, structure: { id: structure } } }))
  if (result.ok) {
    return auth.redirectWithToast(`/pages/admin/revues/${result.data.id}`, { type: 'success', key: 'reviews.opened' })
  }
  return formFailure(OPEN_INTENT, submission, {
    failure: result,
    fallback: 'errors.updateFailed',
    headers,
    extra: await again(),
  })
}
