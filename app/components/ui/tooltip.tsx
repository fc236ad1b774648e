import { type ReactNode, useId } from 'react'
import { cn } from '~/lib/utils'

/**
 * A short text shown above an element while the pointer is over it or the keyboard's focus is on it,
 * and given to screen readers as its description (`aria-describedby`). CSS only: it works before
 * and without JavaScript, which a script-driven tooltip (Radix's) does not; Escape is the browser's
 * own way out (moving the focus). The element is a button that does nothing, so a keyboard reaches it.
 */
export function Tooltip({
  content,
  children,
  className,
}: {
  content: ReactNode
  children: ReactNode
  className?: string
}) {
  const id = useId()
  return (
    <span className={cn('group relative inline-block', className)}>
      <button
        type="button"
        aria-describedby={id}
        className="cursor-help rounded-sm text-left underline decoration-dotted underline-offset-4 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
      >
        {children}
      </button>
      <span
        id={id}
        role="tooltip"
        className="pointer-events-none invisible absolute bottom-full left-0 z-20 mb-1 w-max max-w-64 break-all rounded-md bg-foreground px-2 py-1 text-xs text-background opacity-0 shadow transition-opacity group-focus-within:visible group-focus-within:opacity-100 group-hover:visible group-hover:opacity-100"
      >
        {content}
      </span>
    </span>
  )
}
