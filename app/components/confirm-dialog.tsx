import { Form, Link, useNavigation } from '@remix-run/react'
import type { VariantProps } from 'class-variance-authority'
import type { TFunction } from 'i18next'
import { type KeyboardEvent, type MouseEvent, type ReactNode, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { SubmitButton } from '~/components/submit-button'
import { useHydrated } from '~/lib/hydrated'
import { cn } from '~/lib/utils'
import { FormPanel } from './form-panel'
import {
  AlertDialog,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogHeader,
  AlertDialogTitle,
} from './ui/alert-dialog'
import { buttonVariants } from './ui/button'

type ButtonVariant = VariantProps<typeof buttonVariants>['variant']

/** What is asked and what is posted: the same for the dialog and for the no-JavaScript page. */
export type Confirmation = {
  title: string
  /** Phrasing content only (it is rendered in a paragraph). */
  description: ReactNode
  confirmLabel: string
  /** The confirm button's text while the form is sent. */
  pendingLabel?: string
  cancelLabel?: string
  /**
   * The POST form's hidden inputs, e.g. `{ intent: 'supprimer', id: '3' }`; `null` when the action
   * cannot be done: the description says why and only the way back is offered (`cancelLabel`, "Close").
   */
  fields: Record<string, string> | null
  /** Where the form posts: the current route (and its search params) when omitted. */
  action?: string
  /** The confirm button's look: destructive unless the action is harmless. */
  variant?: ButtonVariant
}

/**
 * A button that confirms before posting a form (delete, disable…): without JavaScript a link to `fallbackHref`, where
 * the route renders a `ConfirmPanel`; with it an alert dialog, though a modifier-click still opens the page. The dialog
 * closes as the form is sent: the page's own answer (toast, `FormError`) says how it went.
 */
export function ConfirmDialog({
  children,
  id,
  fallbackHref,
  triggerVariant = 'outline',
  triggerSize = 'sm',
  triggerClassName,
  onPage = false,
  ...confirmation
}: Confirmation & {
  /** The trigger's content; give icon-only triggers an `sr-only` text. */
  children: ReactNode
  /** The trigger's id, so that focus can come back to it (`FOCUS_FIELD`, the panel's cancel link). */
  id?: string
  fallbackHref: string
  triggerVariant?: ButtonVariant
  triggerSize?: VariantProps<typeof buttonVariants>['size']
  triggerClassName?: string
  /**
   * The confirmation needs what only the page's loader reads (the service accounts an administrator's departure
   * stops): the trigger opens the page's panel (`fallbackHref`) with JavaScript too, and the dialog is not used.
   */
  onPage?: boolean
}) {
  const { t } = useTranslation()
  const hydrated = useHydrated()
  const [open, setOpen] = useState(false)
  const trigger = useRef<HTMLAnchorElement>(null)
  if (onPage) {
    return (
      <Link
        id={id}
        to={fallbackHref}
        preventScrollReset
        className={cn(buttonVariants({ variant: triggerVariant, size: triggerSize }), triggerClassName)}
      >
        {children}
      </Link>
    )
  }
  // Once hydrated the link opens a dialog, so it becomes a button (Space included) that says so.
  const enhanced = hydrated
    ? {
        role: 'button',
        'aria-haspopup': 'dialog' as const,
        'aria-expanded': open,
        // The dialog's button submits from outside the page's main content: this says whose dialog it
        // was, for focus to come back here (lib/focus.ts) however soon the form leaves.
        'data-dialog': `${id}-dialog`,
        onClick(event: MouseEvent<HTMLAnchorElement>) {
          if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
          event.preventDefault()
          setOpen(true)
        },
        onKeyDown(event: KeyboardEvent<HTMLAnchorElement>) {
          if (event.key !== ' ') return
          event.preventDefault()
          setOpen(true)
        },
      }
    : {}
  return (
    <>
      <a
        ref={trigger}
        id={id}
        href={fallbackHref}
        className={cn(buttonVariants({ variant: triggerVariant, size: triggerSize }), triggerClassName)}
        {...enhanced}
      >
        {children}
      </a>
      {/* Closed until a click after hydration, so nothing of it is rendered on the server: a list of rows
          each with its confirmation would otherwise build every row's dialog for each request. */}
      {hydrated ? (
        <AlertDialog open={open} onOpenChange={setOpen}>
          <AlertDialogContent
            id={`${id}-dialog`}
            onCloseAutoFocus={(event) => {
              // Radix returns focus to its own Trigger; this trigger is a link, so it is done here.
              event.preventDefault()
              trigger.current?.focus()
            }}
          >
            <AlertDialogHeader>
              <AlertDialogTitle className="[overflow-wrap:anywhere]">{confirmation.title}</AlertDialogTitle>
              <AlertDialogDescription>{confirmation.description}</AlertDialogDescription>
            </AlertDialogHeader>
            <ConfirmForm
              {...confirmation}
              cancel={<AlertDialogCancel>{cancelLabel(confirmation, t)}</AlertDialogCancel>}
              onSubmit={() => setOpen(false)}
            />
          </AlertDialogContent>
        </AlertDialog>
      ) : null}
    </>
  )
}

/**
 * The confirmation a route renders at `ConfirmDialog`'s `fallbackHref`, for browsers without JavaScript: the same text
 * and POST form, and a link back (`cancelHref`). Render it near the top of the page.
 */
export function ConfirmPanel({
  cancelHref,
  returnTo,
  id,
  className,
  children,
  ...confirmation
}: Confirmation & {
  cancelHref: string
  /** The id of the trigger that asked (`ConfirmDialog`'s `id`): the cancel link brings focus back to it. */
  returnTo?: string
  id?: string
  className?: string
  /** What the confirmation says beyond its description (a list), above its buttons. */
  children?: ReactNode
}) {
  const { t } = useTranslation()
  return (
    <FormPanel
      id={id}
      tone="destructive"
      title={confirmation.title}
      intro={confirmation.description}
      className={className}
    >
      {children}
      <ConfirmForm
        {...confirmation}
        cancel={
          <Link
            to={returnTo ? `${cancelHref}#${returnTo}` : cancelHref}
            className={buttonVariants({ variant: 'outline' })}
          >
            {cancelLabel(confirmation, t)}
          </Link>
        }
      />
    </FormPanel>
  )
}

/** The way back's words: "Cancel" beside an action, "Close" when there is none. */
const cancelLabel = (confirmation: Confirmation, t: TFunction) =>
  confirmation.cancelLabel ?? (confirmation.fields === null ? t('common.close') : t('common.cancel'))

function ConfirmForm({
  fields,
  action,
  variant = 'destructive',
  confirmLabel,
  pendingLabel,
  cancel,
  onSubmit,
}: Confirmation & { cancel: ReactNode; onSubmit?: () => void }) {
  const navigation = useNavigation()
  // Nothing that could work to offer: the way back alone.
  if (fields === null) return <div className="flex justify-end">{cancel}</div>
  const pending =
    navigation.state === 'submitting' &&
    Object.entries(fields).every(([name, value]) => navigation.formData?.get(name) === value)
  return (
    <Form
      method="post"
      action={action}
      // The page stays where it was: the list the row was in, with focus back in it.
      preventScrollReset
      onSubmit={onSubmit}
      className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end"
    >
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      {cancel}
      <SubmitButton variant={variant} pending={pending} pendingLabel={pendingLabel}>
        {confirmLabel}
      </SubmitButton>
    </Form>
  )
}
