import { Link } from '@remix-run/react'
import type { LucideIcon } from 'lucide-react'
import { type ReactNode, useEffect, useId, useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { SubmitButton } from '~/components/submit-button'
import { cn } from '~/lib/utils'
import { buttonVariants } from './ui/button'

/**
 * A region of the page that asks one thing (a confirmation, a validation, a new end date), named by
 * its heading, the same with and without JavaScript: the heading, what it does, then its form.
 * `tone` is its border: destructive for what cannot be undone.
 */
export function FormPanel({
  id,
  title,
  intro,
  tone = 'primary',
  heading: Heading = 'h2',
  className,
  focusOnShow = false,
  children,
}: {
  id?: string
  title: ReactNode
  intro: ReactNode
  tone?: 'primary' | 'destructive'
  /** The heading's level where the panel stands (`h3` inside a section of its own). */
  heading?: 'h2' | 'h3'
  className?: string
  /** Takes the focus when it appears (a confirmation that follows a keyboard action), so that its heading is read. */
  focusOnShow?: boolean
  children: ReactNode
}) {
  const headingId = useId()
  const section = useRef<HTMLElement>(null)
  useEffect(() => {
    if (focusOnShow) section.current?.focus()
  }, [focusOnShow])
  return (
    <section
      ref={section}
      id={id}
      tabIndex={focusOnShow ? -1 : undefined}
      aria-labelledby={headingId}
      className={cn(
        'flex flex-col gap-4 rounded-lg border bg-card p-6 shadow-sm',
        tone === 'destructive' ? 'border-destructive/50' : 'border-primary/40',
        className,
      )}
    >
      <div className="flex flex-col gap-2">
        {/* A name or address without spaces (a webhook's URL) wraps rather than widen the page. */}
        <Heading id={headingId} className="text-lg font-semibold [overflow-wrap:anywhere]">
          {title}
        </Heading>
        <p className="text-sm text-muted-foreground">{intro}</p>
      </div>
      {children}
    </section>
  )
}

/** A panel form's submit (its label changed and disabled while it is sent) and the link that cancels it. */
export function FormPanelButtons({
  icon: Icon,
  label,
  pendingLabel,
  pending,
  cancelHref,
}: {
  icon: LucideIcon
  label: string
  pendingLabel: string
  pending: boolean
  cancelHref: string
}) {
  const { t } = useTranslation()
  return (
    <div className="flex flex-wrap gap-2">
      <SubmitButton icon={Icon} pending={pending} pendingLabel={pendingLabel}>
        {label}
      </SubmitButton>
      <Link to={cancelHref} preventScrollReset className={buttonVariants({ variant: 'outline' })}>
        {t('common.cancel')}
      </Link>
    </div>
  )
}
