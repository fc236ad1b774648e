import { parseWithZod } from '@conform-to/zod/v4'
import type { Auth } from '~/lib/auth.server'
import { formFailure } from '~/lib/form.server'
import { type Structure, structureFormSchema } from '../../../worker-api/contract/organisation/structure'
import type { ParentChoice } from './structure-form'

/**
 * What the structure form needs besides the structure: the types, and the parents the chosen type
 * allows (spec §4: the parent list depends on the type). The type comes from the URL when the form
 * asked for another one (a GET of the form itself, with or without JavaScript), else from the
 * structure being edited — which is never offered as its own parent, nor is anything below it.
 */
export async function placementChoices(
  auth: Auth,
  url: URL,
  editing: { id: number; structure: Promise<Structure> } | null,
) {
  const asked = Number(url.searchParams.get('type'))
  const askedType = Number.isSafeInteger(asked) && asked > 0 ? asked : null
  // Asked alongside the types and the structure, in one round trip: the parents of the type the URL
  // names, else those the edited structure may move under (the API takes its type from it).
  const asking = askedType
    ? auth.settle(auth.api.rest.bd.structure.parent[':typeId'].$get({ param: { typeId: askedType } }))
    : editing
      ? auth.settle(auth.api.rest.bd.structure[':id'].parents.$get({ param: { id: editing.id } }))
      : null
  const [types, structure, found] = await Promise.all([
    auth.expect(auth.api.rest.bd.typestructure.me.$get()),
    editing?.structure ?? null,
    asking,
  ])
  const typeId = askedType ?? structure?.type.id ?? null
  const known = types.some((type) => type.id === typeId)
  const candidates = known && found?.ok ? found.data : []
  const parents = structure ? candidates.filter((parent) => !parent.path.startsWith(structure.path)) : candidates
  // A parent is an option (its id and name): a type may have hundreds, each sent with the page.
  return {
    types,
    typeId: known ? typeId : null,
    parents: parents.map(({ id, nom }): ParentChoice => ({ id, nom })),
    nom: url.searchParams.get('nom'),
  }
}

/**
 * Saves the structure form (create when `id` is null): the API's refusals land on their fields (the
 * name taken, a parent that does not fit), anything else on the form; success goes back to the list
 * (spec §2) with a notice.
 */
export async function saveStructure(formData: FormData, auth: Auth, id: number | null) {
  const submission = parseWithZod(formData, { schema: structureFormSchema })
  if (submission.status !== 'success') return formFailure('structure', submission, { headers: await auth.headers() })
  const { nom, type, parent } = submission.value
  const json = { id, nom, type: { id: type }, parent: parent ? { id: parent } : null }
  const result =
    id === null
      ? await auth.settle(auth.api.rest.bd.structure.$post({ json }))
      : await auth.settle(auth.api.rest.bd.structure.$put({ json }))
  if (!result.ok) {
    return formFailure('structure', submission, {
      failure: result,
      fallback: 'errors.saveFailed',
      onField: { STRUCTURE_NOM_ALREADY_USED: 'nom', STRUCTURE_PARENT_INVALID: 'parent', STRUCTURE_HAS_CHILD: 'type' },
      // An edit's type refused by the children: said as such, not with the delete's message (spec §8).
      messages: { STRUCTURE_HAS_CHILD: 'structures.typeLockedByChildren' },
      headers: await auth.headers(),
    })
  }
  return auth.redirectWithToast('/pages/admin/listeStructures', {
    type: 'success',
    key: id === null ? 'structures.created' : 'structures.saved',
    values: { nom: result.data.nom },
  })
}
