import type { SubmissionResult } from '@conform-to/react'
import type { TFunction } from 'i18next'
import { Alert } from './ui/alert'

/**
 * What a form failed on, said at its top: the server's message, else the fields to correct (by their
 * labels), so that a page reloaded without JavaScript shows why at once.
 */
export function formProblem(
  t: TFunction,
  failure:
    | {
        result?: SubmissionResult<string[]> | null
        error?: { key: string; values?: Record<string, string | number> } | null
      }
    | undefined,
  labels: Record<string, string>,
): string | null {
  if (!failure) return null
  if (failure.error) return t(failure.error.key, failure.error.values)
  const named = Object.entries(failure.result?.error ?? {})
    .filter(([name, errors]) => name in labels && errors && errors.length > 0)
    .map(([name]) => labels[name])
  // Several errors of one field (two addresses of a list) name it once.
  const fields = [...new Set(named)]
  return fields.length > 0 ? t('form.checkFields', { fields: fields.join(', ') }) : null
}

/** What went wrong with a form as a whole (not one field), announced at once; nothing when all is well. */
export function FormError({ message, className }: { message: string | null | undefined; className?: string }) {
  if (!message) return null
  return (
    <Alert variant="destructive" role="alert" className={className}>
      {message}
    </Alert>
  )
}
