import { useNavigation, useSubmit } from '@remix-run/react'
import type { AuthenticationResponseJSON } from '@simplewebauthn/browser'
import { Fingerprint } from 'lucide-react'
import { useCallback, useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { FormError } from '~/components/form-error'
import { Button } from '~/components/ui/button'
import type { Message } from '~/lib/api-errors'
import { useHydrated } from '~/lib/hydrated'
import { cancelPasskeyCeremony, passkeyAssertion, passkeyAutofillSupported, passkeysSupported } from './passkeys'

/**
 * Sends a passkey's answer to the login page's action (`intent=passkey`) with `fields` (the second
 * step's challenge, the page wanted next).
 */
function usePasskeySubmit(fields: Record<string, string>) {
  const submit = useSubmit()
  return useCallback(
    (answer: AuthenticationResponseJSON) =>
      submit({ ...fields, intent: 'passkey', reponse: JSON.stringify(answer) }, { method: 'post', replace: true }),
    [submit, fields],
  )
}

/**
 * Offers the person's passkeys in the identifier field's suggestions (the browser's autofill, where it
 * offers it: the field's `autocomplete` names `webauthn`), passwordless. Starts again after each
 * answer of the page's action (`restart`); ends when the page leaves or a button's sign-in begins.
 */
export function usePasskeyAutofill(fields: Record<string, string>, restart: unknown) {
  const send = usePasskeySubmit(fields)
  useEffect(() => {
    const ended = new AbortController()
    passkeyAutofillSupported().then(async (offered) => {
      if (!offered || ended.signal.aborted) return
      const result = await passkeyAssertion({ autofill: true, signal: ended.signal })
      if (!ended.signal.aborted && result.ok) send(result.answer)
    })
    return () => {
      ended.abort()
      cancelPasskeyCeremony()
    }
  }, [restart])
}

/**
 * "Sign in with a passkey": passwordless on the sign-in form, or the second step's (`fields` carries its
 * challenge). Only where the page's script runs and the browser has WebAuthn; nothing otherwise (the
 * other ways stay). A prompt closed or refused is said beside the button.
 */
export function PasskeyButton({ label, fields }: { label: string; fields: Record<string, string> }) {
  const { t } = useTranslation()
  const hydrated = useHydrated()
  const navigation = useNavigation()
  const send = usePasskeySubmit(fields)
  const [asking, setAsking] = useState(false)
  const [error, setError] = useState<Message | null>(null)
  // A prompt still open when the button leaves the page ends with it.
  const open = useRef(false)
  useEffect(
    () => () => {
      if (open.current) cancelPasskeyCeremony()
    },
    [],
  )
  if (!hydrated || !passkeysSupported()) return null
  const sending = navigation.state !== 'idle' && navigation.formData?.get('intent') === 'passkey'
  const busy = asking || sending
  async function signIn() {
    setError(null)
    setAsking(true)
    open.current = true
    const result = await passkeyAssertion({ challenge: fields.challenge })
    open.current = false
    setAsking(false)
    if (result.ok) send(result.answer)
    else setError(result.error)
  }
  return (
    <div className="flex flex-col gap-2">
      <FormError message={error ? t(error.key, error.values) : null} />
      <Button type="button" variant="outline" onClick={signIn} disabled={busy} aria-disabled={busy}>
        <Fingerprint aria-hidden />
        {busy ? t('mfa.passkeys.signingIn') : label}
      </Button>
    </div>
  )
}
