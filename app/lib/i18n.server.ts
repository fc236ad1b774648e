import { createCookie } from '@remix-run/cloudflare'
import { RemixI18Next } from 'remix-i18next/server'
import { i18nConfig, languageFromAcceptLanguage, resources } from './i18n'
import { isHttps } from './session.server'

const LANGUAGE_COOKIE = { path: '/', sameSite: 'lax', httpOnly: true, maxAge: 31_536_000 } as const

/** The language switch's choice; it overrides the browser's language. */
const languageCookie = createCookie('lng', LANGUAGE_COOKIE)

/** The same cookie to set, `Secure` over HTTPS. */
export const languageCookieFor = (request: Request) =>
  createCookie('lng', { ...LANGUAGE_COOKIE, secure: isHttps(request) })

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
