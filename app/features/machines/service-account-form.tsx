import { type FieldMetadata, getFormProps, getInputProps, getTextareaProps, useForm } from '@conform-to/react'
import type { getZodConstraint } from '@conform-to/zod/v4'
import { Form } from '@remix-run/react'
import { Plus } from 'lucide-react'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { EnterSubmits } from '~/components/enter-submits'
import { Field, FieldMessages, fieldMessages } from '~/components/field'
import { FormError, formProblem } from '~/components/form-error'
import { SubmitButton } from '~/components/submit-button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '~/components/ui/card'
import { CHECKBOX } from '~/components/ui/checkbox'
import { Label } from '~/components/ui/label'
import { Textarea } from '~/components/ui/textarea'
import { type FieldErrors, useFieldErrors, useFormReply, usePendingIntent } from '~/lib/form'
import { useHydrated } from '~/lib/hydrated'
import { SERVICE_SCOPES } from '../../../worker-api/contract/machines/service-accounts'
import type { StructureChoices } from '../organisation/structure-choice'
import { StructureSelect } from '../organisation/structure-select'
import { CREATE_INTENT, CREATE_SECTION, SEARCH_INTENT } from './service-account'
import type { ServiceAccountForm as Values } from './service-accounts.server'

/** The scope a new account is offered with: the REST API, what most programs call. */
const DEFAULT_SCOPES = ['api']

/**
 * The form that creates a service account: its name and what it is for, its structure (among the
 * admin's scope), administrator or read-only, its scopes, its public keys if it signs with them. An
 * administrator account asks for the admin's proof: once the page is live the field shows (and is
 * required) when the box is ticked; without JavaScript it is always there, saying when it is needed.
 */
export function ServiceAccountCreate({
  choices,
  withCode,
  constraint,
}: {
  choices: StructureChoices
  withCode: boolean
  constraint: ReturnType<typeof getZodConstraint>
}) {
  const { t } = useTranslation()
  const reply = useFormReply(CREATE_INTENT)
  const pending = usePendingIntent(CREATE_INTENT)
  const hydrated = useHydrated()
  const [form, fields] = useForm<Values>({
    id: 'compte',
    lastResult: reply?.result,
    defaultValue: { scopes: DEFAULT_SCOPES },
    constraint,
    shouldValidate: 'onSubmit',
  })
  const shown = useFieldErrors(reply)
  const [admin, setAdmin] = useState(fields.admin.initialValue === 'on')
  const scopes = asList(fields.scopes.initialValue)
  const labels = {
    nom: t('serviceAccounts.nom'),
    description: t('serviceAccounts.description'),
    structure: t('serviceAccounts.structure'),
    scopes: t('serviceAccounts.scopes'),
    jwks: t('serviceAccounts.jwks'),
    motDePasse: t('serviceAccounts.password'),
    code: t('serviceAccounts.code'),
  }

  return (
    <Card id={CREATE_SECTION} className="min-w-0 scroll-mt-4">
      <CardHeader>
        <CardTitle>{t('serviceAccounts.new')}</CardTitle>
        <CardDescription>{t('serviceAccounts.newIntro')}</CardDescription>
      </CardHeader>
      <CardContent>
        <Form
          method="post"
          preventScrollReset
          {...getFormProps(form)}
          onInput={shown.onInput}
          className="flex flex-col gap-4"
        >
          <EnterSubmits intent={CREATE_INTENT} disabled={pending}>
            {t('serviceAccounts.create')}
          </EnterSubmits>
          <FormError message={formProblem(t, reply, labels)} />
          <NameFields nom={fields.nom} description={fields.description} shown={shown} labels={labels} />
          <StructureSelect
            id={fields.structure.id}
            name={fields.structure.name}
            label={labels.structure}
            choices={choices}
            defaultValue={String(fields.structure.initialValue ?? '')}
            placeholder={t('serviceAccounts.chooseStructure')}
            emptyMessage={t('serviceAccounts.noStructure')}
            required
            errors={shown.errors(fields.structure)}
            intent={SEARCH_INTENT}
          />
          <p className="-mt-2 text-xs text-muted-foreground">{t('serviceAccounts.structureHint')}</p>
          <div className="flex flex-col gap-1.5">
            <div className="flex items-start gap-2">
              <input
                {...getInputProps(fields.admin, { type: 'checkbox' })}
                id={fields.admin.id}
                aria-describedby={`${fields.admin.id}-hint`}
                onChange={(event) => setAdmin(event.currentTarget.checked)}
                className={CHECKBOX}
              />
              <Label htmlFor={fields.admin.id}>{t('serviceAccounts.adminLabel')}</Label>
            </div>
            <p id={`${fields.admin.id}-hint`} className="text-xs text-muted-foreground">
              {t('serviceAccounts.adminHint')}
            </p>
          </div>
          {hydrated && !admin ? null : (
            <ProofFields
              idPrefix="compte"
              withCode={withCode}
              required={hydrated}
              errors={{ motDePasse: shown.errors(fields.motDePasse), code: shown.errors(fields.code) }}
            />
          )}
          <ScopeFields
            idPrefix="compte"
            name={fields.scopes.name}
            checked={scopes}
            errors={shown.errors(fields.scopes)}
          />
          <KeysField field={fields.jwks} label={labels.jwks} hint={t('serviceAccounts.jwksHint')} shown={shown} />
          <div>
            <SubmitButton
              name="intent"
              value={CREATE_INTENT}
              icon={Plus}
              pending={pending}
              pendingLabel={t('serviceAccounts.creating')}
            >
              {t('serviceAccounts.create')}
            </SubmitButton>
          </div>
        </Form>
      </CardContent>
    </Card>
  )
}

