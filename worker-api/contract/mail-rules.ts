// No zod here: the address checks of the forms import these rules into the browser.

/** Spec §9: an address has 50 characters at most. */
export const MAIL_MAX = 50

/** A well-formed address: zod's own `z.regexes.email` (tests/unit/ui-rules.test.ts keeps them equal). */
export const MAIL_PATTERN =
  /^(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/

/**
 * What is wrong with an address (trimmed), as spec §5 checks it before anything else: missing, too
 * long, not an address — an i18n key — or null when it is well formed.
 */
export function mailProblem(value: string): 'validation.required' | 'validation.mailMax' | 'validation.mail' | null {
  const mail = value.trim()
  if (mail === '') return 'validation.required'
  if (mail.length > MAIL_MAX) return 'validation.mailMax'
  return MAIL_PATTERN.test(mail) ? null : 'validation.mail'
}
