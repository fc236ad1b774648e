import { z } from 'zod'

/**
 * Passkeys (WebAuthn, DESIGN §3b): the JSON shapes of @simplewebauthn, which the browser's
 * startRegistration/startAuthentication take and give. The API checks them with @simplewebauthn/server;
 * these schemas only bound their size and document them.
 */

const base64url = z
  .string()
  .max(8192)
  .regex(/^[A-Za-z0-9_-]*$/)
const credentialId = base64url.min(1).max(1400)

const transports = z.array(z.string().max(20)).max(10)

/** What an authenticator's extensions answered (unused by the portal, kept as sent). */
const extensionResults = z.record(z.string(), z.unknown())

/** A passkey's name, as its owner calls it ("Phone", "Security key"). */
export const passkeyNameSchema = z
  .string('validation.required')
  .trim()
  .min(1, 'validation.required')
  .max(60, 'validation.tooLong')

/** RegistrationResponseJSON: what startRegistration gives. */
export const registrationResponseSchema = z.object({
  id: credentialId,
  rawId: credentialId,
  response: z.object({
    clientDataJSON: base64url,
    attestationObject: base64url,
    authenticatorData: base64url.optional(),
    transports: transports.optional(),
    publicKeyAlgorithm: z.number().int().optional(),
    publicKey: base64url.optional(),
  }),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  clientExtensionResults: extensionResults,
  type: z.literal('public-key'),
})

/** AuthenticationResponseJSON: what startAuthentication gives. */
export const authenticationResponseSchema = z.object({
  id: credentialId,
  rawId: credentialId,
  response: z.object({
    clientDataJSON: base64url,
    authenticatorData: base64url,
    signature: base64url,
    userHandle: base64url.optional(),
  }),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  clientExtensionResults: extensionResults,
  type: z.literal('public-key'),
})

/** POST rest/bd/mfa/passkeys: the answer to options the caller asked for with their proof. */
export const passkeyRegistrationSchema = z.object({
  nom: passkeyNameSchema,
  reponse: registrationResponseSchema,
})
export type PasskeyRegistration = z.infer<typeof passkeyRegistrationSchema>

/** PATCH rest/bd/mfa/passkeys/{id}. */
export const passkeyRenameSchema = z.object({ nom: passkeyNameSchema })

/** A passkey's id in a path: its credential id, base64url. */
export const passkeyIdParam = z.object({ id: credentialId })

/** A registered passkey; ten recovery codes (shown once) when it is the user's first factor. */
export const passkeyAddedSchema = z.object({
  id: z.string(),
  nom: z.string(),
  codesSecours: z.array(z.string()).length(10).optional().describe('Only when it is the first factor'),
})
export type PasskeyAdded = z.infer<typeof passkeyAddedSchema>

/** POST rest/public/bd/login/passkey/options: with the challenge of 403 MFA_REQUIRED, a second step. */
export const passkeyLoginOptionsSchema = z.object({
  challenge: z.string().min(1, 'validation.required').max(100, 'validation.tooLong').optional(),
})

/** POST rest/public/bd/login/passkey. */
export const passkeyLoginSchema = z.object({
  reponse: authenticationResponseSchema,
  challenge: z
    .string()
    .min(1, 'validation.required')
    .max(100, 'validation.tooLong')
    .optional()
    .describe('The challenge of 403 MFA_REQUIRED, when the passkey is the second step of a sign-in'),
})
export type PasskeyLogin = z.infer<typeof passkeyLoginSchema>

const descriptor = z.object({ id: z.string(), type: z.string(), transports: transports.optional() })

/** PublicKeyCredentialCreationOptionsJSON: what startRegistration takes. */
export const creationOptionsSchema = z.looseObject({
  rp: z.object({ name: z.string(), id: z.string().optional() }),
  user: z.object({ id: z.string(), name: z.string(), displayName: z.string() }),
  challenge: z.string(),
  pubKeyCredParams: z.array(z.object({ alg: z.number(), type: z.string() })),
  timeout: z.number().optional(),
  excludeCredentials: z.array(descriptor).optional(),
  authenticatorSelection: z.record(z.string(), z.unknown()).optional(),
  attestation: z.string().optional(),
  extensions: z.record(z.string(), z.unknown()).optional(),
})

/** PublicKeyCredentialRequestOptionsJSON: what startAuthentication takes. */
export const requestOptionsSchema = z.looseObject({
  challenge: z.string(),
  timeout: z.number().optional(),
  rpId: z.string().optional(),
  allowCredentials: z.array(descriptor).optional(),
  userVerification: z.string().optional(),
  extensions: z.record(z.string(), z.unknown()).optional(),
})
