import type { ReactNode } from 'react'

/**
 * A form's first submit button, out of sight and out of the tab order: Enter in a field presses the
 * form's first submit button, so it sends `intent` (Save) rather than a button further down (show the
 * functions, move a function up).
 */
export function EnterSubmits({
  intent,
  disabled,
  children,
}: {
  intent: string
  disabled: boolean
  children: ReactNode
}) {
  return (
    <button
      type="submit"
      name="intent"
      value={intent}
      disabled={disabled}
      tabIndex={-1}
      aria-hidden
      className="sr-only"
    >
      {children}
    </button>
  )
}
