import { type ReactNode, useId } from 'react'
import { cn } from '~/lib/utils'

/**
 * A short text shown above an element while the pointer is over it or the keyboard's focus is on it,
 * and given to screen readers as its description (`aria-describedby`). CSS only: it works before
 * and without JavaScript, which a script-driven tooltip (Radix's) does not; Escape is the browser's
 * own way out (moving the focus). The element is a button that does nothing, so a keyboard reaches it.
 * Out of the layout until shown (`aria-describedby` still reads it), and no wider than half the
 * screen: a tooltip in a table's cell on a phone neither widens the table nor reaches past the screen.
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
        className="pointer-events-none absolute bottom-full left-0 z-20 mb-1 hidden w-max max-w-[min(16rem,50vw)] break-all rounded-md bg-foreground px-2 py-1 text-xs text-background shadow group-focus-within:block group-hover:block"
      >
        {content}
      </span>
    </span>
  )
}
