import { languages } from '../../worker-api/contract/language'

export { type Language, languageFromAcceptLanguage, languages } from '../../worker-api/contract/language'

/** Shared i18next options of the server and the browser. */
export const i18nConfig = {
  supportedLngs: [...languages],
  fallbackLng: 'fr',
  defaultNS: 'translation',
  interpolation: { escapeValue: false },
}
