import { RemixBrowser } from '@remix-run/react'
import i18next from 'i18next'
import { StrictMode, startTransition } from 'react'
import { hydrateRoot } from 'react-dom/client'
import { I18nextProvider, initReactI18next } from 'react-i18next'
import { i18nConfig, pageLanguage } from './lib/i18n'
import { loadWords, WORDS_LINK_ID } from './lib/words'

/**
 * Decodes the page's data before React takes the page over. With single fetch, `RemixBrowser` decodes it during its
 * first render, which therefore always waits once; a key typed or a click in that moment makes React hydrate at once,
 * synchronously, and a synchronous render that waits kills the page (React's #345, remix-run/remix#10214). Calling the
 * component once outside React starts that decoding and hands us what it waits on: once it settles, the first render
 * has nothing left to wait for. A failed decoding is thrown again by that render, as before.
 */
function decodePageData(): Promise<unknown> {
  if (!window.__remixContext.future.v3_singleFetch || !window.__remixContext.stream) return Promise.resolve()
  try {
    RemixBrowser({})
  } catch (waitingOn) {
    if (waitingOn instanceof Promise) return waitingOn
    throw waitingOn
  }
  return Promise.resolve()
}

/** The page comes alive once its words are here (preloaded with the scripts, app/root.tsx) and its data decoded. */
async function hydrate() {
  const lng = pageLanguage(document.documentElement.lang)
  const href = document.getElementById(WORDS_LINK_ID)?.getAttribute('href') ?? `/locales/${lng}`
  const [words] = await Promise.all([loadWords(lng, href), decodePageData()])
  await i18next.use(initReactI18next).init({ ...i18nConfig, lng, resources: { [lng]: { translation: words } } })
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
