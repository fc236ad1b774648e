import { type FieldMetadata, getInputProps } from '@conform-to/react'
import { Check, Circle, X } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { Field } from '~/components/field'
import { cn } from '~/lib/utils'
import { brokenPasswordRules, PASSWORD_RULE_KEYS, PASSWORD_RULES } from '../../../worker-api/contract/password-rules'

/** The field errors that are password rules (the rest shows as ordinary errors). */
export const ruleErrors = (errors: string[] | undefined) => errors?.filter((key) => PASSWORD_RULE_KEYS.includes(key))
export const otherErrors = (errors: string[] | undefined) => errors?.filter((key) => !PASSWORD_RULE_KEYS.includes(key))

/**
 * The rules the password breaks, once the server has checked it: as the server said, then, as the
 * person types again (with JavaScript), as the rules themselves say of what is typed.
 */
function brokenRules(password: FieldMetadata<unknown>): string[] {
  const checked = ruleErrors(password.errors) ?? []
  if (checked.length === 0 || password.value === undefined) return checked
  return brokenPasswordRules(typeof password.value === 'string' ? password.value : '')
}

/**
 * Spec §5: the five rules of a new password, always in view as the field's hint; once the password
 * breaks one, all five are listed with each one marked kept or broken (in words for screen readers).
 */
export function PasswordRules({ broken: brokenKeys }: { broken: string[] }) {
  const { t } = useTranslation()
  const broken = new Set(brokenKeys)
  // An empty password breaks "required"; saying it keeps or breaks the others would mean nothing.
  const empty = broken.has('password.rules.required')
  const state = (key: string) =>
    broken.size === 0 || (empty && key !== 'password.rules.required') ? 'neutral' : broken.has(key) ? 'broken' : 'met'
  return (
    <div className="flex flex-col gap-1">
      <span>{t('password.rulesTitle')}</span>
      {/* Polite: the marks change as the password is typed, once it has been checked. */}
      <ul className="flex flex-col gap-0.5" aria-live="polite">
        {PASSWORD_RULES.map(({ key }) => {
          const rule = state(key)
          const Icon = rule === 'neutral' ? Circle : rule === 'broken' ? X : Check
          return (
            <li
              key={key}
              className={cn(
                'flex items-start gap-1.5',
                rule === 'broken' && 'text-destructive',
                rule === 'met' && 'text-foreground',
              )}
            >
              <Icon
                aria-hidden
                className={cn(
                  'mt-0.5 size-3 shrink-0',
                  rule === 'neutral' && 'mt-1 size-2',
                  rule === 'met' && 'text-success',
                )}
              />
              <span>
                {t(key)}
                {rule === 'neutral' ? null : (
                  <span className="sr-only">
                    {' '}
                    ({t(rule === 'broken' ? 'password.ruleBroken' : 'password.ruleMet')})
                  </span>
                )}
              </span>
            </li>
          )
        })}
      </ul>
    </div>
  )
}

/** A new password and its confirmation (spec §5: the rules, max length 12, the same twice). */
export function NewPasswordFields({
  password,
  confirmation,
  labels,
  autoFocus = false,
}: {
  password: FieldMetadata<unknown>
  confirmation: FieldMetadata<string>
  labels: { password: string; confirmation: string }
  autoFocus?: boolean
}) {
  const { t } = useTranslation()
  const translate = (errors: string[] | undefined) => errors?.map((key) => t(key))
  // No maxlength: a longer pasted password would be cut silently and saved cut; the length rule says it.
  const common = { autoComplete: 'new-password' }
  const broken = brokenRules(password)
  return (
    <>
      <Field
        label={labels.password}
        hint={<PasswordRules broken={broken} />}
        invalid={broken.length > 0}
        errors={translate(otherErrors(password.errors))}
        inputProps={{ ...getInputProps(password, { type: 'password' }), id: password.id, ...common, autoFocus }}
      />
      <Field
        label={labels.confirmation}
        errors={translate(confirmation.errors)}
        inputProps={{ ...getInputProps(confirmation, { type: 'password' }), id: confirmation.id, ...common }}
      />
    </>
  )
}
