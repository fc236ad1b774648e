import type { BusinessCode } from '../../worker-api/contract/errors'
import type { fr } from '../locales/fr'
import type { ApiResult } from './api.server'

export type Message = { key: string; values?: Record<string, string | number> }

/**
 * How the UI shows each business code the API answers with (DESIGN §2: spec §8's messages): with its
 * own message, `errors.<CODE>` (true), or with the message of the screen that failed (false). Keyed by
 * the API's union, so a new code does not type-check until it is decided here.
 */
const OWN_MESSAGE = {
  VALIDATION_FAILED: false,
  UNAUTHORIZED: false,
  FORBIDDEN: true,
  NOT_FOUND: false,
  TOO_MANY_ATTEMPTS: true,
  TECHNICAL_ERROR: false,
  LIST_TOO_LARGE: true,
  REQUEST_TOO_LARGE: true,
  INVALID_TOKEN: false,
  INVALID_REFRESH_TOKEN: false,
  REFRESH_TOKEN_EXPIRED: false,
  REFRESH_TOKEN_REUSED: false,
  APPLICATION_TOKEN_SCOPE: false,
  SERVICE_ACCOUNT_SCOPE: false,
  SERVICE_ACCOUNT_SUSPENDED: false,
  BAD_CREDENTIAL: true,
  USER_DISABLED: true,
  USER_UNAUTHORIZED_DOMAIN: true,
  USER_NOT_FINISH_REGISTRATION: true,
  MFA_REQUIRED: false,
  MFA_CODE_INVALID: true,
  MFA_CHALLENGE_INVALID: true,
  MFA_ENROLMENT_REQUIRED: true,
  MFA_FACTOR_REQUIRED: true,
  MFA_TOTP_ALREADY_ON: true,
  PASSKEY_INVALID: true,
  CAPTCHA_CHAR_INVALID: true,
  CAPTCHA_VALIDATE_FAILED: true,
  TOKEN_NOT_FOUND: true,
  TOKEN_USED: true,
  TOKEN_EXPIRED: true,
  BAD_OLD_PASSWORD: true,
  MAIL_ALREADY_USED: true,
  INVITATION_NOT_PENDING: true,
  INVITATION_WAITS_ACTIVATION: true,
  STRUCTURE_HAS_CHILD: true,
  STRUCTURE_HAS_USERS: true,
  STRUCTURE_HAS_WEBHOOK: true,
  STRUCTURE_NOM_ALREADY_USED: true,
  STRUCTURE_PARENT_INVALID: true,
  POSTE_ALREADY_EXIST: true,
  APPLICATION_LIBELLE_ALREADY_USED: true,
  OIDC_CLIENT_NOT_CONFIDENTIAL: true,
  OIDC_UNKNOWN_CLIENT: true,
  OIDC_REDIRECT_URI_MISMATCH: true,
  OIDC_DEVICE_CODE_UNKNOWN: true,
  OIDC_DEVICE_NOT_GRANTED: true,
  SAML_REQUEST_UNKNOWN: true,
  SAML_NOT_GRANTED: true,
  FONCTION_LIBELLE_ALREADY_USED: true,
  FONCTION_HAS_POSTES: true,
  IDP_ISSUER_ALREADY_USED: true,
  IDP_DOMAIN_ALREADY_USED: true,
  IDP_DISCOVERY_FAILED: true,
  IDP_SIGN_IN_FAILED: true,
  IDP_REGISTRATION_PENDING: true,
  IDP_FIRST_SIGN_IN_REFUSED: true,
  IDP_NO_ACCOUNT: true,
  IDP_LINK_CONFLICT: true,
  IDP_LAST_WAY_IN: true,
  SERVICE_ACCOUNT_KEYS_ONLY: true,
  SERVICE_ACCOUNT_SECRET_ONLY: true,
  IMPORT_ALREADY_STARTED: true,
  DEMANDE_EN_COURS: true,
  DEMANDE_TRAITEE: true,
  ACCES_DEJA_OUVERT: true,
  REVUE_FERMEE: true,
  REVUE_DEJA_DECIDEE: true,
  REVUE_INCOMPLETE: true,
  LISTE_CREATION_FAILED: true,
  LISTE_UPDATE_FAILED: true,
} as const satisfies Record<BusinessCode, boolean>

