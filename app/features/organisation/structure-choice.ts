export type StructureChoice = { id: number; nom: string }

/** The field a structure search is typed in (its no-JavaScript post, its address). */
export const STRUCTURE_SEARCH = 'structureRecherche'

/**
 * The structures a form offers: a page of those matching the search (`shown` of `total`), the one chosen with them.
 */
export type StructureChoices = { structures: StructureChoice[]; shown: number; total: number; recherche: string }
