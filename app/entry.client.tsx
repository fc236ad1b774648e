import { RemixBrowser } from '@remix-run/react'
import i18next from 'i18next'
import { StrictMode, startTransition } from 'react'
import { hydrateRoot } from 'react-dom/client'
import { I18nextProvider, initReactI18next } from 'react-i18next'
import { i18nConfig, pageLanguage } from './lib/i18n'
import { loadWords, WORDS_LINK_ID } from './lib/words'

/** The page comes alive once its words are here (preloaded with the scripts, app/root.tsx). */
async function hydrate() {
  const lng = pageLanguage(document.documentElement.lang)
  const href = document.getElementById(WORDS_LINK_ID)?.getAttribute('href') ?? `/locales/${lng}`
  const resources = { [lng]: { translation: await loadWords(lng, href) } }
  await i18next.use(initReactI18next).init({ ...i18nConfig, lng, resources })
  startTransition(() => {
    hydrateRoot(
      document,
      <I18nextProvider i18n={i18next}>
        <StrictMode>
          <RemixBrowser />
        </StrictMode>
      </I18nextProvider>,
    )
  })
}

hydrate().catch((error: unknown) => console.error('The page stays without scripts', error))
