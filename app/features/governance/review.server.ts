import { data } from '@remix-run/cloudflare'
import { apiMessage, fieldErrors, type Message } from '~/lib/api-errors'
import type { Auth } from '~/lib/auth.server'
import { readForm } from '~/lib/form.server'
import { readPage } from '~/lib/pagination'
import { readSearch } from '~/lib/url'
import { DECISIONS_MAX, ITEM_STATES, type ItemState } from '../../../worker-api/contract/access-reviews'
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

/** What a decision of the page brings back: a confirmation to give (ending posts), or why it was refused. */
export type DecisionReply =
  | {
      kind: 'confirm'
      ids: number[]
      dateFin: string
      commentaire: string
    }
  | {
      /** Everything the URL's filter keeps still to review (`count` of them), to confirm or end. */
      kind: 'confirmAll'
      decision: 'CONFIRMER' | 'TERMINER'
      count: number
      dateFin: string
      commentaire: string
    }
  | { kind: 'refused'; error: Message; fields: Record<string, string[]> }

/**
 * The page's forms: the decision of one item (`un=CONFIRMER:<id>`), of the items ticked (`decision`), or of every item
 * the URL's filter keeps still to review (`tous`), with the end and the comment given for them; ending posts, or deciding
 * everything, asks for a confirmation first (`confirme`), the page again with what will be decided. Closing the
 * campaign (`intent=cloture`, after its confirmation).
 */
export async function reviewAction(request: Request, auth: Auth, id: number) {
  const form = await readForm(request)
  const back = new URL(request.url)
  const here = `${back.pathname}${back.search}`
  const refused = async (error: Message, fields: Record<string, string[]> = {}) =>
    data({ kind: 'refused', error, fields } satisfies DecisionReply, { status: 400, headers: await auth.headers() })
  if (form.get('intent') === 'cloture') {
    const result = await auth.settle(auth.api.rest.bd.revue[':id'].cloture.$post({ param: { id } }))
    if (result.ok) return auth.redirectWithToast(here, { type: 'success', key: 'reviews.closed' })
    return refused(apiMessage(result, 'errors.updateFailed'))
  }
  const dateFin = String(form.get('dateFin') ?? '').trim()
  const commentaire = String(form.get('commentaire') ?? '').trim()
  const everything = form.get('tous')
  if (everything === 'CONFIRMER' || everything === 'TERMINER') {
    const filters = filtersOf(back.searchParams)
    if (form.get('confirme') !== 'oui') {
      const counted = await auth.settle(
        auth.api.rest.bd.revue[':id'].$get({
          param: { id },
          query: { ...filters, etat: 'A_REVOIR', elements: 1 },
        }),
      )
      if (!counted.ok) return refused(apiMessage(counted, 'errors.technical'))
      const count = counted.data.totalElements ?? 0
      if (count === 0) return refused({ key: 'reviews.allNone' })
      return data({ kind: 'confirmAll', decision: everything, count, dateFin, commentaire } satisfies DecisionReply, {
        headers: await auth.headers(),
      })
    }
    const result = await auth.settle(
      auth.api.rest.bd.revue[':id'].decisions.tous.$post({
        param: { id },
        json: {
          decision: everything,
          ...filters,
          ...(everything === 'TERMINER' && dateFin ? { dateFin } : {}),
          ...(commentaire ? { commentaire } : {}),
        },
      }),
    )
    if (!result.ok) return refused(apiMessage(result, 'errors.updateFailed'), fieldErrors(result) ?? {})
    const { decides, restants } = result.data
    return auth.redirectWithToast(here, {
      type: decides === 0 ? 'error' : 'success',
      key: restants > 0 ? 'reviews.allLeft' : everything === 'TERMINER' ? 'reviews.ended' : 'reviews.confirmed',
      values: { count: decides, restants },
    })
  }
  const single = String(form.get('un') ?? '')
  const [one, oneId] = single.split(':')
  const decision = single ? one : String(form.get('decision') ?? '')
  const ids = (single ? [oneId] : form.getAll('element'))
    .map(Number)
    .filter((value) => Number.isSafeInteger(value) && value > 0)
    .slice(0, DECISIONS_MAX)
  if (decision !== 'CONFIRMER' && decision !== 'TERMINER') return refused({ key: 'errors.technical' })
  if (ids.length === 0) return refused({ key: 'reviews.noneTicked' })
  if (decision === 'TERMINER' && form.get('confirme') !== 'oui') {
    return data({ kind: 'confirm', ids, dateFin, commentaire } satisfies DecisionReply, {
      headers: await auth.headers(),
    })
  }
  const json = ids.map((element) => ({
    element: { id: element },
    decision: decision as 'CONFIRMER' | 'TERMINER',
    ...(decision === 'TERMINER' && dateFin ? { dateFin } : {}),
    ...(commentaire ? { commentaire } : {}),
  }))
  const result = await auth.settle(auth.api.rest.bd.revue[':id'].decisions.$post({ param: { id }, json }))
  if (result.ok) {
    const late = result.data.dejaDecides.length
    return auth.redirectWithToast(here, {
      type: late > 0 ? 'error' : 'success',
      key: late > 0 ? 'reviews.partlyDecided' : decision === 'TERMINER' ? 'reviews.ended' : 'reviews.confirmed',
      values: { count: result.data.decides.length, late },
    })
  }
  const fields: Record<string, string[]> = {}
  for (const [field, messages] of Object.entries(fieldErrors(result) ?? {})) {
    const name = field.endsWith('dateFin') ? 'dateFin' : field.endsWith('commentaire') ? 'commentaire' : field
    fields[name] = [...(fields[name] ?? []), ...messages]
  }
  return refused(apiMessage(result, 'errors.updateFailed'), fields)
}
