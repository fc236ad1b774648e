import type { MetaFunction } from '@remix-run/cloudflare'
import type { TFunction } from 'i18next'

/** A page's title: what the page shows, most specific first, then the portal's name. */
export const pageTitle = (t: TFunction, ...parts: string[]) => [...parts, t('app.name')].join(' · ')

/** Every page's `meta`: the title its loader made with `pageTitle`, the portal's name until there is one. */
export const titleMeta: MetaFunction = ({ data }) => [
  { title: (data as { title?: string } | undefined)?.title ?? 'Portail' },
]
