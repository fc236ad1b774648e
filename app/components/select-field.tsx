import type * as React from 'react'
import { cn } from '~/lib/utils'
import { Label } from './ui/label'

/**
 * A labelled native `<select>`, wired like `Field` (`aria-invalid`, `aria-describedby` to the hint and
 * the errors). Native on purpose: short lists, the same with and without JavaScript, and the phone's
 * own picker.
 */
export function SelectField({
  label,
  hint,
  errors,
  options,
  placeholder,
  selectProps,
}: {
  label: React.ReactNode
  hint?: React.ReactNode
  errors?: string[] | undefined
  options: { value: string; label: string }[]
  /** A first, empty choice (required selects then refuse it). */
  placeholder?: string
  selectProps: React.SelectHTMLAttributes<HTMLSelectElement> & { id: string }
}) {
  const hintId = hint ? `${selectProps.id}-hint` : undefined
  const errorId = errors?.length ? `${selectProps.id}-error` : undefined
  return (
    <div className="flex flex-col gap-1.5">
      <Label htmlFor={selectProps.id}>{label}</Label>
      <select
        {...selectProps}
        aria-invalid={errorId ? true : undefined}
        aria-describedby={[hintId, errorId].filter(Boolean).join(' ') || undefined}
        className={cn(
          'flex h-10 w-full min-w-0 rounded-md border border-input bg-card px-3 py-2 text-sm focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring focus-visible:ring-offset-2 disabled:cursor-not-allowed disabled:opacity-60 aria-[invalid=true]:border-destructive',
          selectProps.className,
        )}
      >
        {placeholder !== undefined ? <option value="">{placeholder}</option> : null}
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
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
