import { en } from '~/locales/en'
import { fr } from '~/locales/fr'

export const languages = ['fr', 'en'] as const
export type Language = (typeof languages)[number]

export const resources = { fr: { translation: fr }, en: { translation: en } }

/** Shared i18next options of the server and the browser. */
export const i18nConfig = {
  supportedLngs: [...languages],
  fallbackLng: 'fr',
  defaultNS: 'translation',
  interpolation: { escapeValue: false },
}

/**
 * Spec §1 and DESIGN §7: the browser's first language decides; any English (en-US, en-GB, en…)
 * gives English, anything else French.
 */
export function languageFromAcceptLanguage(header: string | null): Language {
  const first = header?.split(',')[0]?.split(';')[0]?.trim().toLowerCase() ?? ''
  return first === 'en' || first.startsWith('en-') ? 'en' : 'fr'
}
