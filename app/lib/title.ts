import type { MetaFunction } from '@remix-run/cloudflare'
import type { TFunction } from 'i18next'
import { resources } from './i18n'
import { pageErrorKeys } from './page-error'

/** A page's title: what the page shows, most specific first, then the portal's name. */
export const pageTitle = (t: TFunction, ...parts: string[]) => [...parts, t('app.name')].join(' · ')

/** Every page's `meta`: the title its loader made with `pageTitle`, the portal's name until there is one. */
export const titleMeta: MetaFunction = ({ data }) => [
  { title: (data as { title?: string } | undefined)?.title ?? 'Portail' },
]

/**
 * The `meta` of a layout that shows the pages it could not show (its `ErrorBoundary`): the error's
 * heading as the title (`pageErrorKeys`), in the page's language, which a loader that failed could not
 * give; the portal's name for a page of its own that has no title.
 */
export const errorMeta: MetaFunction = ({ error, matches }) => {
  const locale = (matches.find((match) => match.id === 'root')?.data as { locale?: string } | null | undefined)?.locale
  const words = resources[locale === 'en' ? 'en' : 'fr'].translation
  if (!error) return [{ title: words.app.name }]
  const [title] = pageErrorKeys(error)
  // The key names its place in the words: 'pageError.rootOnlyTitle'.
  const text = title.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], words)
  return [{ title: `${String(text)} · ${words.app.name}` }]
}
