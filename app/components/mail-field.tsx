import { type FieldMetadata, getInputProps } from '@conform-to/react'
import { useTranslation } from 'react-i18next'
import type { MailCheck } from '~/lib/mail-check'
import { Field } from './field'

/**
 * A new account's mail address with its live check (`useMailCheck`): what the last save said of it
 * (`errors`) first, else what the check found, and while it runs or once the address is free, a hint.
 */
export function MailField<Schema extends Record<string, unknown>>({
  label,
  field,
  errors,
  check,
  autoComplete,
}: {
  label: string
  field: FieldMetadata<string, Schema, string[]>
  errors: string[] | undefined
  check: MailCheck
  autoComplete: 'email' | 'off'
}) {
  const { t } = useTranslation()
  return (
    <Field
      label={label}
      errors={errors ?? check.errors(t)}
      hint={check.hint(t)}
      inputProps={{
        ...getInputProps(field, { type: 'email' }),
        id: field.id,
        autoComplete,
        spellCheck: false,
        onChange: (event) => check.check(event.currentTarget.value),
      }}
    />
  )
}
