import { en } from '~/locales/en'
import { fr } from '~/locales/fr'

import { languages } from '../../worker-api/contract/language'

export { type Language, languageFromAcceptLanguage, languages } from '../../worker-api/contract/language'

export const resources = { fr: { translation: fr }, en: { translation: en } }

/** Shared i18next options of the server and the browser. */
export const i18nConfig = {
  supportedLngs: [...languages],
  fallbackLng: 'fr',
  defaultNS: 'translation',
  interpolation: { escapeValue: false },
}
