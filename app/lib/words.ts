import { useEffect } from 'react'
import { useTranslation } from 'react-i18next'
import type { Language } from './i18n'

/** The id of the page's `<link rel="preload">` of its words (app/root.tsx), which the browser fetches at once. */
export const WORDS_LINK_ID = 'words'

/** One language's words, as JSON from the server (app/lib/words.server.ts): a page ships its own language only. */
async function fetchWords(href: string): Promise<Record<string, unknown>> {
  const response = await fetch(href)
  if (!response.ok) throw new Error(`The words at ${href} answered ${response.status}`)
  return response.json()
}

/** The words from the server, else (a network hiccup, a proxy) from a script of their own: the page always comes alive. */
export async function loadWords(language: Language, href: string): Promise<Record<string, unknown>> {
  try {
    return await fetchWords(href)
  } catch (error) {
    console.warn('The words come from their script instead', error)
    return language === 'en' ? (await import('~/locales/en')).en : (await import('~/locales/fr')).fr
  }
}

/** The page's words follow its language (a switch made without reload): fetched first, then changed to. */
export function useLanguage(language: Language, href: string) {
  const { i18n } = useTranslation()
  useEffect(() => {
    if (i18n.language === language) return
    let current = true
    const change = async () => {
      if (!i18n.hasResourceBundle(language, 'translation')) {
        i18n.addResourceBundle(language, 'translation', await loadWords(language, href))
      }
      if (current) await i18n.changeLanguage(language)
    }
    change().catch((error: unknown) => console.error('The words could not load', error))
    return () => {
      current = false
    }
  }, [language, href, i18n])
}
