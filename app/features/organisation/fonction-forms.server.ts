import type { SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { z } from 'zod'
import { apiMessage, encodeMessage, type Failure, fieldErrors, type Message } from '~/lib/api-errors'
import type { Auth } from '~/lib/auth.server'
import { focusFragment, formReply, submitted } from '~/lib/form.server'
import { pathWithout } from '~/lib/url'
import { positiveInt } from '../../../worker-api/contract/common'
import { FONCTION_GRANTS_MAX, fonctionLibelleSchema } from '../../../worker-api/contract/organisation/structure'

/** The forms of a structure's functions, by their `intent`. */
export const FONCTION_INTENTS = [
  'fonction-ajouter',
  'fonction-renommer',
  'fonction-acces',
  'fonction-supprimer',
] as const
export type FonctionIntent = (typeof FONCTION_INTENTS)[number]

export const isFonctionIntent = (value: unknown): value is FonctionIntent =>
  (FONCTION_INTENTS as readonly unknown[]).includes(value)

const addSchema = z.object({ libelle: fonctionLibelleSchema })
const renameSchema = z.object({ id: positiveInt(), libelle: fonctionLibelleSchema })
const accessSchema = z.object({
  id: positiveInt(),
  applications: z.array(z.coerce.number<number>().int().positive()).max(FONCTION_GRANTS_MAX).default([]),
})

/** The query parameters that open a function's inline form (`?renommer=5`, `?acces=5`, `?confirmer=…`). */
const OPENERS = ['renommer', 'acces', 'confirmer', 'id']

/**
 * What the structure page shows of its functions: each with the applications it grants and how many
 * posts hold it; for a root administrator who opened a function's grants (`?acces=`), the catalogue
 * to tick them from.
 */
export async function structureFonctions(auth: Auth, url: URL, structureId: number) {
  const granting = Number(url.searchParams.get('acces'))
  // The catalogue is asked for with the rest when a function's grants are open: one round trip (the
  // API refuses it to an administrator who is not of the root, whose page then shows no grants form),
  // without the functions that grant each application, which the form does not show.
  const [fonctions, me, offered] = await Promise.all([
    auth.expect(auth.api.rest.bd.fonction.structure[':id'].$get({ param: { id: structureId } })),
    auth.expect(auth.api.rest.bd.session.$get()),
    Number.isSafeInteger(granting) && granting > 0
      ? auth.settle(auth.api.rest.bd.application.$get({ query: { fonctionsMax: 0 } }))
      : null,
  ])
  const opened = me.racine ? fonctions.find((f) => f.id === granting) : undefined
  const catalogue = opened && offered?.ok ? offered.data : []
  return {
    fonctions,
    racine: me.racine,
    catalogue: catalogue.map(({ id, libelle, actif }) => ({ id, libelle, actif })),
  }
}

/**
 * A function form of the structure page: add one, rename one, set what it grants (root
 * administrators), delete one. A refused name lands on the form's field; a refused delete (posts hold
 * it, how many) on the page. Success comes back to the page, the inline form closed, with a notice.
 */
export async function fonctionAction(request: Request, form: FormData, auth: Auth, structureId: number) {
  const intent = form.get('intent') as FonctionIntent
  const back = (id: number | null) =>
    `${pathWithout(request.url, OPENERS)}${id === null ? '#fonctions' : focusFragment(form) || `#fonction-${id}`}`
  const submission = submitted(form)
  const refused = async (error: Message) => formReply(intent, submission.reply(), error, await auth.headers())
  const libelle = String(form.get('libelle') ?? '')

  if (intent === 'fonction-ajouter') {
    const checked = parseWithZod(form, { schema: addSchema })
    if (checked.status !== 'success') return fieldFailure(intent, checked, auth)
    const created = await auth.settle(
      auth.api.rest.bd.fonction.$post({ json: { libelle: checked.value.libelle, structure: { id: structureId } } }),
    )
    if (!created.ok) return apiFailure(intent, checked, created, auth)
    return auth.redirectWithToast(back(created.data.id), {
      type: 'success',
      key: 'fonctions.created',
      values: { libelle: created.data.libelle },
    })
  }

  if (intent === 'fonction-renommer') {
    const id = Number(form.get('id')) || null
    const checked = parseWithZod(form, { schema: renameSchema })
    if (checked.status !== 'success') return fieldFailure(intent, checked, auth)
    const saved = await auth.settle(auth.api.rest.bd.fonction.$put({ json: checked.value }))
    if (!saved.ok) return apiFailure(intent, checked, saved, auth)
    return auth.redirectWithToast(back(id), {
      type: 'success',
      key: 'fonctions.renamed',
      values: { libelle: saved.data.libelle },
    })
  }

  if (intent === 'fonction-acces') {
    const checked = parseWithZod(form, { schema: accessSchema })
    if (checked.status !== 'success') return refused({ key: 'errors.technical' })
    const { id, applications } = checked.value
    // The name as it stands now, read again: a rename made meanwhile is kept.
    const current = await auth.settle(auth.api.rest.bd.fonction.structure[':id'].$get({ param: { id: structureId } }))
    const fonction = current.ok ? current.data.find((f) => f.id === id) : undefined
    if (!current.ok || !fonction) {
      return refused(current.ok ? { key: 'fonctions.gone' } : apiMessage(current, 'errors.saveFailed'))
    }
    const saved = await auth.settle(
      auth.api.rest.bd.fonction.$put({
        json: { id, libelle: fonction.libelle, applications: [...new Set(applications)].map((a) => ({ id: a })) },
      }),
    )
    if (!saved.ok) return apiFailure(intent, checked, saved, auth)
    return auth.redirectWithToast(back(id), {
      type: 'success',
      key: 'fonctions.grantsSaved',
      values: { libelle: fonction.libelle },
    })
  }

  const id = Number(form.get('id'))
  if (!Number.isSafeInteger(id) || id < 1) return refused({ key: 'errors.technical' })
  const deleted = await auth.settle(auth.api.rest.bd.fonction[':id'].$delete({ param: { id } }))
  if (!deleted.ok) return refused(apiMessage(deleted, 'errors.updateFailed'))
  return auth.redirectWithToast(back(null), { type: 'success', key: 'fonctions.deleted', values: { libelle } })
}

/** What conform's reply needs of a checked form. */
type Checked = { reply(options?: { fieldErrors?: Record<string, string[]> }): SubmissionResult<string[]> }

/** A name the form itself refuses (empty, too short or long): said on the field. */
async function fieldFailure(
  intent: FonctionIntent,
  checked: Checked & { error?: Record<string, string[] | null> | null },
  auth: Auth,
) {
  const onField = checked.error?.libelle
  return formReply(intent, checked.reply(), onField ? null : { key: 'errors.technical' }, await auth.headers())
}

/** The API's refusal: a name taken or refused on the field, anything else on the page. */
async function apiFailure(intent: FonctionIntent, checked: Checked, failure: Failure, auth: Auth) {
  const onField = fieldErrors(failure)?.libelle
  const message = apiMessage(failure, 'errors.saveFailed')
  const errors =
    onField ?? (failure.error.businessCode === 'FONCTION_LIBELLE_ALREADY_USED' ? [encodeMessage(message)] : null)
  const result = checked.reply(errors ? { fieldErrors: { libelle: errors } } : undefined)
  return formReply(intent, result, errors ? null : message, await auth.headers())
}
