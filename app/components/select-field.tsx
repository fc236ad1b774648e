import type * as React from 'react'
import { cn } from '~/lib/utils'
import { FieldMessages, fieldMessages } from './field'
import { Label } from './ui/label'

/** The look of a native `<select>`, as the inputs have theirs. */
export const NATIVE_SELECT =
  'flex h-10 w-full min-w-0 rounded-md border border-input bg-card px-3 py-2 text-sm focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring focus-visible:ring-offset-2 disabled:cursor-not-allowed disabled:opacity-60 aria-[invalid=true]:border-destructive'

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
  const messages = fieldMessages(selectProps.id, hint, errors)
  return (
    <div className="flex flex-col gap-1.5">
      <Label htmlFor={selectProps.id}>{label}</Label>
      <select
        {...selectProps}
        aria-invalid={messages.invalid || undefined}
        aria-describedby={messages.describedBy}
        className={cn(NATIVE_SELECT, selectProps.className)}
      >
        {placeholder !== undefined ? <option value="">{placeholder}</option> : null}
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      <FieldMessages id={selectProps.id} hint={hint} errors={errors} />
    </div>
  )
}

/**
 * Spec §4's rule for a list that depends on another choice (a structure's parents, its functions):
 * none → the field says so (`emptyMessage`) and is disabled; exactly one → chosen for the user and
 * disabled (a hidden input posts it); several → to choose.
 */
export function ChoiceField({
  id,
  name,
  label,
  options,
  defaultValue,
  placeholder,
  emptyMessage,
  emptyHint,
  singleHint,
  errors,
}: {
  id: string
  name: string
  label: React.ReactNode
  options: { value: string; label: string }[]
  defaultValue?: string
  placeholder: string
  emptyMessage: string
  /** Under the field when there is nothing to choose: what to do about it (a link, say). */
  emptyHint?: React.ReactNode
  singleHint: string
  errors?: string[] | undefined
}) {
  const [single] = options
  if (options.length === 0) {
    return (
      <SelectField
        label={label}
        hint={emptyHint}
        errors={[emptyMessage, ...(errors ?? [])]}
        options={[]}
        placeholder={placeholder}
        selectProps={{ id, name, disabled: true }}
      />
    )
  }
  if (options.length === 1 && single) {
    return (
      <>
        <input type="hidden" name={name} value={single.value} />
        <SelectField
          label={label}
          hint={singleHint}
          errors={errors}
          options={options}
          selectProps={{ id, disabled: true, value: single.value, onChange: () => {} }}
        />
      </>
    )
  }
  return (
    <SelectField
      label={label}
      errors={errors}
      placeholder={placeholder}
      options={options}
      selectProps={{ id, name, defaultValue, required: true }}
    />
  )
}
