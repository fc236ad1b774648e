import { z } from 'zod'
import { mailSchema } from './user'

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
export const PASSWORD_MAX_LENGTH = 12
export const PASSWORD_RULE_KEYS: readonly string[] = PASSWORD_RULES.map((rule) => rule.key)

/** The rules `value` breaks (all of them for a missing value). */
export const brokenPasswordRules = (value: string | undefined) =>
  PASSWORD_RULES.filter((rule) => !rule.test(value ?? '')).map((rule) => rule.key)

/** A new password: one issue per broken rule. A missing value counts as an empty one. */
export const newPasswordSchema = z.preprocess(
  (value) => value ?? '',
  z.string('password.rules.required').superRefine((value, ctx) => {
    for (const key of brokenPasswordRules(value)) ctx.addIssue({ code: 'custom', message: key })
  }),
)

/** POST /rest/public/bd/password/forgot/ — spec §7 `{mail, domain}`, plus the solved captcha. */
export const forgotSchema = z.object({
  mail: mailSchema,
  domain: z.string('validation.required').trim().min(1, 'validation.required').max(200).url('validation.url'),
  captcha: z.string().max(4096).optional(),
})

/** What GET rest/public/bd/password/token/{token} answers: the token's user, enough to pick the screen. */
export const tokenUserSchema = z.object({ mail: z.string(), actif: z.boolean(), supprime: z.boolean() })

/** POST /rest/public/bd/password/renew/ — spec: "the user object plus password"; the token identifies it. */
export const renewSchema = z.object({
  token: z.string('validation.required').min(1, 'validation.required').max(200),
  password: newPasswordSchema,
})

/** PUT rest/bd/utilisateur/updatePassword. */
export const updatePasswordSchema = z.object({
  oldPassword: z.string('validation.required').min(1, 'validation.required').max(200, 'validation.tooLong'),
  newPassword: newPasswordSchema,
})

export const tokenParam = z.object({ token: z.string().min(1).max(200) })

const confirmationSchema = z.string('validation.required').min(1, 'validation.required')
const mismatch = { path: ['confirmation'], message: 'password.mismatch' }

/** The /renewPassword form: the new password twice. */
export const renewFormSchema = z
  .object({ password: newPasswordSchema, confirmation: confirmationSchema })
  .refine((value) => value.password === value.confirmation, mismatch)

/** The profile's password change: the old one, the new one twice. */
export const changePasswordFormSchema = z
  .object({
    oldPassword: updatePasswordSchema.shape.oldPassword,
    newPassword: newPasswordSchema,
    confirmation: confirmationSchema,
  })
  .refine((value) => value.newPassword === value.confirmation, mismatch)
