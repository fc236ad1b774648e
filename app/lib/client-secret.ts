/**
 * What the application pages show once, as the answer of the write that made an OpenID Connect
 * client's secret (its creation, a change making it confidential): the portal keeps only
 * its SHA-256, so it travels in that answer alone — never in a URL, nor in a cookie.
 */
export type ShownSecret = {
  intent: 'secretShown'
  event: 'created' | 'saved'
  application: { id: number; libelle: string }
  clientId: string
  clientSecret: string
}

/** The secret an action answered, if that is what it answered. */
export function shownSecret(actionData: unknown): ShownSecret | null {
  const shown = actionData as Partial<ShownSecret> | undefined
  return shown?.intent === 'secretShown' ? (shown as ShownSecret) : null
}
