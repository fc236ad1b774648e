import { Alert } from './ui/alert'

/** What went wrong with a form as a whole (not one field), announced at once; nothing when all is well. */
export function FormError({ message, className }: { message: string | null | undefined; className?: string }) {
  if (!message) return null
  return (
    <Alert variant="destructive" role="alert" className={className}>
      {message}
    </Alert>
  )
}
