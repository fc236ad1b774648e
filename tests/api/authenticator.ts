import { isoBase64URL, isoCBOR } from '@simplewebauthn/server/helpers'
import type { z } from 'zod'
import type { creationOptionsSchema, requestOptionsSchema } from '../../worker-api/contract/sign-in/passkeys'
import { api, okBody } from './client'
import { ORIGIN, post } from './helpers'

/*
 * A software authenticator of the tests' own (Web Crypto, ES256, attestation "none"), so that the
 * portal checks real registrations and assertions, signed as a browser's authenticator signs them.
 */

export type Authenticator = { id: Uint8Array<ArrayBuffer>; keys: CryptoKeyPair; counter: number }

export const utf8 = (text: string) => new TextEncoder().encode(text)
export const b64u = (bytes: Uint8Array<ArrayBuffer>) => isoBase64URL.fromBuffer(bytes)
const sha256 = async (bytes: Uint8Array<ArrayBuffer>) => new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((length, part) => length + part.length, 0))
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  return out
}

const uint32 = (value: number) => {
  const bytes = new Uint8Array(4)
  new DataView(bytes.buffer).setUint32(0, value)
  return bytes
}

/** An ECDSA signature as Web Crypto gives it (r ‖ s), DER-encoded as WebAuthn carries it. */
export function derSignature(raw: Uint8Array): Uint8Array<ArrayBuffer> {
  const integer = (half: Uint8Array) => {
    let start = 0
    while (start < half.length - 1 && half[start] === 0) start++
    const trimmed = half.slice(start)
    const value = (trimmed[0] ?? 0) & 0x80 ? concat(new Uint8Array([0]), trimmed) : trimmed
    return concat(new Uint8Array([0x02, value.length]), value)
  }
  const body = concat(integer(raw.slice(0, 32)), integer(raw.slice(32)))
  return concat(new Uint8Array([0x30, body.length]), body)
}

export async function newAuthenticator(): Promise<Authenticator> {
  const keys = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
    'sign',
    'verify',
  ])) as CryptoKeyPair
  return { id: crypto.getRandomValues(new Uint8Array(16)), keys, counter: 0 }
}

const UP = 0x01
const UV = 0x04
const AT = 0x40

/** The options of a new passkey, as the API declares them (PublicKeyCredentialCreationOptionsJSON). */
export type CreationOptions = z.infer<typeof creationOptionsSchema>
/** The options of a passkey sign-in, as the API declares them (PublicKeyCredentialRequestOptionsJSON). */
export type RequestOptions = z.infer<typeof requestOptionsSchema>

/** The host the options bind the answer to: the API always names one. */
function rpIdOf(id: string | undefined): string {
  if (id === undefined) throw new Error('the options name no relying party id')
  return id
}

/** The authenticator's answer to registration options (what startRegistration gives). */
export async function attest(
  authenticator: Authenticator,
  options: Pick<CreationOptions, 'challenge' | 'rp'>,
  { origin = ORIGIN, rpId = rpIdOf(options.rp.id) } = {},
) {
  const jwk = await crypto.subtle.exportKey('jwk', authenticator.keys.publicKey)
  const cose = isoCBOR.encode(
    new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, isoBase64URL.toBuffer(jwk.x ?? '')],
      [-3, isoBase64URL.toBuffer(jwk.y ?? '')],
    ]),
  )
  const authData = concat(
    await sha256(utf8(rpId)),
    new Uint8Array([UP | UV | AT]),
    uint32(authenticator.counter),
    new Uint8Array(16),
    new Uint8Array([0, authenticator.id.length]),
    authenticator.id,
    cose,
  )
  const attestationObject = isoCBOR.encode(
    new Map<string, string | Uint8Array | Map<string, string>>([
      ['fmt', 'none'],
      ['attStmt', new Map<string, string>()],
      ['authData', authData],
    ]),
  )
  const clientData = { type: 'webauthn.create', challenge: options.challenge, origin, crossOrigin: false }
  return {
    id: b64u(authenticator.id),
    rawId: b64u(authenticator.id),
    response: {
      clientDataJSON: b64u(utf8(JSON.stringify(clientData))),
      attestationObject: b64u(new Uint8Array(attestationObject)),
      transports: ['internal'],
    },
    authenticatorAttachment: 'platform' as const,
    clientExtensionResults: {},
    type: 'public-key' as const,
  }
}

/** The authenticator's answer to sign-in options (what startAuthentication gives); its counter moves on. */
export async function assertion(
  authenticator: Authenticator,
  options: Pick<RequestOptions, 'challenge' | 'rpId'>,
  { origin = ORIGIN, rpId = rpIdOf(options.rpId), counter = ++authenticator.counter, userVerified = true } = {},
) {
  const authData = concat(await sha256(utf8(rpId)), new Uint8Array([userVerified ? UP | UV : UP]), uint32(counter))
  const clientDataJSON = utf8(JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin }))
  const signed = await crypto.subtle.sign(
    { name: 'ECDSA', hash: 'SHA-256' },
    authenticator.keys.privateKey,
    concat(authData, await sha256(clientDataJSON)),
  )
  return {
    id: b64u(authenticator.id),
    rawId: b64u(authenticator.id),
    response: {
      clientDataJSON: b64u(clientDataJSON),
      authenticatorData: b64u(authData),
      signature: b64u(derSignature(new Uint8Array(signed))),
    },
    clientExtensionResults: {},
    type: 'public-key' as const,
  }
}

/**
 * A new authenticator registered through the API for the bearer of `token`, whose password proves it
 * is them (the tests' users' default one unless given).
 */
export async function registeredAuthenticator(token: string, nom = 'Clé', motDePasse = 'Secret12') {
  const authenticator = await newAuthenticator()
  const options = await okBody(api(token).rest.bd.mfa.passkeys.options.$post({ json: { motDePasse } }))
  const response = await post(
    '/rest/bd/mfa/passkeys',
    { nom, reponse: await attest(authenticator, options) },
    { token },
  )
  if (response.status !== 200) throw new Error(`passkey registration failed: ${response.status}`)
  return authenticator
}

/** The authenticator's answer to fresh sign-in options (passwordless, or the second step of `challenge`). */
export async function signInAnswer(authenticator: Authenticator, challenge?: string) {
  const options = await okBody(
    api().rest.public.bd.login.passkey.options.$post({ json: challenge ? { challenge } : {} }),
  )
  return assertion(authenticator, options)
}
