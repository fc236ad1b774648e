import { Link, useLocation } from '@remix-run/react'
import { ChevronLeft, ChevronRight, ChevronsLeft, ChevronsRight, type LucideIcon } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { DEFAULT_PAGE_SIZE, pageCount, pageWindow } from '~/lib/pagination'
import { PAGE_PARAM, urlWith } from '~/lib/url'
import { cn } from '~/lib/utils'
import { buttonVariants } from './ui/button'

/** 36 px each, 32 px on a phone: the nine of a long list keep to one line down to 320 px (9 × 32). */
const itemClass = cn(buttonVariants({ variant: 'ghost', size: 'icon' }), 'size-8 tabular-nums sm:size-9')

/**
 * Page links for a list paginated in SQL (spec: 10 per page by default, 5 pages shown, centred on the
 * current one), with first/previous/next/last. Plain links that change `?page=` and keep the other
 * params, so it works without JavaScript; page 1 drops the param. Nothing when everything fits on one
 * page. One line from 320 px up; it would wrap rather than overflow on anything narrower.
 */
export function Pagination({
  page,
  total,
  pageSize = DEFAULT_PAGE_SIZE,
  param = PAGE_PARAM,
  className,
}: {
  /** The current page, from 1. */
  page: number
  /** How many items the whole list has. */
  total: number
  pageSize?: number
  param?: string
  className?: string
}) {
  const { t } = useTranslation()
  const { search } = useLocation()
  const count = pageCount(total, pageSize)
  if (count <= 1) return null
  const current = Math.min(Math.max(1, Math.trunc(page) || 1), count)
  const href = (target: number) => urlWith(search, { [param]: target === 1 ? null : String(target) })
  return (
    <nav aria-label={t('pagination.label')} className={className}>
      <ul className="flex flex-wrap items-center justify-center sm:gap-1">
        <li>
          <StepLink to={current > 1 ? href(1) : null} label={t('pagination.first')} icon={ChevronsLeft} />
        </li>
        <li>
          <StepLink to={current > 1 ? href(current - 1) : null} label={t('pagination.previous')} icon={ChevronLeft} />
        </li>
        {pageWindow(current, count).map((target) => (
          <li key={target}>
            <Link
              to={href(target)}
              aria-current={target === current ? 'page' : undefined}
              aria-label={t('pagination.page', { page: target })}
              className={cn(itemClass, target === current && 'border border-input bg-card font-semibold')}
            >
              {target}
            </Link>
          </li>
        ))}
        <li>
          <StepLink to={current < count ? href(current + 1) : null} label={t('pagination.next')} icon={ChevronRight} />
        </li>
        <li>
          <StepLink to={current < count ? href(count) : null} label={t('pagination.last')} icon={ChevronsRight} />
        </li>
      </ul>
    </nav>
  )
}

/** A step (first, previous…) as a link, or, where there is nowhere to go, a disabled link kept in place. */
function StepLink({ to, label, icon: Icon }: { to: string | null; label: string; icon: LucideIcon }) {
  const content = (
    <>
      <Icon aria-hidden />
      <span className="sr-only">{label}</span>
    </>
  )
  if (to === null) {
    return (
      // No href: not focusable, announced as a dimmed link; the row keeps its shape.
      // biome-ignore lint/a11y/useValidAnchor: a disabled link on purpose (WAI-ARIA disabled link pattern)
      <a role="link" aria-disabled="true" className={cn(itemClass, 'pointer-events-none opacity-40')}>
        {content}
      </a>
    )
  }
  return (
    <Link to={to} className={itemClass}>
      {content}
    </Link>
  )
}
