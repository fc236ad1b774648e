import './tailwind.css'
import { data, type LinksFunction, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import {
  isRouteErrorResponse,
  Link,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useLoaderData,
  useLocation,
  useMatches,
  useRouteError,
  useRouteLoaderData,
} from '@remix-run/react'
import { type CSSProperties, useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Alert } from './components/ui/alert'
import { buttonVariants } from './components/ui/button'
import { useFocusAfterActions } from './lib/focus'
import { pageLanguage } from './lib/i18n'
import { i18nServer } from './lib/i18n.server'
import { useNonce } from './lib/nonce'
import { pageErrorKeys } from './lib/page-error'
import { shipsWithoutScripts } from './lib/scripts'
import { themeStylesheet } from './lib/theme.server'
import { errorMeta, errorTitles } from './lib/title'
import { readToast, type Toast } from './lib/toast.server'
import { useLanguage, WORDS_LINK_ID } from './lib/words'
import { wordsHref } from './lib/words.server'

/** Spec §9: notices and errors stay 5 s. */
export const TOAST_DURATION_MS = 5000
/** Between the notices' live region appearing and the first notice going in. */
const LIVE_REGION_DELAY_MS = 150

export const links: LinksFunction = () => [{ rel: 'icon', href: '/favicon.svg', type: 'image/svg+xml' }]

/** A page that could not be shown at all is titled by its error; each page titles itself otherwise. */
export const meta = errorMeta

export async function loader({ request, context }: LoaderFunctionArgs) {
  const [detected, t, { toast, headers }] = await Promise.all([
    i18nServer.getLocale(request),
    i18nServer.getFixedT(request),
    readToast(request, context),
  ])
  const locale = pageLanguage(detected)
  const words = wordsHref(locale)
  return data({ locale, theme: themeStylesheet(request), toast, titles: errorTitles(t), words }, { headers })
}

/** The seconds after which the page asks to be read again (its loader's `autoRefresh`), if it does. */
function autoRefreshOf(matches: ReturnType<typeof useMatches>): number | null {
  for (const match of matches) {
    const seconds = (match.data as { autoRefresh?: unknown } | undefined)?.autoRefresh
    if (typeof seconds === 'number' && seconds > 0) return seconds
  }
  return null
}

export function Layout({ children }: { children: React.ReactNode }) {
  const root = useRouteLoaderData<typeof loader>('root')
  const nonce = useNonce()
  const locale = root?.locale ?? 'fr'
  const matches = useMatches()
  const scripts = !matches.some((match) => shipsWithoutScripts(match.handle))
  const refresh = autoRefreshOf(matches)
  return (
    <html lang={locale} dir="ltr">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        <Links />
        {/* A page that follows work running elsewhere (an import) reloads itself when no script can read it again. */}
        {refresh ? (
          <noscript>
            <meta httpEquiv="refresh" content={String(refresh)} />
          </noscript>
        ) : null}
        {/* Per-host look, resolved on the server so there is no flash (DESIGN §7). */}
        <link rel="stylesheet" href={root?.theme ?? '/styles/default.css'} />
        {/* The page's words, fetched alongside its scripts (app/entry.client.tsx). */}
        {scripts && root ? (
          <link id={WORDS_LINK_ID} rel="preload" as="fetch" href={root.words} crossOrigin="anonymous" />
        ) : null}
      </head>
      <body className="min-h-screen antialiased">
        {children}
        {scripts ? (
          <>
            <ScrollRestoration nonce={nonce} />
            <Scripts nonce={nonce} />
          </>
        ) : null}
      </body>
    </html>
  )
}

type Sonner = typeof import('sonner')

/**
 * The notice a page was given: a toast after an action (carried by its redirect), or one a page's
 * loader gives as `notice` (a read that failed, spec §8). The toast library is loaded with the first
 * notice, not with every page; its live region is in place a moment before the notice goes in, so
 * that screen readers announce it. Without JavaScript a redirect's notice is a banner; a page says
 * its own in its content.
 *
 * Toasts hide no control: in the signed-in pages they rise from the bottom of the sidebar, whose menu
 * then ends above them (`measureNoticeRoom`; on a phone they lie at the bottom edge of the screen); on
 * the public pages, whose card stands in the middle, they come in at the top right. A notice that
 * leads somewhere (`link`) stays until it is closed or its page is left, so that a keyboard (Alt+T, or
 * the first Tab of the page) has the time to reach its link.
 */
function Notices() {
  const { toast: carried } = useLoaderData<typeof loader>()
  const matches = useMatches()
  const given = matches
    .map((match) => (match.data as { notice?: Toast } | null | undefined)?.notice)
    .find((notice) => notice !== undefined)
  const toast = carried ?? given ?? null
  const signedIn = matches.some((match) => match.id === 'routes/pages')
  const { pathname } = useLocation()
  const { t } = useTranslation()
  const message = toast ? t(toast.key, toast.values) : null
  const [sonner, setSonner] = useState<Sonner | null>(null)
  // The toast that lasts until its page is left: gone with the page.
  const lasting = useRef<string | number | null>(null)
  useEffect(
    () => () => {
      if (lasting.current === null) return
      sonner?.toast.dismiss(lasting.current)
      lasting.current = null
    },
    [pathname, sonner],
  )
  useEffect(() => {
    if (!message || sonner) return
    let cancelled = false
    import('sonner')
      .then((module) => cancelled || setSonner(module))
      .catch((error: unknown) => console.error('Notices could not load', error))
    return () => {
      cancelled = true
    }
  }, [message, sonner])
  useEffect(() => {
    if (!sonner || !toast || !message) return
    const show =
      toast.type === 'error' ? sonner.toast.error : toast.type === 'success' ? sonner.toast.success : sonner.toast
    const link = toast.link ? <NoticeLink link={toast.link} /> : undefined
    const timer = setTimeout(() => {
      const id = show(message, {
        duration: link ? Number.POSITIVE_INFINITY : TOAST_DURATION_MS,
        description: link,
        onDismiss: () => setTimeout(measureNoticeRoom, NOTICE_EXIT_MS),
        onAutoClose: () => setTimeout(measureNoticeRoom, NOTICE_EXIT_MS),
      })
      if (link) lasting.current = id
      // Once drawn (the frame after next).
      requestAnimationFrame(() => requestAnimationFrame(measureNoticeRoom))
    }, LIVE_REGION_DELAY_MS)
    return () => clearTimeout(timer)
  }, [sonner, toast, message])
  return (
    <>
      {sonner ? (
        <sonner.Toaster
          position={signedIn ? 'bottom-left' : 'top-right'}
          // At the sidebar's foot (app/routes/pages.tsx), as wide as the sidebar's entries.
          offset={signedIn ? { left: SIDEBAR_INSET, bottom: SIDEBAR_INSET } : undefined}
          style={signedIn ? ({ '--width': `calc(16rem - ${2 * SIDEBAR_INSET}px)` } as CSSProperties) : undefined}
          richColors
          closeButton
          duration={TOAST_DURATION_MS}
          containerAriaLabel={t('common.notices')}
          // The close button named in the page's language, and a 24 px target (WCAG 2.5.8) over sonner's 20 px.
          toastOptions={{ closeButtonAriaLabel: t('common.closeNotice'), classNames: { closeButton: 'size-6!' } }}
        />
      ) : null}
      {message && carried ? (
        <noscript>
          <Alert variant={toast?.type === 'error' ? 'destructive' : 'success'} role="status" className="m-4 w-auto">
            {message}
            {toast?.link ? (
              <>
                {' '}
                <NoticeLink link={toast.link} />
              </>
            ) : null}
          </Alert>
        </noscript>
      ) : null}
    </>
  )
}

/** Where a notice leads (`Toast['link']`): a link of the portal, in the notice's words. */
function NoticeLink({ link }: { link: NonNullable<Toast['link']> }) {
  const { t } = useTranslation()
  return (
    <Link to={link.to} className="font-medium underline underline-offset-4">
      {t(link.key, link.values)}
    </Link>
  )
}

/** Between a toast and the sidebar's edges, in pixels (the sidebar's own inset of its entries). */
const SIDEBAR_INSET = 12
/** How long a closed toast takes to leave (the library's 200 ms), and a little more. */
const NOTICE_EXIT_MS = 250

/**
 * The room the notice in front takes at the foot of the screen, kept as `--notices-room` on the
 * document: the sidebar's foot takes that height (app/routes/pages.tsx), so that its menu ends above
 * the notice (scrolling if it must) instead of lying under it. None once the notices have gone.
 */
function measureNoticeRoom() {
  const front = document.querySelector<HTMLElement>('[data-sonner-toast][data-front="true"]:not([data-removed="true"])')
  if (front) document.documentElement.style.setProperty('--notices-room', `${front.offsetHeight + 2 * SIDEBAR_INSET}px`)
  else document.documentElement.style.removeProperty('--notices-room')
}

export default function App() {
  const { locale, words } = useLoaderData<typeof loader>()
  useLanguage(locale, words)
  useFocusAfterActions()
  return (
    <>
      <Notices />
      <Outlet />
    </>
  )
}

export function ErrorBoundary() {
  const error = useRouteError()
  const { t } = useTranslation()
  if (!isRouteErrorResponse(error)) console.error(error)
  const [title, text] = pageErrorKeys(error)
  return (
    <main className="mx-auto flex min-h-screen max-w-lg flex-col items-center justify-center gap-4 p-6 text-center">
      <h1 className="text-2xl font-semibold">{t(title)}</h1>
      <p className="text-muted-foreground">{t(text)}</p>
      <a href="/" className={buttonVariants()}>
        {t('common.home')}
      </a>
    </main>
  )
}
