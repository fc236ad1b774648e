import { decodeBase32IgnorePadding, encodeBase32NoPadding } from '@oslojs/encoding'
import { createTOTPKeyURI, verifyHOTP } from '@oslojs/otp'
import { sha256Hex } from './crypto'

/** RFC 6238 as authenticator apps expect it: 30-second steps, 6 digits, HMAC-SHA-1. */
export const TOTP_PERIOD_SECONDS = 30
export const TOTP_DIGITS = 6
/** A code of the step before or after the current one is accepted too (clocks drift, typing takes time). */
export const TOTP_DRIFT_STEPS = 1
/** 160 bits, RFC 4226's recommended secret length. */
const SECRET_BYTES = 20

export const newTotpSecret = () => encodeBase32NoPadding(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)))

/** The `otpauth://` address an authenticator app reads from the QR code. */
export const otpauthUri = (issuer: string, account: string, secret: string) =>
  createTOTPKeyURI(issuer, account, decodeBase32IgnorePadding(secret), TOTP_PERIOD_SECONDS, TOTP_DIGITS)

export const totpStep = (at = Date.now()) => Math.floor(at / 1000 / TOTP_PERIOD_SECONDS)

/**
 * The time step `code` belongs to, among the current one and its neighbours, and later than
 * `lastStep` (a code is accepted once: the step accepted is kept, and no earlier one passes again);
 * null when none matches.
 */
export function acceptedStep(secret: string, code: string, lastStep: number, at = Date.now()): number | null {
  if (!/^\d{6}$/.test(code)) return null
  const key = decodeBase32IgnorePadding(secret)
  const now = totpStep(at)
  for (let step = now - TOTP_DRIFT_STEPS; step <= now + TOTP_DRIFT_STEPS; step++) {
    if (step > lastStep && verifyHOTP(key, BigInt(step), TOTP_DIGITS, code)) return step
  }
  return null
}

/** Ten recovery codes, each of 16 characters of a 31-letter alphabet without look-alikes (79 bits) in groups of four. */
export const RECOVERY_CODE_COUNT = 10
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789'

export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = Array.from(crypto.getRandomValues(new Uint32Array(16)), (n) => RECOVERY_ALPHABET[n % 31])
    return chars.join('').replace(/(.{4})(?!$)/g, '$1-')
  })
}

/** A recovery code as typed (case, spaces and dashes do not matter), as stored: its SHA-256. */
export const recoveryCodeHash = (code: string) => sha256Hex(normalRecoveryCode(code))

export const normalRecoveryCode = (code: string) => code.toLowerCase().replace(/[\s-]/g, '')

/** Whether what was typed has the shape of a recovery code (else it is taken for a TOTP code). */
export const isRecoveryCode = (code: string) => /^[a-z0-9]{16}$/.test(normalRecoveryCode(code))
