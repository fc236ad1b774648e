import { z } from 'zod'

/**
 * Every `businessCode` the API answers with (DESIGN §2). The UI's error mapping is checked against
 * this list (app/lib/api-errors.ts), so a new code cannot reach a screen unmapped.
 */
export const BUSINESS_CODES = [
  // Any route
  'VALIDATION_FAILED',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'TOO_MANY_ATTEMPTS',
  'TECHNICAL_ERROR',
  'LIST_TOO_LARGE',
  'REQUEST_TOO_LARGE',
  // Tokens and sessions
  'INVALID_TOKEN',
  'INVALID_REFRESH_TOKEN',
  'REFRESH_TOKEN_EXPIRED',
  'REFRESH_TOKEN_REUSED',
  'APPLICATION_TOKEN_SCOPE',
  'SERVICE_ACCOUNT_SCOPE',
  'SERVICE_ACCOUNT_SUSPENDED',
  // Sign-in (spec §8)
  'BAD_CREDENTIAL',
  'USER_DISABLED',
  'USER_UNAUTHORIZED_DOMAIN',
  'USER_NOT_FINISH_REGISTRATION',
  // The second factor
  'MFA_REQUIRED',
  'MFA_CODE_INVALID',
  'MFA_CHALLENGE_INVALID',
  'MFA_ENROLMENT_REQUIRED',
  'MFA_FACTOR_REQUIRED',
  'MFA_TOTP_ALREADY_ON',
  'PASSKEY_INVALID',
  // Captcha (spec §8)
  'CAPTCHA_CHAR_INVALID',
  'CAPTCHA_VALIDATE_FAILED',
  // Password and mail links, profile
  'TOKEN_NOT_FOUND',
  'TOKEN_USED',
  'TOKEN_EXPIRED',
  'BAD_OLD_PASSWORD',
  'MAIL_ALREADY_USED',
  // User administration
  'INVITATION_NOT_PENDING',
  'INVITATION_WAITS_ACTIVATION',
  // Organisation (spec §8)
  'STRUCTURE_HAS_CHILD',
  'STRUCTURE_HAS_USERS',
  'STRUCTURE_HAS_WEBHOOK',
  'STRUCTURE_NOM_ALREADY_USED',
  'STRUCTURE_PARENT_INVALID',
  'POSTE_ALREADY_EXIST',
  // The catalogue and the functions of a structure
  'APPLICATION_LIBELLE_ALREADY_USED',
  'OIDC_CLIENT_NOT_CONFIDENTIAL',
  'OIDC_UNKNOWN_CLIENT',
  'OIDC_REDIRECT_URI_MISMATCH',
  'OIDC_DEVICE_CODE_UNKNOWN',
  'OIDC_DEVICE_NOT_GRANTED',
  'SAML_REQUEST_UNKNOWN',
  'SAML_NOT_GRANTED',
  'FONCTION_LIBELLE_ALREADY_USED',
  'FONCTION_HAS_POSTES',
  // Identity providers
  'IDP_ISSUER_ALREADY_USED',
  'IDP_DOMAIN_ALREADY_USED',
  'IDP_DISCOVERY_FAILED',
  'IDP_SIGN_IN_FAILED',
  'IDP_REGISTRATION_PENDING',
  'IDP_FIRST_SIGN_IN_REFUSED',
  'IDP_NO_ACCOUNT',
  'IDP_LINK_CONFLICT',
  'IDP_LAST_WAY_IN',
  // Service accounts
  'SERVICE_ACCOUNT_KEYS_ONLY',
  'SERVICE_ACCOUNT_SECRET_ONLY',
  // Imports
  'IMPORT_ALREADY_STARTED',
  // Access requests
  'DEMANDE_EN_COURS',
  'DEMANDE_TRAITEE',
  'ACCES_DEJA_OUVERT',
  // Access reviews
  'REVUE_FERMEE',
  'REVUE_DEJA_DECIDEE',
  'REVUE_INCOMPLETE',
  // The registration list (spec §8), raised by the registration screens
  'LISTE_CREATION_FAILED',
  'LISTE_UPDATE_FAILED',
] as const
export type BusinessCode = (typeof BUSINESS_CODES)[number]

/** The body of every non-2xx answer (DESIGN §2). */
export const errorSchema = z.object({
  businessCode: z.enum(BUSINESS_CODES),
  message: z.string(),
  attributs: z.array(z.unknown()),
})
export type ErrorBody = z.infer<typeof errorSchema>
