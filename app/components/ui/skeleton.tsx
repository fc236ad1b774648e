import type * as React from 'react'
import { cn } from '~/lib/utils'

/**
 * A placeholder shape while data loads. Hidden from assistive technology: what is loading is said by
 * the region around it (`aria-busy`), not by grey boxes.
 *
 * @example A list that shows its pending state while the URL (search, sort, page) changes:
 * ```tsx
 * const navigation = useNavigation()
 * const location = useLocation()
 * const pending = navigation.state === 'loading' && navigation.location.pathname === location.pathname
 * return (
 *   <div aria-busy={pending}>
 *     {pending ? <Skeleton className="h-40 w-full" /> : <DataTable … />}
 *   </div>
 * )
 * ```
 */
export function Skeleton({ className, ...props }: React.HTMLAttributes<HTMLDivElement>) {
  return (
    <div
      data-slot="skeleton"
      aria-hidden
      className={cn('animate-pulse rounded-md bg-muted motion-reduce:animate-none', className)}
      {...props}
    />
  )
}
