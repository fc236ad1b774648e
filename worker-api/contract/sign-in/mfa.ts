import { z } from 'zod'
import { lienSchema } from '../federation/links'

/**
 * The second factor (DESIGN §3b): TOTP, passkeys and recovery codes, the sign-in's second step, and
 * the setting that requires one of administrators. Messages are i18n keys (app/locales).
 */

/** GET rest/bd/mfa: the caller's factors. */
export const mfaStatusSchema = z.object({
  totp: z.boolean().describe('An authenticator app (TOTP) is on'),
  passkeys: z.array(
    z.object({
      id: z.string(),
      nom: z.string(),
      creation: z.string(),
      derniereUtilisation: z.string().nullable(),
    }),
  ),
  codesSecoursRestants: z.number().int().describe('Recovery codes not used yet'),
  fournisseurs: z.array(lienSchema).describe("The caller's links to partners' identity providers"),
})
export type MfaStatus = z.infer<typeof mfaStatusSchema>

/** POST rest/bd/mfa/totp: a pending enrolment, what an authenticator app needs. */
export const totpEnrolmentSchema = z.object({
  secret: z.string().describe('The shared secret, base32 (RFC 4648, no padding)'),
  otpauthUri: z.string().describe('The otpauth:// address the QR code carries'),
})
export type TotpEnrolment = z.infer<typeof totpEnrolmentSchema>

/** A code typed: six digits from an authenticator app, or a recovery code (16 letters and digits). */
export const mfaCodeSchema = z
  .string('validation.required')
  .trim()
  .min(1, 'validation.required')
  .max(40, 'validation.tooLong')

export const totpConfirmSchema = z.object({ code: mfaCodeSchema })

/**
 * What proves the person at the keyboard before a factor is removed or new recovery codes are made:
 * a current code (of the app, or a recovery code), or the password.
 */
export const factorProofSchema = z
  .object({
    code: mfaCodeSchema.optional(),
    motDePasse: z.string().min(1, 'validation.required').max(200, 'validation.tooLong').optional(),
  })
  .refine((value) => value.code !== undefined || value.motDePasse !== undefined, {
    message: 'validation.required',
    path: ['code'],
  })
export type FactorProof = z.infer<typeof factorProofSchema>

/**
 * What proves the person at the keyboard before an authenticator app is set up: the password (the
 * app is off by then, so none of its codes can; every account has a password beside its passkeys).
 */
export const passwordProofSchema = z.object({
  motDePasse: z.string('validation.required').min(1, 'validation.required').max(200, 'validation.tooLong'),
})
export type PasswordProof = z.infer<typeof passwordProofSchema>

/** Ten recovery codes, shown once. */
export const recoveryCodesSchema = z.object({ codesSecours: z.array(z.string()).length(10) })
export type RecoveryCodes = z.infer<typeof recoveryCodesSchema>

/** What may complete a sign-in the password began. */
export const MFA_METHODS = ['totp', 'passkey', 'codeSecours'] as const
export type MfaMethod = (typeof MFA_METHODS)[number]

/** The first attribute of 403 MFA_REQUIRED: the sign-in's second step. */
export const mfaChallengeSchema = z.object({
  challenge: z.string().describe('Single use, for POST rest/public/bd/login/mfa (or the passkey calls)'),
  methodes: z.array(z.enum(MFA_METHODS)),
  expiration: z.string().describe('When the challenge dies (5 minutes after the password)'),
})
export type MfaChallenge = z.infer<typeof mfaChallengeSchema>

/** POST rest/public/bd/login/mfa. */
export const loginMfaSchema = z.object({
  challenge: z.string('validation.required').min(1, 'validation.required').max(100, 'validation.tooLong'),
  code: mfaCodeSchema,
})
export type LoginMfaInput = z.infer<typeof loginMfaSchema>

/** The longest period an access request may ask for, in days: its bounds. */
export const REQUEST_DAYS = { min: 1, max: 3660 } as const

/** The months of history D1 keeps (issue 64): at least 3, at most 10 years; 13 unless changed. */
export const HISTORY_MONTHS = { min: 3, max: 120, default: 13 } as const

/** GET/PUT rest/bd/parametres/securite. */
export const securitySettingsSchema = z.object({
  mfaRequisAdministrateurs: z.boolean().describe('A second factor is required of administrators'),
  demandeDureeMaxJours: z.coerce
    .number<number>('validation.required')
    .int('validation.requestDuration')
    .min(REQUEST_DAYS.min, 'validation.requestDuration')
    .max(REQUEST_DAYS.max, 'validation.requestDuration')
    .describe('The longest period an access request may ask for, in days (1 to 3660; default 90)'),
  historiqueMoisEnLigne: z.coerce
    .number<number>('validation.required')
    .int('validation.historyMonths')
    .min(HISTORY_MONTHS.min, 'validation.historyMonths')
    .max(HISTORY_MONTHS.max, 'validation.historyMonths')
    .describe(
      'The months of history the database keeps, the current one included (3 to 120; default 13): older months are archived to R2',
    ),
})
export type SecuritySettings = z.infer<typeof securitySettingsSchema>
/** PUT rest/bd/parametres/securite: a setting absent stays as it is. */
export const securitySettingsUpdateSchema = securitySettingsSchema.partial()
export type SecuritySettingsUpdate = z.infer<typeof securitySettingsUpdateSchema>
