/** The portal's languages; French is the default (spec §1). */
export const languages = ['fr', 'en'] as const
export type Language = (typeof languages)[number]

/**
 * Spec §1 and DESIGN §7: the browser's first language decides; any English (en-US, en-GB, en…)
 * gives English, anything else French. The UI and the API (mail language) agree through this.
 */
export function languageFromAcceptLanguage(header: string | null | undefined): Language {
  const first = header?.split(',')[0]?.split(';')[0]?.trim().toLowerCase() ?? ''
  return first === 'en' || first.startsWith('en-') ? 'en' : 'fr'
}
