import type { StructureChoices } from '../organisation/structure-choice'

/**
 * What the webhooks' screens (/pages/admin/webhooks, and a subscription's delivery log below it) and their server
 * module share: the forms' intents, the search params of a row's panels, the ids the links lead to, and what an
 * action shows once.
 */

/** Where the list lives, and where a secret's page and a delivery log lead back. */
export const WEBHOOKS_PATH = '/pages/admin/webhooks'

/** The create form's Save. */
export const CREATE_INTENT = 'creer'
/** Without JavaScript, the create form posted back to search the structures (nothing saved). */
export const SEARCH_INTENT = 'structures'
/** A row changed (address, events, description, on or off), from its panel. */
export const EDIT_INTENT = 'modifier'
/** A row's new secret, from its panel. */
export const RENEW_INTENT = 'secret'
/** A row's deletion, once confirmed. */
export const DELETE_INTENT = 'supprimer'
/** A delivery sent again, from the log. */
export const RESEND_INTENT = 'renvoyer'

/** The search param that opens a row's edit panel (`?modifier=<id>`). */
export const EDIT_PARAM = 'modifier'
/** The edit panel's id (`#modifier-webhook`). */
export const EDIT_PANEL = 'modifier-webhook'
/** The edit panel opened from a delivery log (`?modifier=<id>&journal=1`): cancelled or saved, back to that log. */
export const FROM_LOG_PARAM = 'journal'
/** The delivery log's link that opens the edit panel: where focus comes back from it. */
export const LOG_EDIT_LINK = 'journal-modifier'
/** A subscription's delivery log. */
export const logPath = (id: number) => `${WEBHOOKS_PATH}/${id}`
/** The search param that opens a row's renewal panel (`?secret=<id>`). */
export const RENEW_PARAM = 'secret'
/** The renewal panel's id (`#nouveau-secret`). */
export const RENEW_PANEL = 'nouveau-secret'
/** The create form's section: the page's "new" link leads there. */
export const CREATE_SECTION = 'nouveau-webhook'
/** The create form's id, the prefix of its fields' ids (`webhook-url`). */
export const CREATE_FORM = 'webhook'
/** The edit panel's form id, the prefix of its fields' ids (`modifier-url`). */
export const EDIT_FORM = 'modifier'
/** The prefix of the rows' ids (`webhook-4`). */
export const ROW = 'webhook'
/** The log's state filter (`?etat=LIVREE`). */
export const STATE_PARAM = 'etat'
/** A page of the delivery log on the screen. */
export const DELIVERIES_SHOWN = 20
/** The prefix of the log's rows' ids (`livraison-12`). */
export const DELIVERY_ROW = 'livraison'

/**
 * A subscription's secret, shown this once, as the answer of the write that made it (a creation, a new secret): the
 * portal keeps it sealed, so it travels in that answer alone — never in a URL, a cookie or a notice.
 */
export type ShownWebhookSecret = {
  intent: 'secretShown'
  event: 'created' | 'renewed'
  url: string
  secret: string
  /** After a renewal, until when the former secret signs too; null once revoked. */
  ancienSecretExpire: string | null
}

/** The secret an action answered, if that is what it answered. */
export function shownWebhookSecret(actionData: unknown): ShownWebhookSecret | null {
  const shown = actionData as Partial<ShownWebhookSecret> | undefined
  return shown?.intent === 'secretShown' ? (shown as ShownWebhookSecret) : null
}

/** A form's answer when it stays on the page: its reply, and the structures to choose from again. */
export type ReplyChoices = { choices?: StructureChoices }
