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
  inputProps,
}: {
  label: React.ReactNode
  hint?: React.ReactNode
  errors?: string[] | undefined
  inputProps: React.InputHTMLAttributes<HTMLInputElement> & { id: string }
}) {
  const hintId = hint ? `${inputProps.id}-hint` : undefined
  const errorId = errors?.length ? `${inputProps.id}-error` : undefined
  return (
    <div className="flex flex-col gap-1.5">
      <Label htmlFor={inputProps.id}>{label}</Label>
      <Input
        {...inputProps}
        aria-invalid={errorId ? true : undefined}
        aria-describedby={[hintId, errorId].filter(Boolean).join(' ') || undefined}
      />
      {hint ? (
        <p id={hintId} className="text-xs text-muted-foreground">
          {hint}
        </p>
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
