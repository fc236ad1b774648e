import { Link } from '@remix-run/react'
import type { LucideIcon } from 'lucide-react'
import { buttonVariants } from '~/components/ui/button'

/**
 * A table row's link that opens one of the row's panels (`to`, a search param of the page: it works without
 * JavaScript): named for its row (`label`), its word (`text`) shown on a wide screen, its icon alone on a narrow one.
 * `id` is where focus comes back when the panel closes.
 */
export function RowPanelLink({
  id,
  to,
  icon: Icon,
  label,
  text,
  variant = 'ghost',
}: {
  id: string
  to: string
  icon: LucideIcon
  label: string
  text: string
  variant?: 'ghost' | 'outline'
}) {
  return (
    <Link id={id} to={to} className={buttonVariants({ variant, size: 'sm' })} aria-label={label}>
      <Icon aria-hidden />
      <span aria-hidden className="hidden lg:inline">
        {text}
      </span>
    </Link>
  )
}
