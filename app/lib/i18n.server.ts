import { createCookie } from '@remix-run/cloudflare'
import { RemixI18Next } from 'remix-i18next/server'
import { i18nConfig, languageFromAcceptLanguage, resources } from './i18n'

/** The language switch's choice; it overrides the browser's language. */
export const languageCookie = createCookie('lng', { path: '/', sameSite: 'lax', httpOnly: true, maxAge: 31_536_000 })

export const i18nServer = new RemixI18Next({
  detection: {
    supportedLanguages: i18nConfig.supportedLngs,
    fallbackLanguage: i18nConfig.fallbackLng,
    cookie: languageCookie,
    order: ['cookie', 'custom'],
    findLocale: async (request) => languageFromAcceptLanguage(request.headers.get('Accept-Language')),
  },
  i18next: { ...i18nConfig, resources },
})
