import type { FormEvent, ReactNode } from 'react'
import { useId } from 'react'
import { useTranslation } from 'react-i18next'
import { cn } from '~/lib/utils'
import { Field } from './field'

/** dd/MM/yyyy, as the `pattern` attribute wants it (anchored by the browser). */
export const DATE_PATTERN = String.raw`\d{2}/\d{2}/\d{4}`

export type DateRangeBound = {
  name: string
  label: ReactNode
  id?: string
  defaultValue?: string
  errors?: string[] | undefined
  required?: boolean
}

/**
 * A period as two dd/MM/yyyy text fields. Text rather than `type="date"`: the spec's format, shown and posted the same
 * in every browser, with or without JavaScript, and a GET filter's value comes back in the URL as typed. With
 * JavaScript the slashes are typed for the user: the numeric keypad some phones open has none.
 */
export function DateRangeInput({
  legend,
  start,
  end,
  className,
}: {
  legend: ReactNode
  start: DateRangeBound
  end: DateRangeBound
  className?: string
}) {
  const { t } = useTranslation()
  const id = useId()
  const field = (bound: DateRangeBound, fallbackId: string) => (
    <Field
      label={bound.label}
      hint={t('dateRange.hint')}
      errors={bound.errors}
      inputProps={{
        id: bound.id ?? fallbackId,
        name: bound.name,
        type: 'text',
        inputMode: 'numeric',
        pattern: DATE_PATTERN,
        maxLength: 10,
        placeholder: t('dateRange.placeholder'),
        autoComplete: 'off',
        defaultValue: bound.defaultValue,
        required: bound.required,
        onInput: addSlash,
      }}
    />
  )
  return (
    <PeriodFieldset legend={legend} className={className}>
      {field(start, `${id}-start`)}
      {field(end, `${id}-end`)}
    </PeriodFieldset>
  )
}

/**
 * A period's two fields side by side (one above the other on a phone) under its legend, and whatever
 * follows them (`after`): the layout of `DateRangeInput` and `DateRangePicker`.
 */
export function PeriodFieldset({
  legend,
  className,
  children,
  after,
}: {
  legend: ReactNode
  className?: string
  children: ReactNode
  after?: ReactNode
}) {
  return (
    // min-w-0: a fieldset is otherwise at least as wide as its content, which can overflow a phone.
    <fieldset className={cn('flex min-w-0 flex-col gap-2', className)}>
      <legend className="mb-2 text-sm font-medium">{legend}</legend>
      <div className="grid gap-4 sm:grid-cols-2">{children}</div>
      {after}
    </fieldset>
  )
}

/** Types the slash after two digits of day or month, only when typing forwards at the end. */
function addSlash(event: FormEvent<HTMLInputElement>) {
  const input = event.currentTarget
  const typed = (event.nativeEvent as InputEvent).inputType === 'insertText'
  if (typed && input.selectionStart === input.value.length && /^(\d{2}|\d{2}\/\d{2})$/.test(input.value)) {
    input.value += '/'
  }
}
