import { Inbox, type LucideIcon } from 'lucide-react'
import type { ReactNode } from 'react'
import { cn } from '~/lib/utils'

/**
 * What a list says when it has nothing to show (no rows, no match for a search), with an optional
 * way forward (`action`: a link to create one, to clear the search). The title is a paragraph, not a
 * heading: the page's outline stays the page's. `compact` is one muted line, for lists inside a card.
 */
export function EmptyState({
  icon: Icon = Inbox,
  title,
  description,
  action,
  compact = false,
  className,
}: {
  icon?: LucideIcon
  title: ReactNode
  description?: ReactNode
  action?: ReactNode
  compact?: boolean
  className?: string
}) {
  if (compact) {
    return (
      <div className={cn('flex items-center gap-2 text-sm text-muted-foreground', className)}>
        <Icon aria-hidden className="size-4 shrink-0" />
        <p>{title}</p>
        {action}
      </div>
    )
  }
  return (
    <div
      className={cn(
        'flex flex-col items-center gap-2 rounded-lg border border-dashed bg-card px-4 py-8 text-center',
        className,
      )}
    >
      <Icon aria-hidden className="size-8 text-muted-foreground" />
      <p className="font-medium">{title}</p>
      {description ? <p className="max-w-prose text-sm text-muted-foreground">{description}</p> : null}
      {action ? <div className="mt-2">{action}</div> : null}
    </div>
  )
}
