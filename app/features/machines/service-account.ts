import type { StructureChoices } from '../organisation/structure-choice'

/**
 * What the service accounts screen (/pages/admin/comptesService) and its server module share: its
 * forms' intents, the search param of a row's renewal, and what an action shows once.
 */

/** The create form's Save. */
export const CREATE_INTENT = 'creer'
/** Without JavaScript, the create form posted back to search the structures (nothing saved). */
export const SEARCH_INTENT = 'structures'
/** A row's new secret, from its panel. */
export const RENEW_INTENT = 'secret'
/** A row's deletion, once confirmed. */
export const DELETE_INTENT = 'supprimer'
/** A row taken over by the administrator at the keyboard, from its panel. */
export const TAKEOVER_INTENT = 'reprendre'

/** A row handed to another administrator of its structure, from its panel. */
export const HANDOVER_INTENT = 'confier'
/** A row changed (name, description, scopes, on or off, keys), from its panel. */
export const EDIT_INTENT = 'modifier'

/** The search param that opens a row's renewal panel (`?secret=<id>`), the same with and without JavaScript. */
export const RENEW_PARAM = 'secret'
/** The renewal panel's id: the row's link leads there (`#nouveau-secret`). */
export const RENEW_PANEL = 'nouveau-secret'
/** The search param that opens a row's take-over panel (`?reprendre=<id>`). */
export const TAKEOVER_PARAM = 'reprendre'
/** The take-over panel's id (`#reprendre-compte`). */
export const TAKEOVER_PANEL = 'reprendre-compte'
/** The search param that opens a row's hand-over panel (`?confier=<id>`). */
export const HANDOVER_PARAM = 'confier'
/** The hand-over panel's id (`#confier-compte`). */
export const HANDOVER_PANEL = 'confier-compte'
/** The search param that opens a row's edit panel (`?modifier=<id>`). */
export const EDIT_PARAM = 'modifier'
/** The edit panel's id (`#modifier-compte`). */
export const EDIT_PANEL = 'modifier-compte'
/** The search of the administrators to hand an account to (`?administrateur=`), when more than the select shows. */
export const HEIR_SEARCH_PARAM = 'administrateur'
/** How many of them the select offers. */
export const HEIRS_SHOWN = 50
/** The search param that keeps the accounts acting for one administrator (`?responsable=<user id>`). */
export const RESPONSIBLE_PARAM = 'responsable'
/** The create form's section: the page's "new" link leads there. */
export const CREATE_SECTION = 'nouveau-compte'
/** The prefix of the rows' ids (`compte-4`). */
export const ROW = 'compte'

/** The fields a reply never gives back. */
export const SECRET_FIELDS = ['motDePasse', 'code']

/**
 * A client's credentials, shown this once, as the answer of the write that made them (a creation, a
 * new secret): the portal keeps only the secret's SHA-256, so it travels in that answer alone — never
 * in a URL, a cookie or a notice. `clientSecret` is null for an account that signs in with its keys.
 */
export type ShownServiceSecret = {
  intent: 'secretShown'
  event: 'created' | 'renewed' | 'takenOver' | 'handedOver'
  nom: string
  clientId: string
  clientSecret: string | null
  /** After a renewal, until when the former secret works; null once revoked. */
  ancienSecretExpire: string | null
}

/** The secret an action answered, if that is what it answered. */
export function shownServiceSecret(actionData: unknown): ShownServiceSecret | null {
  const shown = actionData as Partial<ShownServiceSecret> | undefined
  return shown?.intent === 'secretShown' ? (shown as ShownServiceSecret) : null
}

/** The create form's answer when it stays on the page: its reply, and the structures to choose from again. */
export type CreateReplyChoices = { choices?: StructureChoices }
