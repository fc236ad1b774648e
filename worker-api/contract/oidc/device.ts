import type { ActionLabels } from '../action-labels'

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

/** A user code as a person reads it: `WDJB-MJHT`. */
export const formatUserCode = (code: string) => `${code.slice(0, 4)}-${code.slice(4)}`

/**
 * A user code as typed, in its stored form: case, spaces and dashes do not matter (`wdjb mjht`, `WDJB-MJHT`); null
 * when what is left is not 8 letters of the alphabet.
 */
export function normaliseUserCode(typed: string): string | null {
  if (typed.length > 40) return null
  const letters = typed.toUpperCase().replace(/[\s-]/g, '')
  if (letters.length !== USER_CODE_LENGTH) return null
  return [...letters].every((letter) => USER_CODE_ALPHABET.includes(letter)) ? letters : null
}

/** The steps of a device's sign-in in the history (`nomLog` of a CONNEXION entry), each with its label. */
export const DEVICE_ACTIONS = {
  APPAREIL_DEMANDE: { fr: 'Connexion d’un appareil demandée', en: 'Device sign-in requested' },
  APPAREIL_APPROBATION: { fr: 'Appareil approuvé', en: 'Device approved' },
  APPAREIL_REFUS: { fr: 'Appareil refusé', en: 'Device refused' },
} as const satisfies ActionLabels
export type DeviceAction = keyof typeof DEVICE_ACTIONS
