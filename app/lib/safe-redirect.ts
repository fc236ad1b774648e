export const DEFAULT_AFTER_LOGIN = '/pages/user/acces'

/**
 * DESIGN §3: only same-origin relative paths are followed: one leading '/', no '//' or backslash,
 * no scheme, no control characters. Anything else gives the fallback.
 */
export function safeRedirect(target: FormDataEntryValue | string | null | undefined, fallback = DEFAULT_AFTER_LOGIN) {
  if (typeof target !== 'string' || !target.startsWith('/') || target.startsWith('//')) return fallback
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
  if (/[\u0000-\u001f\u007f\\]/.test(target)) return fallback
  return target
}

/** Where to go after signing in: the wanted page, never back to the login page itself. */
export function afterLogin(target: FormDataEntryValue | string | null | undefined) {
  const path = safeRedirect(target)
  return path === '/login' || path.startsWith('/login?') ? DEFAULT_AFTER_LOGIN : path
}
