import { parseWithZod } from '@conform-to/zod/v4'
import { data } from '@remix-run/cloudflare'
import { z } from 'zod'
import type { Failure } from '~/lib/api-errors'
import type { Auth } from '~/lib/auth.server'
import type { FormReply } from '~/lib/form'
import { carried, EACH_ELEMENT, formFailure, formId, formReply, readForm } from '~/lib/form.server'
import { readPage } from '~/lib/pagination'
import { readSearch } from '~/lib/url'
import { DECISIONS_MAX, ITEM_STATES, type ItemState } from '../../../worker-api/contract/governance/access-reviews'
import { ITEMS_PER_PAGE } from './review-page'

/** The items' filters of a campaign's URL: its structure and search (what "everything the filter keeps" decides). */
function filtersOf(params: URLSearchParams): { structure?: number; q?: string } {
  const structure = Number(params.get('structure'))
  const q = readSearch(params)
  return { ...(q ? { q } : {}), ...(Number.isSafeInteger(structure) && structure > 0 ? { structure } : {}) }
}

/** The campaign, its progress per structure and a page of its items (filtered by the URL): one call, one round trip. */
export async function reviewData(request: Request, auth: Auth, id: number) {
  const params = new URL(request.url).searchParams
  const etat = params.get('etat')
  const query = {
    page: readPage(params.get('page')),
    ...filtersOf(params),
    ...((ITEM_STATES as readonly string[]).includes(etat ?? '') ? { etat: etat as ItemState } : {}),
  }
  const { elements, totalElements, ...revue } = await auth.expect(
    auth.api.rest.bd.revue[':id'].$get({ param: { id }, query: { ...query, elements: ITEMS_PER_PAGE } }),
  )
  return { revue, items: elements ?? [], total: totalElements ?? 0, query: { ...query, taille: ITEMS_PER_PAGE } }
}

const DECISIONS = ['CONFIRMER', 'TERMINER'] as const
type Decision = (typeof DECISIONS)[number]

/**
 * The page's forms: closing the campaign (`cloture`, after its confirmation), and deciding (`decider`): one item
 * (`un=CONFIRMER:<id>`, a row's button), the items ticked (`decision`, with `element` for each), or every item the
 * URL's filter keeps still to review (`tous`), with the end and the comment given; `confirme=oui` once confirmed.
 */
const reviewForms = z.discriminatedUnion('intent', [
  z.object({ intent: z.literal('cloture') }),
  z.object({
    intent: z.literal('decider'),
    un: z
      .string()
      .regex(/^(CONFIRMER|TERMINER):[1-9]\d{0,15}$/)
      .optional(),
    decision: z.enum(DECISIONS).optional(),
    tous: z.enum(DECISIONS).optional(),
    element: z.array(formId).max(DECISIONS_MAX).default([]),
    confirme: z.literal('oui').optional(),
    dateFin: carried,
    commentaire: carried,
  }),
])
type ReviewIntent = z.infer<typeof reviewForms>['intent']

/** What a decision asks to be confirmed before it is made: ending the items ticked, or deciding everything the filter keeps. */
export type DecisionConfirmation =
  | { kind: 'confirm'; ids: number[]; dateFin: string; commentaire: string }
  | { kind: 'confirmAll'; decision: Decision; count: number; dateFin: string; commentaire: string }

/**
 * Closes the campaign or decides (`reviewForms`). Ending posts, or deciding everything, is shown for confirmation first
 * (a `FormReply` whose `shown` says what will be decided); a refusal is a `FormReply` with its message, and the end's
 * and the comment's rules on their fields. A post no form of the page writes is a technical error.
 */
export async function reviewAction(request: Request, auth: Auth, id: number) {
  const submission = parseWithZod(await readForm(request), { schema: reviewForms })
  const intent: ReviewIntent = submission.payload.intent === 'cloture' ? 'cloture' : 'decider'
  const headers = await auth.headers()
  const back = new URL(request.url)
  const here = `${back.pathname}${back.search}`
  if (submission.status !== 'success')
    return formReply(intent, submission.reply(), { key: 'errors.technical' }, headers)
  const form = submission.value
  const refused = (failure: Failure, fallback = 'errors.updateFailed') =>
    formFailure(intent, submission, { failure, fallback, headers, nestedIn: EACH_ELEMENT })
  const confirm = (shown: DecisionConfirmation) =>
    data<FormReply<ReviewIntent, DecisionConfirmation>>(
      { intent, result: submission.reply(), error: null, shown },
      { headers },
    )
  if (form.intent === 'cloture') {
    const result = await auth.settle(auth.api.rest.bd.revue[':id'].cloture.$post({ param: { id } }))
    if (result.ok) return auth.redirectWithToast(here, { type: 'success', key: 'reviews.closed' })
    return refused(result)
  }
  const { dateFin, commentaire } = form
  const given = {
    ...(dateFin ? { dateFin } : {}),
    ...(commentaire ? { commentaire } : {}),
  }
  if (form.tous) {
    const filters = filtersOf(back.searchParams)
    if (form.confirme !== 'oui') {
      const counted = await auth.settle(
        auth.api.rest.bd.revue[':id'].$get({ param: { id }, query: { ...filters, etat: 'A_REVOIR', elements: 1 } }),
      )
      if (!counted.ok) return refused(counted, 'errors.technical')
      const count = counted.data.totalElements ?? 0
      if (count === 0) return formReply(intent, submission.reply(), { key: 'reviews.allNone' }, headers)
      return confirm({ kind: 'confirmAll', decision: form.tous, count, dateFin, commentaire })
    }
    const result = await auth.settle(
      auth.api.rest.bd.revue[':id'].decisions.tous.$post({
        param: { id },
        json: {
          decision: form.tous,
          ...filters,
          ...(form.tous === 'TERMINER' ? given : { ...(commentaire ? { commentaire } : {}) }),
        },
      }),
    )
    if (!result.ok) return refused(result)
    const { decides, restants } = result.data
    return auth.redirectWithToast(here, {
      type: decides === 0 ? 'error' : 'success',
      key: restants > 0 ? 'reviews.allLeft' : form.tous === 'TERMINER' ? 'reviews.ended' : 'reviews.confirmed',
      values: { count: decides, restants },
    })
  }
  const [one, oneId] = form.un?.split(':') ?? []
  const decision = (one ?? form.decision) as Decision | undefined
  const ids = oneId ? [Number(oneId)] : form.element
  if (!decision) return formReply(intent, submission.reply(), { key: 'errors.technical' }, headers)
  if (ids.length === 0) return formReply(intent, submission.reply(), { key: 'reviews.noneTicked' }, headers)
  if (decision === 'TERMINER' && form.confirme !== 'oui') return confirm({ kind: 'confirm', ids, dateFin, commentaire })
  const json = ids.map((element) => ({
    element: { id: element },
    decision,
    ...(decision === 'TERMINER' ? given : { ...(commentaire ? { commentaire } : {}) }),
  }))
  const result = await auth.settle(auth.api.rest.bd.revue[':id'].decisions.$post({ param: { id }, json }))
  if (!result.ok) return refused(result)
  const late = result.data.dejaDecides.length
  return auth.redirectWithToast(here, {
    type: late > 0 ? 'error' : 'success',
    key: late > 0 ? 'reviews.partlyDecided' : decision === 'TERMINER' ? 'reviews.ended' : 'reviews.confirmed',
    values: { count: result.data.decides.length, late },
  })
}