/** An account's name and what it is for, side by side on a wide screen: on its creation and on its panel. */
export function NameFields({
  nom,
  description,
  shown,
  labels,
}: {
  nom: FieldMetadata<string>
  description: FieldMetadata<string | undefined>
  shown: FieldErrors
  labels: { nom: string; description: string }
}) {
  const { t } = useTranslation()
  return (
    <div className="grid gap-4 lg:grid-cols-2">
      <Field
        label={labels.nom}
        errors={shown.errors(nom)}
        inputProps={{ ...getInputProps(nom, { type: 'text' }), id: nom.id, autoComplete: 'off' }}
      />
      <Field
        label={labels.description}
        hint={t('serviceAccounts.descriptionHint')}
        errors={shown.errors(description)}
        inputProps={{ ...getInputProps(description, { type: 'text' }), id: description.id, autoComplete: 'off' }}
      />
    </div>
  )
}

/** An account's public keys (a JWK Set, JSON), in a box that keeps their text as pasted. */
export function KeysField({
  field,
  label,
  hint,
  shown,
}: {
  field: FieldMetadata<string | undefined>
  label: string
  hint: string
  shown: FieldErrors
}) {
  const errors = shown.errors(field)
  const messages = fieldMessages(field.id, hint, errors)
  return (
    <div className="flex flex-col gap-1.5">
      <Label htmlFor={field.id}>{label}</Label>
      <Textarea
        {...getTextareaProps(field)}
        id={field.id}
        rows={4}
        autoComplete="off"
        autoCapitalize="off"
        spellCheck={false}
        className="font-mono text-xs"
        aria-invalid={messages.invalid || undefined}
        aria-describedby={messages.describedBy}
      />
      <FieldMessages id={field.id} hint={hint} errors={errors} />
    </div>
  )
}

/** An account's scopes as checkboxes, each with what it reaches: at least one. */
export function ScopeFields({
  idPrefix,
  name,
  checked,
  errors,
}: {
  idPrefix: string
  name: string
  checked: string[]
  errors: string[] | undefined
}) {
  const { t } = useTranslation()
  const id = `${idPrefix}-scopes`
  const messages = fieldMessages(id, t('serviceAccounts.scopesHint'), errors)
  return (
    <fieldset
      id={id}
      aria-invalid={messages.invalid || undefined}
      aria-describedby={messages.describedBy}
      className="flex min-w-0 flex-col gap-2"
    >
      <legend className="mb-2 text-sm font-medium">{t('serviceAccounts.scopes')}</legend>
      <ul className="flex flex-col gap-2">
        {SERVICE_SCOPES.map((scope) => (
          <li key={scope} className="flex items-start gap-2">
            <input
              type="checkbox"
              id={`${idPrefix}-scope-${scope}`}
              name={name}
              value={scope}
              defaultChecked={checked.includes(scope)}
              aria-describedby={`${idPrefix}-scope-${scope}-hint`}
              className={CHECKBOX}
            />
            <div className="flex min-w-0 flex-col gap-0.5">
              <Label htmlFor={`${idPrefix}-scope-${scope}`}>
                {t(`serviceAccounts.scope.${scope}`)} <span className="font-mono text-xs">({scope})</span>
              </Label>
              <p id={`${idPrefix}-scope-${scope}-hint`} className="text-xs text-muted-foreground">
                {t(`serviceAccounts.scope.${scope}Hint`)}
              </p>
            </div>
          </li>
        ))}
      </ul>
      <FieldMessages id={id} hint={t('serviceAccounts.scopesHint')} errors={errors} />
    </fieldset>
  )
}

/**
 * The proof of the person at the keyboard that an administrator account's credentials ask for: the
 * password, or a current code of their authenticator app when it is on. `required` once it is known
 * to be needed (the box ticked, a page that is live); `hint` says when it is, if not always.
 */
export function ProofFields({
  idPrefix,
  withCode,
  required,
  errors,
  hint,
}: {
  idPrefix: string
  withCode: boolean
  required: boolean
  errors: { motDePasse?: string[] | undefined; code?: string[] | undefined }
  /** When it is asked for, if not always for an administrator account. */
  hint?: string
}) {
  const { t } = useTranslation()
  const hintId = `${idPrefix}-preuve-hint`
  return (
    <fieldset aria-describedby={hintId} className="flex min-w-0 flex-col gap-3 rounded-md border p-4">
      <legend className="px-1 text-sm font-medium">{t('serviceAccounts.proofLegend')}</legend>
      <p id={hintId} className="text-xs text-muted-foreground">
        {hint ?? t(withCode ? 'serviceAccounts.proofHint' : 'serviceAccounts.proofHintPassword')}
      </p>
      <Field
        label={t('serviceAccounts.password')}
        errors={errors.motDePasse}
        inputProps={{
          id: `${idPrefix}-motDePasse`,
          name: 'motDePasse',
          type: 'password',
          autoComplete: 'current-password',
          maxLength: 200,
          // Either proof will do: the password is required only when there is no code to give instead.
          required: required && !withCode,
        }}
      />
      {withCode ? (
        <Field
          label={t('serviceAccounts.code')}
          errors={errors.code}
          inputProps={{
            id: `${idPrefix}-code`,
            name: 'code',
            type: 'text',
            inputMode: 'numeric',
            autoComplete: 'one-time-code',
            maxLength: 40,
          }}
        />
      ) : null}
    </fieldset>
  )
}

export const asList = (value: unknown): string[] =>
  Array.isArray(value) ? value.map(String) : typeof value === 'string' ? [value] : []
