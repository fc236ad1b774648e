import type { MetaFunction } from '@remix-run/cloudflare'
import type { TFunction } from 'i18next'
import { PAGE_ERROR_TITLES, pageErrorKeys } from './page-error'

/** A page's title: what the page shows, most specific first, then the portal's name. */
export const pageTitle = (t: TFunction, ...parts: string[]) => [...parts, t('app.name')].join(' · ')

/** Every page's `meta`: the title its loader made with `pageTitle`, the portal's name until there is one. */
export const titleMeta: MetaFunction = ({ data }) => [
  { title: (data as { title?: string } | undefined)?.title ?? 'Portail' },
]

/** The words `errorMeta` may need, in the page's language: the root's loader gives them to every page. */
export const errorTitles = (t: TFunction) =>
  Object.fromEntries(['app.name', ...PAGE_ERROR_TITLES].map((key) => [key, t(key)])) as Record<string, string>

/**
 * The `meta` of a layout that shows the pages it could not show (its `ErrorBoundary`): the error's
 * heading as the title (`pageErrorKeys`), in the page's language, which a loader that failed could not
 * give; the portal's name for a page of its own that has no title.
 */
export const errorMeta: MetaFunction = ({ error, matches }) => {
  const root = matches.find((match) => match.id === 'root')?.data as { titles?: Record<string, string> } | undefined
  const portal = root?.titles?.['app.name'] ?? 'Portail'
  if (!error) return [{ title: portal }]
  const title = root?.titles?.[pageErrorKeys(error)[0]]
  return [{ title: title ? `${title} · ${portal}` : portal }]
}
