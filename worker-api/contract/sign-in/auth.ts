import { z } from 'zod'

/**
 * Shared by the Hono routes and the Remix forms. Messages are i18n keys (app/locales), translated
 * where they are shown.
 */
export const loginSchema = z.object({
  identifiant: z.string('validation.required').trim().min(1, 'validation.required').max(100, 'validation.tooLong'),
  motDePasse: z.string('validation.required').min(1, 'validation.required').max(200, 'validation.tooLong'),
  /** The solved human-verification payload (DESIGN §6). */
  captcha: z.string().max(4096).optional(),
})
export type LoginInput = z.infer<typeof loginSchema>

/** The /login form: the credentials (the captcha is read on its own). */
export const loginFormSchema = loginSchema.pick({ identifiant: true, motDePasse: true })
export type LoginForm = z.input<typeof loginFormSchema>

/** A browser's SAML logout sequence: the random name the portal's sign-out gives it (32 bytes, base64url). */
export const samlLogoutSequenceSchema = z
  .string()
  .regex(/^[\w-]{43}$/)
  .describe('A logout sequence: 32 random bytes, base64url')

export const logoutInputSchema = z.object({
  suiteSaml: samlLogoutSequenceSchema
    .optional()
    .describe('The browser is there: the SAML applications the session signed into are told through it'),
})
export type LogoutInput = z.infer<typeof logoutInputSchema>

export const refreshSchema = z.object({ refreshToken: z.string().min(1).max(200) })

export const tokensSchema = z.object({
  accessToken: z.string(),
  refreshToken: z.string(),
  expiresInMsec: z.number().int(),
})
export type Tokens = z.infer<typeof tokensSchema>

/** GET rest/bd/session: who the bearer token speaks for (what a page header shows). */
export const sessionSchema = z.object({
  id: z.number().int(),
  login: z.string(),
  nom: z.string(),
  prenom: z.string(),
  admin: z.boolean(),
  racine: z
    .boolean()
    .describe('An administrator of the whole tree (a current post on the root): the catalogue is theirs'),
  mfaEnrolementRequis: z
    .boolean()
    .describe('An administrator the security settings hold back until they enrol a second factor'),
})
export type SessionInfo = z.infer<typeof sessionSchema>

/**
 * Why a session ended, as the refresh that finds it ended says (401 INVALID_REFRESH_TOKEN,
 * `attributs: [{fin}]`): from another of the user's sessions, or by an administrator.
 */
export const SESSION_END_REASONS = ['AUTRE_APPAREIL', 'ADMINISTRATEUR'] as const
export type SessionEndReason = (typeof SESSION_END_REASONS)[number]

/** The reason a refresh's refusal names (its first attribute `{fin}`), if it is one. */
export function sessionEndReason(attribut: unknown): SessionEndReason | null {
  const fin = (attribut as { fin?: unknown } | null | undefined)?.fin
  return SESSION_END_REASONS.find((reason) => reason === fin) ?? null
}
