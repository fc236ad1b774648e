import { Link } from '@remix-run/react'
import type { LucideIcon } from 'lucide-react'
import type { ReactNode } from 'react'
import { DEFAULT_PAGE_SIZE } from '~/lib/pagination'
import { Pagination } from './pagination'
import { Alert } from './ui/alert'
import { buttonVariants } from './ui/button'

/**
 * The layout of an administration list (structures, users, applications): its title and what it is
 * for beside the link that creates one, the last action's failure as an alert, the no-JavaScript
 * confirmation of a deletion, the search (and its filters), the count said politely to screen
 * readers, the table in its card, and the pages.
 */
export function AdminListPage({
  title,
  intro,
  create,
  failure,
  confirm,
  search,
  count,
  page,
  total,
  children,
}: {
  title: string
  intro: string
  create: { to: string; icon: LucideIcon; label: string }
  /** The alert's paragraphs, when the last action failed. */
  failure: ReactNode
  /** The deletion's `ConfirmPanel` without JavaScript, while one is asked. */
  confirm: ReactNode
  search: ReactNode
  /** How many rows the search found, in words. */
  count: string
  page: number
  total: number
  /** The table. */
  children: ReactNode
}) {
  const Icon = create.icon
  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
          <p className="text-muted-foreground">{intro}</p>
        </div>
        <Link to={create.to} className={buttonVariants()}>
          <Icon aria-hidden />
          {create.label}
        </Link>
      </div>
      {failure ? (
        <Alert variant="destructive" role="alert">
          {failure}
        </Alert>
      ) : null}
      {confirm}
      {search}
      <p className="text-sm text-muted-foreground" aria-live="polite">
        {count}
      </p>
      <div className="overflow-hidden rounded-lg border bg-card">{children}</div>
      <Pagination page={page} total={total} pageSize={DEFAULT_PAGE_SIZE} />
    </div>
  )
}
