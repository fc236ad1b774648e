import type { Auth } from '~/lib/auth.server'
import { readSearch } from '~/lib/url'
import { STRUCTURE_SEARCH, type StructureChoices } from './structure-choice'

/** How many structures a form lists to choose from; the others are found by searching their name. */
export const STRUCTURE_CHOICES = 50
/** A structure of the caller's scope by id, as a choice; its refusal tells unknown (404) from out of scope (403). */
export async function structureChoice(auth: Auth, id: number) {
  const read = await auth.settle(auth.api.rest.bd.structure[':id'].$get({ param: { id } }))
  return read.ok
    ? { found: { id: read.data.id, nom: read.data.nom }, refused: null }
    : { found: null, refused: read.status }
}

/**
 * The caller's structures matching the search `asked` for (in the URL or a posted form), the first `STRUCTURE_CHOICES` by name, with the structure `chosen`
 * (read by id, so that one beyond the page stays chosen). Started in the same tick as the page's other reads, they
 * share its one round trip.
 */
export async function structureChoices(auth: Auth, asked: URLSearchParams | FormData, chosen: number | null) {
  const recherche = readSearch(asked, STRUCTURE_SEARCH)
  const [{ items, total }, one] = await Promise.all([
    auth.expectPage(
      auth.api.rest.bd.structure.user.me.$get({
        query: { page: 1, taille: STRUCTURE_CHOICES, tri: 'nom', ...(recherche ? { q: recherche } : {}) },
      }),
    ),
    chosen ? structureChoice(auth, chosen) : { found: null, refused: null },
  ])
  const structures = items.map(({ id, nom }) => ({ id, nom }))
  const { found, refused } = one
  if (found && !structures.some((structure) => structure.id === found.id)) structures.unshift(found)
  return {
    choices: { structures, shown: items.length, total, recherche } satisfies StructureChoices,
    chosen: found,
    refused,
  }
}
