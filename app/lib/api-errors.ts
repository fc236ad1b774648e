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
])

/**
 * Spec §8 (login): a failed call shows the message of its businessCode when there is one, the bad-credentials
 * message on a 401, server-not-found on a 404, else a generic technical error.
 */
export function loginMessage(result: Extract<ApiResult<unknown>, { ok: false }>): Message {
  const code = result.error.businessCode
  if (code === 'TOO_MANY_ATTEMPTS')
    return { key: 'errors.TOO_MANY_ATTEMPTS', values: { seconds: Number(result.error.attributs[0] ?? 60) } }
  if (KNOWN.has(code)) return { key: `errors.${code}` }
  if (result.status === 401) return { key: 'errors.BAD_CREDENTIAL' }
  if (result.status === 404) return { key: 'errors.serverNotFound' }
  return { key: 'errors.technical' }
}
