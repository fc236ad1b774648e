import { data } from '@remix-run/cloudflare'
import { structureChoices } from '~/features/organisation/structure-choices.server'
import { apiMessage, fieldErrors, type Message } from '~/lib/api-errors'
import type { Auth } from '~/lib/auth.server'
import { readForm } from '~/lib/form.server'
import { listQuery } from '~/lib/pagination'
import { UNREVIEWED_OUTCOMES } from '../../../worker-api/contract/access-reviews'
import { REVIEW_SEARCH_INTENT } from './review-page'

/** What a refused campaign form brings back: its fields as typed, their errors, the structures to choose from. */
export type ReviewFormReply = {
  values: Record<string, string>
  fields: Record<string, string[]>
  error: Message | null
  choices: Awaited<ReturnType<typeof structureChoices>>['choices']
}

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
 * (`intent=structures`: the form again with what was typed). A refusal comes back on its fields.
 */
export async function reviewsAction(request: Request, auth: Auth) {
  const form = await readForm(request)
  const text = (name: string) => String(form.get(name) ?? '').trim()
  const values = {
    nom: text('nom'),
    structure: text('structure'),
    echeance: text('echeance'),
    siNonRevu: text('siNonRevu'),
  }
  const structure = Number(values.structure)
  const chosen = Number.isSafeInteger(structure) && structure > 0 ? structure : null
  const again = async (fields: Record<string, string[]>, error: Message | null, status = 400) => {
    const { choices } = await structureChoices(auth, form, chosen)
    return data({ values, fields, error, choices } satisfies ReviewFormReply, {
      status,
      headers: await auth.headers(),
    })
  }
  if (form.get('intent') === REVIEW_SEARCH_INTENT) return again({}, null, 200)
  if (!chosen) return again({ structure: ['validation.required'] }, null)
  const siNonRevu = (UNREVIEWED_OUTCOMES as readonly string[]).includes(values.siNonRevu)
    ? (values.siNonRevu as (typeof UNREVIEWED_OUTCOMES)[number])
    : null
  if (!siNonRevu) return again({ siNonRevu: ['validation.required'] }, null)
  const result = await auth.settle(
    auth.api.rest.bd.revue.$post({
      json: { nom: values.nom, structure: { id: chosen }, echeance: values.echeance, siNonRevu },
    }),
  )
  if (result.ok) {
    return auth.redirectWithToast(`/pages/admin/revues/${result.data.id}`, { type: 'success', key: 'reviews.opened' })
  }
  const fields: Record<string, string[]> = {}
  for (const [field, messages] of Object.entries(fieldErrors(result) ?? {})) {
    const name = field.startsWith('structure') ? 'structure' : field
    fields[name] = [...(fields[name] ?? []), ...messages]
  }
  return again(fields, Object.keys(fields).length > 0 ? null : apiMessage(result, 'errors.updateFailed'))
}
