import type { StructureChoices } from '../organisation/structure-choice'

/**
 * What the identity providers' screen (/pages/admin/fournisseurs) and its server module share: its forms' intents, the
 * search params of a row's panels, the ids its links lead to.
 */

/** The create form's Save. */
export const CREATE_INTENT = 'creer'
/** Without JavaScript, the create form posted back to search the structures (nothing saved). */
export const SEARCH_INTENT = 'structures'
/** A row's change, from its panel. */
export const EDIT_INTENT = 'modifier'
/** Without JavaScript, the edit panel posted back to search the structures (nothing saved). */
export const EDIT_SEARCH_INTENT = 'structures-modifier'
/** A row's deletion, once confirmed. */
export const DELETE_INTENT = 'supprimer'

/** The search param that opens a row's edit panel (`?modifier=<id>`), the same with and without JavaScript. */
export const EDIT_PARAM = 'modifier'
/** The edit panel's id: the row's link leads there (`#modifier-fournisseur`). */
export const EDIT_PANEL = 'modifier-fournisseur'
/** The create form's section: the page's "new" link leads there. */
export const CREATE_SECTION = 'nouveau-fournisseur'
/** The prefix of the rows' ids (`fournisseur-4`). */
export const ROW = 'fournisseur'
/** The create form's id, the prefix of its fields' ids (`fournisseur-nom`). */
export const CREATE_FORM = 'fournisseur'
/** The edit panel's form id, the prefix of its fields' ids (`modifier-nom`). */
export const EDIT_FORM = 'modifier'

/** The fields a reply never gives back: the client secret is never shown again, not even to its author. */
export const SECRET_FIELDS = ['secret']

/** The scopes a new provider is offered with. */
export const DEFAULT_SCOPES = 'openid email profile'

/** The addresses the administrator registers at the provider: where it sends the browser back, the portal's keys. */
export type ProviderAddresses = { redirectUri: string; jwksUri: string }

/** A form's answer when it stays on the page: its reply, and the structures to choose from again. */
export type ReplyChoices = { choices?: StructureChoices }
