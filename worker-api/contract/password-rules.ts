// No zod here: the password fields import these rules into the browser, where every kilobyte counts.

/**
 * Spec §5, new password: the five rules, each with its message (an i18n key). When a password breaks
 * any of them the forms list all five together, marking those it breaks.
 */
export const PASSWORD_RULES = [
  { key: 'password.rules.required', test: (value: string) => value.length > 0 },
  { key: 'password.rules.length', test: (value: string) => value.length >= 6 && value.length <= 12 },
  { key: 'password.rules.firstNotDigit', test: (value: string) => !/^[0-9]/.test(value) },
  {
    key: 'password.rules.classes',
    test: (value: string) => /[a-z]/.test(value) && /[A-Z]/.test(value) && /[0-9]/.test(value),
  },
  { key: 'password.rules.noSpecial', test: (value: string) => /^[A-Za-z0-9]*$/.test(value) },
] as const
export const PASSWORD_RULE_KEYS: readonly string[] = PASSWORD_RULES.map((rule) => rule.key)

/** The rules `value` breaks (all of them for a missing value). */
export const brokenPasswordRules = (value: string | undefined) =>
  PASSWORD_RULES.filter((rule) => !rule.test(value ?? '')).map((rule) => rule.key)
