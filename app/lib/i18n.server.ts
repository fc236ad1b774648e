import { createCookie } from '@remix-run/cloudflare'
import { createInstance, type i18n } from 'i18next'
import { initReactI18next } from 'react-i18next'
import { RemixI18Next } from 'remix-i18next/server'
import { en } from '~/locales/en'
import { fr } from '~/locales/fr'
import { i18nConfig, languageFromAcceptLanguage } from './i18n'
import { isHttps } from './session.server'

/** Both languages' words: the server answers in either; a browser fetches its page's (words.server.ts). */
export const resources = { fr: { translation: fr }, en: { translation: en } }

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
      .then(() => rememberingPlainKeys(created))
    instances.set(language, instance)
  }
  return instance
}

/** More keys than the portal has: a translation that is not one (a key made of input) is not kept for long. */
const KEPT_KEYS = 5000

/**
 * The instance, its translation functions keeping each key asked without options: on the server the
 * resources never change, so a key's text is the same for every request, and a page asks for
 * hundreds (a list's labels on every row). Calls with options (counts, values) are translated each time.
 */
function rememberingPlainKeys(instance: i18n): i18n {
  // i18next's overloads, reduced to what is called here.
  type Translate = ((key: unknown, ...rest: unknown[]) => string) & { lng?: unknown; ns?: unknown; keyPrefix?: unknown }
  type FixedT = (lng: unknown, ns?: unknown, keyPrefix?: unknown) => Translate
  const fixedT = instance.getFixedT.bind(instance) as unknown as FixedT
  const kept = new Map<string, Map<string, string>>()
  const remembering: FixedT = (lng, ns, keyPrefix) => {
    const t = fixedT(lng, ns, keyPrefix)
    const which = `${lng ?? ''}|${ns ?? ''}|${keyPrefix ?? ''}`
    let texts = kept.get(which)
    if (!texts) {
      texts = new Map()
      kept.set(which, texts)
    }
    const known = texts
    const translate = (key: unknown, ...rest: unknown[]) => {
      if (rest.length > 0 || typeof key !== 'string') return t(key, ...rest)
      let text = known.get(key)
      if (text === undefined) {
        text = t(key)
        if (known.size >= KEPT_KEYS) known.clear()
        known.set(key, text)
      }
      return text
    }
    return Object.assign(translate, { lng: t.lng, ns: t.ns, keyPrefix: t.keyPrefix })
  }
  instance.getFixedT = remembering as unknown as i18n['getFixedT']
  return instance
}

/** Each request's language, worked out once: the loaders, the render and every in-process call ask. */
const languages = new WeakMap<Request, Promise<string>>()
function localeOf(request: Request): Promise<string> {
  let language = languages.get(request)
  if (!language) {
    language = detection.getLocale(request)
    languages.set(request, language)
  }
  return language
}

export const i18nServer = {
  /** The request's language: the switch's cookie, else the browser's. */
  getLocale: localeOf,
  /** Translations in the request's language. */
  async getFixedT(request: Request) {
    const language = await localeOf(request)
    return (await i18nFor(language)).getFixedT(language)
  },
}