/** The codes shown with their own message: each has one in the reference language (checked here). */
type OwnMessageCode = { [C in BusinessCode]: (typeof OWN_MESSAGE)[C] extends true ? C : never }[BusinessCode]
type WithoutMessage = Exclude<OwnMessageCode, keyof (typeof fr)['errors']>
export const everyOwnMessageExists: [WithoutMessage] extends [never] ? true : WithoutMessage = true

const hasOwnMessage = (code: string): code is OwnMessageCode => OWN_MESSAGE[code as BusinessCode] === true

export type Failure = Extract<ApiResult<unknown>, { ok: false }>

/**
 * The message of a failed call (DESIGN §2: the UI maps `businessCode` to spec §8's messages): the
 * code's own message when the portal knows it, else `fallback` (the screen's generic failure).
 */
export function apiMessage(result: Failure, fallback: string): Message {
  const code = result.error.businessCode
  if (!hasOwnMessage(code)) return { key: fallback }
  const value = MESSAGE_VALUE[code]
  return value ? { key: `errors.${code}`, values: value(result.error.attributs[0]) } : { key: `errors.${code}` }
}

/** The codes whose message names their first attribute: how it reads in the message. */
const MESSAGE_VALUE: Partial<Record<OwnMessageCode, (first: unknown) => Record<string, string | number>>> = {
  TOO_MANY_ATTEMPTS: (first) => ({ seconds: Number(first ?? 60) }),
  STRUCTURE_NOM_ALREADY_USED: (first) => ({ nom: String(first ?? '') }),
  APPLICATION_LIBELLE_ALREADY_USED: (first) => ({ nom: String(first ?? '') }),
  FONCTION_LIBELLE_ALREADY_USED: (first) => ({ nom: String(first ?? '') }),
  SAML_NOT_GRANTED: (first) => ({ nom: String(first ?? '') }),
  IDP_ISSUER_ALREADY_USED: (first) => ({ nom: String(first ?? '') }),
  IDP_DOMAIN_ALREADY_USED: (first) => ({ nom: String(first ?? '') }),
  IDP_DISCOVERY_FAILED: (first) => ({ raison: String(first ?? '') }),
  FONCTION_HAS_POSTES: (first) => ({ count: Number(first ?? 0) }),
  LIST_TOO_LARGE: (first) => ({ max: Number(first ?? 0) }),
  REQUEST_TOO_LARGE: (first) => ({ max: Math.floor(Number(first ?? 65_536) / 1024) }),
}

/** VALIDATION_FAILED's field errors (`attributs: [{field, message}]`), by field. */
export function fieldErrors(result: Failure): Record<string, string[]> | null {
  if (result.error.businessCode !== 'VALIDATION_FAILED') return null
  const byField: Record<string, string[]> = {}
  for (const item of result.error.attributs) {
    const { field, message } = (item ?? {}) as { field?: unknown; message?: unknown }
    if (typeof field === 'string' && typeof message === 'string') byField[field] = [...(byField[field] ?? []), message]
  }
  return byField
}

/**
 * Spec §8 (login): a failed call shows the message of its businessCode when there is one, the bad-credentials
 * message on a 401, server-not-found on a 404, else a generic technical error.
 */
export function loginMessage(result: Failure): Message {
  const code = result.error.businessCode
  if (hasOwnMessage(code)) return apiMessage(result, 'errors.technical')
  if (result.status === 401) return { key: 'errors.BAD_CREDENTIAL' }
  if (result.status === 404) return { key: 'errors.serverNotFound' }
  return { key: 'errors.technical' }
}

/**
 * A message as a field error, which conform carries as a string: the key, with its values as a query
 * ('errors.STRUCTURE_NOM_ALREADY_USED?nom=Agence%20Lille'). `translateError` reads it back.
 */
export function encodeMessage(message: Message): string {
  if (!message.values) return message.key
  const values = Object.entries(message.values).map(([name, value]) => [name, String(value)])
  return `${message.key}?${new URLSearchParams(values).toString()}`
}

/** A field error (an i18n key, maybe with values: `encodeMessage`) in the page's language. */
export function translateError(t: (key: string, values?: Record<string, string>) => string, error: string): string {
  const at = error.indexOf('?')
  if (at < 0) return t(error)
  return t(error.slice(0, at), Object.fromEntries(new URLSearchParams(error.slice(at + 1))))
}
