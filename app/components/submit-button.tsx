import type { LucideIcon } from 'lucide-react'
import { Button, type ButtonProps } from '~/components/ui/button'

/**
 * A form's submit: while the form is sent (`pending`) it says so (`pendingLabel`) and cannot be sent
 * twice; `aria-disabled` keeps the state announced while focus stays on it.
 */
export function SubmitButton({
  icon: Icon,
  pending,
  pendingLabel,
  disabled,
  children,
  ...props
}: Omit<ButtonProps, 'type' | 'asChild'> & { icon?: LucideIcon; pending: boolean; pendingLabel?: string | undefined }) {
  return (
    <Button type="submit" disabled={pending || disabled} aria-disabled={pending} {...props}>
      {Icon ? <Icon aria-hidden /> : null}
      {pending && pendingLabel ? pendingLabel : children}
    </Button>
  )
}
