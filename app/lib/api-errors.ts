import type { ApiResult } from './api.server'

export type Message = { key: string; values?: Record<string, string | number> }

const KNOWN = new Set([
  'BAD_CREDENTIAL',
  'USER_DISABLED',
  'USER_UNAUTHORIZED_DOMAIN',
  'USER_NOT_FINISH_REGISTRATION',
  'LISTE_CREATION_FAILED',
  'CAPTCHA_CHAR_INVALID',
  'CAPTCHA_VALIDATE_FAILED',
  'LISTE_UPDATE_FAILED',
  'TOKEN_EXPIRED',
  'TOKEN_USED',
  'TOKEN_NOT_FOUND',
  'BAD_OLD_PASSWORD',
  'MAIL_ALREADY_USED',
  'FORBIDDEN',
])

export type Failure = Extract<ApiResult<unknown>, { ok: false }>

/**
 * The message of a failed call (DESIGN §2: the UI maps `businessCode` to spec §8's messages): the
 * code's own message when the portal knows it, else `fallback` (the screen's generic failure).
 */
export function apiMessage(result: Failure, fallback: string): Message {
  const code = result.error.businessCode
  if (code === 'TOO_MANY_ATTEMPTS')
    return { key: 'errors.TOO_MANY_ATTEMPTS', values: { seconds: Number(result.error.attributs[0] ?? 60) } }
  if (KNOWN.has(code)) return { key: `errors.${code}` }
  return { key: fallback }
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
  if (code === 'TOO_MANY_ATTEMPTS' || KNOWN.has(code)) return apiMessage(result, 'errors.technical')
  if (result.status === 401) return { key: 'errors.BAD_CREDENTIAL' }
  if (result.status === 404) return { key: 'errors.serverNotFound' }
  return { key: 'errors.technical' }
}
