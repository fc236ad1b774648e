import { openWithToken, sealWithToken } from '../../lib/crypto'
import { BusinessError } from '../../lib/errors'
import type { Env } from '../../lib/types'

/**
 * A provider's client secret is sent to the provider, so the portal must read it back: it is kept sealed (AES-GCM, a
 * key derived from FOURNISSEUR_SECRET_KEY and bound to the provider's issuer and client), never answered.
 */
const purpose = (issuer: string, clientId: string) => `fournisseur-secret:${issuer}:${clientId}`

const keyOf = (env: Pick<Env, 'FOURNISSEUR_SECRET_KEY'>) => {
  const key = env.FOURNISSEUR_SECRET_KEY
  if (!key || key.length < 32) {
    throw new BusinessError(
      'VALIDATION_FAILED',
      400,
      'FOURNISSEUR_SECRET_KEY is not set: no client secret can be kept',
      [{ field: 'secret', message: 'validation.secretKeyMissing' }],
    )
  }
  return key
}

export const sealSecret = (
  env: Pick<Env, 'FOURNISSEUR_SECRET_KEY'>,
  issuer: string,
  clientId: string,
  secret: string,
) => sealWithToken(keyOf(env), purpose(issuer, clientId), secret)

/** The client secret, or null when it cannot be opened (the key changed). */
export async function openSecret(
  env: Pick<Env, 'FOURNISSEUR_SECRET_KEY'>,
  issuer: string,
  clientId: string,
  sealed: string,
): Promise<string | null> {
  const key = env.FOURNISSEUR_SECRET_KEY
  if (!key) return null
  return openWithToken(key, purpose(issuer, clientId), sealed)
}
