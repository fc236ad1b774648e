import { type Language, languages } from '../../worker-api/contract/language'

export { type Language, languageFromAcceptLanguage, languages } from '../../worker-api/contract/language'

/** Shared i18next options of the server and the browser. */
export const i18nConfig = {
  supportedLngs: [...languages],
  fallbackLng: 'fr',
  defaultNS: 'translation',
  interpolation: { escapeValue: false },
}

/** A page's language from what names it (`<html lang>`, i18next's, the server's locale): English, else French. */
export const pageLanguage = (value: string | null | undefined): Language => (value === 'en' ? 'en' : 'fr')
