import { z } from 'zod'

/**
 * The device authorization grant (RFC 8628; issue 66): a device without a keyboard shows a user code, a user signed
 * in elsewhere approves it on the portal's /appareil page.
 */

/** The letters of a user code: consonants without look-alikes (no vowel spells a word, RFC 8628 §6.1). */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ'
/** The letters of a user code: 20^8, about 2.6 × 10^10 codes. */
export const USER_CODE_LENGTH = 8
/** How long a device's request lives, in seconds (`expires_in`). */
export const DEVICE_CODE_TTL_SECONDS = 600
/** The seconds a device waits between polls at first (`interval`); each poll too soon adds as many. */
export const DEVICE_POLL_INTERVAL_SECONDS = 5
/** The page a user approves a device on, under the portal's origin. */
export const DEVICE_PAGE = '/appareil'
/** The longest name a user gives a device they approve. */
export const DEVICE_NAME_MAX = 60
/** The most characters of a user code as typed (spaces and dashes included) that are read. */
export const USER_CODE_TYPED_MAX = 40

/** A user code as a person reads it: `WDJB-MJHT`. */
export const formatUserCode = (code: string) => `${code.slice(0, 4)}-${code.slice(4)}`

/**
 * A user code as typed, in its stored form: case, spaces and dashes do not matter (`wdjb mjht`, `WDJB-MJHT`); null
 * when what is left is not 8 letters of the alphabet.
 */
export function normaliseUserCode(typed: string): string | null {
  if (typed.length > USER_CODE_TYPED_MAX) return null
  const letters = typed.toUpperCase().replace(/[\s-]/g, '')
  if (letters.length !== USER_CODE_LENGTH) return null
  return [...letters].every((letter) => USER_CODE_ALPHABET.includes(letter)) ? letters : null
}

/** GET rest/bd/oidc/appareil: the user code as typed (normalised by the API). */
export const deviceLookupQuery = z.object({
  code: z
    .string()
    .min(1)
    .max(USER_CODE_TYPED_MAX)
    .describe('The user code shown by the device (`WDJB-MJHT`; case, spaces and dashes do not matter)'),
})

/** What a user sees of a device's request before deciding. */
export const deviceRequestSchema = z.object({
  code: z.string().describe('The user code, as the device shows it'),
  application: z.object({ id: z.number().int(), libelle: z.string() }),
  appareil: z
    .string()
    .nullable()
    .describe('The kind of device and its system, as its User-Agent said them (`mobile · Android`)'),
  navigateur: z.string().nullable().describe('The browser or library the device asked with'),
  demandeLe: z.string().describe('When the device asked (ISO 8601)'),
  expireLe: z.string().describe('When the code stops working (ISO 8601)'),
})
export type DeviceRequest = z.infer<typeof deviceRequestSchema>

export const DEVICE_DECISIONS = ['APPROUVER', 'REFUSER'] as const

/** POST rest/bd/oidc/appareil: the decision on a device's request. */
export const deviceDecisionSchema = z.object({
  code: z.string().min(1).max(USER_CODE_TYPED_MAX),
  decision: z.enum(DEVICE_DECISIONS, 'validation.required'),
  nom: z
    .string()
    .trim()
    .max(DEVICE_NAME_MAX, 'validation.tooLong')
    .optional()
    .transform((value) => value || null)
    .describe(
      `The device's name on the sessions page (${DEVICE_NAME_MAX} characters at most; absent: the application's)`,
    ),
})
export type DeviceDecision = z.input<typeof deviceDecisionSchema>

/** The answer of a decision. */
export const deviceDecidedSchema = z.object({
  decision: z.enum(DEVICE_DECISIONS),
  application: z.object({ id: z.number().int(), libelle: z.string() }),
  nom: z.string().nullable(),
})
export type DeviceDecided = z.infer<typeof deviceDecidedSchema>
