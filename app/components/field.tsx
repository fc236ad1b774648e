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
  inputProps: React.InputHTMLAttributes<HTMLInputElement> & { id: string }
}) {
  const hintId = hint ? `${inputProps.id}-hint` : undefined
  const errorId = errors?.length ? `${inputProps.id}-error` : undefined
  return (
    <div className="flex flex-col gap-1.5">
      <Label htmlFor={inputProps.id}>{label}</Label>
      <Input
        {...inputProps}
        aria-invalid={errorId || invalid ? true : undefined}
        aria-describedby={[hintId, errorId].filter(Boolean).join(' ') || undefined}
      />
      {hint ? (
        <div id={hintId} className="text-xs text-muted-foreground">
          {hint}
        </div>
      ) : null}
      {errorId ? (
        <ul id={errorId} className="text-sm text-destructive">
          {errors?.map((error) => (
            <li key={error}>{error}</li>
          ))}
        </ul>
      ) : null}
    </div>
  )
}
