import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/browser'
import type { Message } from '~/lib/api-errors'

/**
 * Passkeys in the browser (WebAuthn through @simplewebauthn/browser, the library the API's
 * @simplewebauthn/server answers): the options come from one of the portal's routes, the browser asks
 * the authenticator, and the page's form sends its answer. Nothing here runs without JavaScript: the
 * WebAuthn API is a script's.
 */

/** What a ceremony ended with: the authenticator's answer, or what the page says instead. */
export type Ceremony<T> = { ok: true; answer: T } | { ok: false; error: Message }

const FAILED: Message = { key: 'mfa.passkeys.failed' }

/**
 * The WebAuthn library, fetched once a live page has a use for it (a browser with passkeys): not on
 * the critical path of the pages that offer them.
 */
let library: typeof import('@simplewebauthn/browser') | undefined
const webauthn = async () => {
  library ??= await import('@simplewebauthn/browser')
  return library
}

/** Whether this browser can use passkeys at all (the library's own test, without the library). */
export const passkeysSupported = () => typeof window !== 'undefined' && typeof window.PublicKeyCredential === 'function'
/** And whether it offers them in the sign-in's autofill. */
export const passkeyAutofillSupported = async () =>
  passkeysSupported() ? (await webauthn()).browserSupportsWebAuthnAutofill() : false

/** Closes a prompt the page opened (none can be open before the library was loaded). */
export const cancelPasskeyCeremony = () => library?.WebAuthnAbortService.cancelCeremony()

/** The options one of the portal's routes gives for `body`: `{options}` or `{error}`, as JSON. */
async function optionsFrom<T>(path: string, body: Record<string, string>, signal?: AbortSignal): Promise<Ceremony<T>> {
  try {
    const response = await fetch(path, {
      method: 'POST',
      body: new URLSearchParams(body),
      headers: { Accept: 'application/json' },
      signal,
    })
    // The session ended meanwhile: the route sent the sign-in page instead; the browser goes there.
    if (response.redirected) {
      window.location.assign(response.url)
      return { ok: false, error: FAILED }
    }
    const answer = (await response.json()) as { options: T | null; error: Message | null }
    if (answer.options) return { ok: true, answer: answer.options }
    return { ok: false, error: answer.error ?? FAILED }
  } catch {
    return { ok: false, error: { key: 'errors.technical' } }
  }
}

/**
 * Why the browser ended a ceremony without an answer: the person closed its prompt or let it time out
 * (NotAllowedError), an authenticator already registered for this account (InvalidStateError), or
 * anything else.
 */
function refusal(error: unknown): Message {
  const name = error instanceof Error ? error.name : ''
  if (name === 'NotAllowedError' || name === 'AbortError') return { key: 'mfa.passkeys.cancelled' }
  if (name === 'InvalidStateError') return { key: 'mfa.passkeys.alreadyRegistered' }
  return FAILED
}

/**
 * A passkey sign-in: its options from `/login/passkey` (with the second step's `challenge`, or
 * passwordless), then the authenticator's answer. With `autofill`, the browser offers the passkeys in
 * the identifier field's suggestions and the answer comes when the person picks one.
 */
export async function passkeyAssertion({
  challenge,
  autofill = false,
  signal,
}: {
  challenge?: string
  autofill?: boolean
  /** Ends the request before the browser is asked (the page moved on meanwhile). */
  signal?: AbortSignal
} = {}): Promise<Ceremony<AuthenticationResponseJSON>> {
  const options = await optionsFrom<PublicKeyCredentialRequestOptionsJSON>(
    '/login/passkey',
    challenge ? { challenge } : {},
    signal,
  )
  if (!options.ok) return options
  if (signal?.aborted) return { ok: false, error: { key: 'mfa.passkeys.cancelled' } }
  try {
    const { startAuthentication } = await webauthn()
    const answer = await startAuthentication({ optionsJSON: options.answer, useBrowserAutofill: autofill })
    return { ok: true, answer }
  } catch (error) {
    return { ok: false, error: refusal(error) }
  }
}

/**
 * A new passkey: its options from `/pages/user/securite/cle`, which asks the proof (a current code or
 * the password) before the authenticator is asked, then the authenticator's answer.
 */
export async function passkeyAttestation(proof: Record<string, string>): Promise<Ceremony<RegistrationResponseJSON>> {
  const options = await optionsFrom<PublicKeyCredentialCreationOptionsJSON>('/pages/user/securite/cle', proof)
  if (!options.ok) return options
  try {
    const { startRegistration } = await webauthn()
    return { ok: true, answer: await startRegistration({ optionsJSON: options.answer }) }
  } catch (error) {
    return { ok: false, error: refusal(error) }
  }
}
