import { z } from 'zod'
import { mailSchema } from '../organisation/user'
import { brokenPasswordRules } from '../password-rules'

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

/** The /forgotPassword form: the address (the captcha is read on its own, the domain is the portal's). */
export const forgotFormSchema = forgotSchema.pick({ mail: true })
export type ForgotForm = z.input<typeof forgotFormSchema>

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
export type RenewForm = z.input<typeof renewFormSchema>

/** The profile's password change: the old one, the new one twice. */
export const changePasswordFormSchema = z
  .object({
    oldPassword: updatePasswordSchema.shape.oldPassword,
    newPassword: newPasswordSchema,
    confirmation: confirmationSchema,
  })
  .refine((value) => value.newPassword === value.confirmation, mismatch)
export type ChangePasswordForm = z.input<typeof changePasswordFormSchema>
