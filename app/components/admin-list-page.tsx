import { Link, useLocation } from '@remix-run/react'
import { type LucideIcon, TriangleAlert } from 'lucide-react'
import type { ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { DEFAULT_PAGE_SIZE } from '~/lib/pagination'
import { urlWith } from '~/lib/url'
import { EmptyState } from './empty-state'
import { Pagination } from './pagination'
import { Alert } from './ui/alert'
import { buttonVariants } from './ui/button'

/**
 * The layout of an administration list (structures, users, applications, the authorisation queue):
 * its title and what it is for beside the link that creates one, the last action's failure as an
 * alert, the panels a row's action opens on the page, the search (and its filters), the count said
 * politely to screen readers, the table in its card, and the pages.
 */
export function AdminListPage({
  title,
  intro,
  create,
  failure,
  panels,
  search,
  unreadable,
  count,
  page,
  total,
  children,
}: {
  title: string
  intro: string
  create?: { to: string; icon: LucideIcon; label: string }
  /** The alert's paragraphs, when the last action failed. */
  failure: ReactNode
  /** What a row's action opens on the page: a deletion's `ConfirmPanel` without JavaScript, a validation. */
  panels: ReactNode
  search: ReactNode
  /** In place of the count, the table and the pages, when the list could not be read. */
  unreadable?: ReactNode
  /** How many rows the search found, in words. */
  count: string
  page: number
  total: number
  /** The table. */
  children: ReactNode
}) {
  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
          <p className="text-muted-foreground">{intro}</p>
        </div>
        {create ? (
          <Link to={create.to} className={buttonVariants()}>
            <create.icon aria-hidden />
            {create.label}
          </Link>
        ) : null}
      </div>
      {failure ? (
        <Alert variant="destructive" role="alert">
          {failure}
        </Alert>
      ) : null}
      {panels}
      {search}
      {unreadable ?? (
        <>
          <p className="text-sm text-muted-foreground" aria-live="polite">
            {count}
          </p>
          <div className="overflow-hidden rounded-lg border bg-card">{children}</div>
          <Pagination page={page} total={total} pageSize={DEFAULT_PAGE_SIZE} />
        </>
      )}
    </div>
  )
}

/** What a list says in place of its table when it could not be read (spec §8), with the way to try again. */
export function ListUnreadable({ retry }: { retry: string }) {
  const { t } = useTranslation()
  const { search } = useLocation()
  return (
    <EmptyState
      icon={TriangleAlert}
      title={t('errors.fetchFailed')}
      action={
        <Link to={urlWith(search, {})} className={buttonVariants({ variant: 'outline' })}>
          {retry}
        </Link>
      }
    />
  )
}
