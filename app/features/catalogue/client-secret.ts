/** The intent of the edit page's form that renews a confidential client's secret. */
export const RENEW_INTENT = 'secret'

/** The search param of the renewal's confirmation without JavaScript (`?confirmer=secret`). */
export const RENEW_CONFIRM = { confirmer: 'secret' } as const

/**
 * What the application pages show once, as the answer of the write that made an OpenID Connect
 * client's secret (its creation, a change making it confidential, a renewal): the portal keeps only
 * its SHA-256, so it travels in that answer alone — never in a URL, nor in a cookie.
 */
export type ShownSecret = {
  intent: 'secretShown'
  event: 'created' | 'saved' | 'renewed'
  application: { id: number; libelle: string }
  clientId: string
  clientSecret: string
}

/** The secret an action answered, if that is what it answered. */
export function shownSecret(actionData: unknown): ShownSecret | null {
  const shown = actionData as Partial<ShownSecret> | undefined
  return shown?.intent === 'secretShown' ? (shown as ShownSecret) : null
}
