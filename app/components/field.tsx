import type * as React from 'react'
import { Input } from './ui/input'
import { Label } from './ui/label'

/**
 * A labelled input wired for assistive technology: `aria-invalid` and `aria-describedby` point at
 * the hint and the error list, which are rendered only when present.
 */
export function Field({
  label,
  hint,
  errors,
  invalid,
  inputProps,
}: {
  label: React.ReactNode
  hint?: React.ReactNode
  errors?: string[] | undefined
  /** Invalid although `errors` is empty (the hint itself shows what is wrong). */
  invalid?: boolean
  inputProps: React.InputHTMLAttributes<HTMLInputElement> & { id: string; ref?: React.Ref<HTMLInputElement> }
}) {
  const messages = fieldMessages(inputProps.id, hint, errors)
  return (
    <div className="flex flex-col gap-1.5">
      <Label htmlFor={inputProps.id}>{label}</Label>
      <Input
        {...inputProps}
        aria-invalid={messages.invalid || invalid ? true : undefined}
        aria-describedby={messages.describedBy}
      />
      <FieldMessages id={inputProps.id} hint={hint} errors={errors} />
    </div>
  )
}

/** The ids a control's `aria-describedby` names (its hint, its errors) and whether it is invalid. */
export function fieldMessages(id: string, hint: React.ReactNode, errors: string[] | undefined) {
  const hintId = hint ? `${id}-hint` : undefined
  const errorId = errors?.length ? `${id}-error` : undefined
  return { describedBy: [hintId, errorId].filter(Boolean).join(' ') || undefined, invalid: Boolean(errorId) }
}

/** A control's hint and error list under it, with the ids `fieldMessages` names. */
export function FieldMessages({
  id,
  hint,
  errors,
}: {
  id: string
  hint?: React.ReactNode
  errors?: string[] | undefined
}) {
  return (
    <>
      {hint ? (
        <div id={`${id}-hint`} className="text-xs text-muted-foreground">
          {hint}
        </div>
      ) : null}
      {errors?.length ? (
        <ul id={`${id}-error`} className="text-sm text-destructive">
          {errors.map((error) => (
            <li key={error}>{error}</li>
          ))}
        </ul>
      ) : null}
    </>
  )
}
