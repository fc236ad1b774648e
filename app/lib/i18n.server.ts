import { createCookie } from '@remix-run/cloudflare'
import { createInstance, type i18n } from 'i18next'
import { initReactI18next } from 'react-i18next'
import { RemixI18Next } from 'remix-i18next/server'
import { i18nConfig, languageFromAcceptLanguage, resources } from './i18n'
import { isHttps } from './session.server'

const LANGUAGE_COOKIE = { path: '/', sameSite: 'lax', httpOnly: true, maxAge: 31_536_000 } as const

/** The language switch's choice; it overrides the browser's language. */
const languageCookie = createCookie('lng', LANGUAGE_COOKIE)

/** The same cookie to set, `Secure` over HTTPS. */
export const languageCookieFor = (request: Request) =>
  createCookie('lng', { ...LANGUAGE_COOKIE, secure: isHttps(request) })

const detection = new RemixI18Next({
  detection: {
    supportedLanguages: i18nConfig.supportedLngs,
    fallbackLanguage: i18nConfig.fallbackLng,
    cookie: languageCookie,
    order: ['cookie', 'custom'],
    findLocale: async (request) => languageFromAcceptLanguage(request.headers.get('Accept-Language')),
  },
  i18next: { ...i18nConfig, resources },
})

/**
 * One i18next instance per language, made once per isolate rather than once per request (the
 * resources never change and nothing on the server switches an instance's language).
 */
const instances = new Map<string, Promise<i18n>>()
export function i18nFor(language: string): Promise<i18n> {
  let instance = instances.get(language)
  if (!instance) {
    const created = createInstance()
    instance = created
      .use(initReactI18next)
      .init({ ...i18nConfig, lng: language, resources })
      .then(() => created)
    instances.set(language, instance)
  }
  return instance
}

export const i18nServer = {
  /** The request's language: the switch's cookie, else the browser's. */
  getLocale: (request: Request) => detection.getLocale(request),
  /** Translations in the request's language. */
  async getFixedT(request: Request) {
    const language = await detection.getLocale(request)
    return (await i18nFor(language)).getFixedT(language)
  },
}
