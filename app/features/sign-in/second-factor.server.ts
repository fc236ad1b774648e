import { apiMessage, type Failure, type Message } from '~/lib/api-errors'

/**
 * The proof a factor's change asks for, as a form sends it: a current code of the app, else the
 * password; null when neither was typed.
 */
export function proofOf(form: FormData): { code: string } | { motDePasse: string } | null {
  const code = String(form.get('code') ?? '')
    .slice(0, 40)
    .trim()
  const motDePasse = String(form.get('motDePasse') ?? '').slice(0, 200)
  if (code) return { code }
  return motDePasse ? { motDePasse } : null
}

/** What a refused proof (or what it guarded) says on the page. */
export function proofError(result: Failure): Message {
  return result.error.businessCode === 'BAD_OLD_PASSWORD'
    ? { key: 'mfa.proof.wrongPassword' }
    : apiMessage(result, 'errors.updateFailed')
}

/**
 * The authenticator's answer the page's script sent as JSON in the form's `reponse` (20 KB at most);
 * null for anything else. The API checks its shape and its signature.
 */
export function webauthnAnswer<T>(form: FormData): T | null {
  const raw = String(form.get('reponse') ?? '')
  if (raw.length > 20_000) return null
  try {
    return (JSON.parse(raw) as T | null) ?? null
  } catch {
    return null
  }
}
