import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import type { getZodConstraint } from '@conform-to/zod/v4'
import { Form } from '@remix-run/react'
import { Plus } from 'lucide-react'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { CheckboxField } from '~/components/checkbox-field'
import { EnterSubmits } from '~/components/enter-submits'
import { Field, FieldMessages, fieldMessages } from '~/components/field'
import { FormError, formProblem } from '~/components/form-error'
import { SubmitButton } from '~/components/submit-button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '~/components/ui/card'
import { CHECKBOX } from '~/components/ui/checkbox'
import { Label } from '~/components/ui/label'
import { type FieldErrors, useFieldErrors, useFormReply, usePendingIntent } from '~/lib/form'
import { useHydrated } from '~/lib/hydrated'
import { WEBHOOK_EVENT_FAMILIES, WEBHOOK_EVENT_TYPES } from '../../../worker-api/contract/machines/webhooks'
import type { StructureChoices } from '../organisation/structure-choice'
import { StructureSelect } from '../organisation/structure-select'
import { asList } from './service-account-form'
import { CREATE_FORM, CREATE_INTENT, CREATE_SECTION, SEARCH_INTENT } from './webhook'
import type { WebhookForm as Values } from './webhook-fields.server'

type Fields = ReturnType<typeof useForm<Values>>[1]

/** The form's labels, by field: the fields and the form's message ("check Address, Events") say the same. */
export function useWebhookLabels() {
  const { t } = useTranslation()
  return {
    url: t('webhooks.url'),
    evenements: t('webhooks.events'),
    description: t('webhooks.description'),
    structure: t('webhooks.structure'),
    actif: t('webhooks.actif'),
  }
}

/**
 * The form that subscribes an address: where deliveries go, what for, the sub-tree whose events it hears, the events
 * (by family, a family whole or some of its events), and whether it delivers at once. Its secret is shown once, on the
 * page that answers the save.
 */
export function WebhookCreate({
  choices,
  constraint,
}: {
  choices: StructureChoices
  constraint: ReturnType<typeof getZodConstraint>
}) {
  const { t } = useTranslation()
  const reply = useFormReply(CREATE_INTENT)
  const pending = usePendingIntent(CREATE_INTENT)
  const [form, fields] = useForm<Values>({
    id: CREATE_FORM,
    lastResult: reply?.result,
    defaultValue: { actif: 'on' },
    constraint,
    shouldValidate: 'onSubmit',
  })
  const shown = useFieldErrors(reply)
  const labels = useWebhookLabels()
  return (
    <Card id={CREATE_SECTION} className="min-w-0 scroll-mt-4">
      <CardHeader>
        <CardTitle>{t('webhooks.new')}</CardTitle>
        <CardDescription>{t('webhooks.newIntro')}</CardDescription>
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
            {t('webhooks.create')}
          </EnterSubmits>
          <FormError message={formProblem(t, reply, labels)} />
          <WebhookFields formId={CREATE_FORM} fields={fields} shown={shown} labels={labels} />
          <StructureSelect
            id={fields.structure.id}
            name={fields.structure.name}
            label={labels.structure}
            choices={choices}
            defaultValue={String(fields.structure.initialValue ?? '')}
            placeholder={t('webhooks.chooseStructure')}
            emptyMessage={t('webhooks.noStructure')}
            required
            errors={shown.errors(fields.structure)}
            intent={SEARCH_INTENT}
          />
          <p className="-mt-2 text-xs text-muted-foreground">{t('webhooks.structureHint')}</p>
          <div>
            <SubmitButton
              name="intent"
              value={CREATE_INTENT}
              icon={Plus}
              pending={pending}
              pendingLabel={t('webhooks.creating')}
            >
              {t('webhooks.create')}
            </SubmitButton>
          </div>
        </Form>
      </CardContent>
    </Card>
  )
}

/** A subscription's fields, on its creation and in its edit panel: its address, description, events, on or off. */
export function WebhookFields({
  formId,
  fields,
  shown,
  labels,
}: {
  formId: string
  fields: Pick<Fields, 'url' | 'description' | 'evenements' | 'actif'>
  shown: FieldErrors
  labels: ReturnType<typeof useWebhookLabels>
}) {
  const { t } = useTranslation()
  return (
    <div className="flex min-w-0 flex-col gap-4">
      <div className="grid gap-4 lg:grid-cols-2">
        <Field
          label={labels.url}
          hint={t('webhooks.urlHint')}
          errors={shown.errors(fields.url)}
          inputProps={{
            ...getInputProps(fields.url, { type: 'url' }),
            id: fields.url.id,
            autoComplete: 'off',
            spellCheck: false,
            placeholder: 'https://rh.transports.example/portail/evenements',
          }}
        />
        <Field
          label={labels.description}
          hint={t('webhooks.descriptionHint')}
          errors={shown.errors(fields.description)}
          inputProps={{
            ...getInputProps(fields.description, { type: 'text' }),
            id: fields.description.id,
            autoComplete: 'off',
          }}
        />
      </div>
      <EventFields
        id={`${formId}-evenements`}
        name={fields.evenements.name}
        ticked={asList(fields.evenements.initialValue)}
        errors={shown.errors(fields.evenements)}
      />
      <CheckboxField field={fields.actif} label={labels.actif} hint={t('webhooks.actifHint')} />
    </div>
  )
}

/**
 * The events as checkboxes, by family: a family ticked whole (`poste.*`) hears its events present and future, and once
 * the page is live its own boxes show as included; without JavaScript they stay as they are, the save keeping the
 * family alone.
 */
function EventFields({
  id,
  name,
  ticked,
  errors,
}: {
  id: string
  name: string
  ticked: string[]
  errors: string[] | undefined
}) {
  const { t } = useTranslation()
  const hydrated = useHydrated()
  const [whole, setWhole] = useState(() => new Set(ticked.filter((event) => event.endsWith('.*'))))
  const messages = fieldMessages(id, t('webhooks.eventsHint'), errors)
  return (
    <fieldset
      id={id}
      aria-invalid={messages.invalid || undefined}
      aria-describedby={messages.describedBy}
      className="flex min-w-0 flex-col gap-2"
    >
      <legend className="mb-2 text-sm font-medium">{t('webhooks.events')}</legend>
      <div className="grid gap-3 md:grid-cols-2 xl:grid-cols-3">
        {WEBHOOK_EVENT_FAMILIES.map((family) => {
          const all = `${family}.*`
          const events = WEBHOOK_EVENT_TYPES.filter((event) => event.startsWith(`${family}.`))
          const allId = `${id}-${family}`
          return (
            <fieldset key={family} className="flex min-w-0 flex-col gap-2 rounded-md border p-3">
              <legend className="px-1 text-sm font-medium">{t(`webhooks.family.${family}`)}</legend>
              <div className="flex items-start gap-2">
                <input
                  type="checkbox"
                  id={allId}
                  name={name}
                  value={all}
                  defaultChecked={ticked.includes(all)}
                  onChange={(event) => {
                    const checked = event.currentTarget.checked
                    setWhole((current) => {
                      const next = new Set(current)
                      if (checked) next.add(all)
                      else next.delete(all)
                      return next
                    })
                  }}
                  className={CHECKBOX}
                />
                <Label htmlFor={allId} className="min-w-0 break-words">
                  {t('webhooks.allOf')} <span className="font-mono text-xs">({all})</span>
                </Label>
              </div>
              {events.length === 0 ? (
                <p className="pl-6 text-xs text-muted-foreground">{t('webhooks.familyToCome')}</p>
              ) : (
                <ul className="flex flex-col gap-1.5 pl-6">
                  {events.map((event) => {
                    const eventId = `${id}-${event.replace('.', '-')}`
                    return (
                      <li key={event} className="flex items-start gap-2">
                        <input
                          type="checkbox"
                          id={eventId}
                          name={name}
                          value={event}
                          defaultChecked={ticked.includes(event)}
                          // The family ticked whole hears it already: once the page is live, shown so (without
                          // JavaScript the save keeps the family alone).
                          disabled={hydrated && whole.has(all)}
                          className={CHECKBOX}
                        />
                        <Label htmlFor={eventId} className="min-w-0 break-words font-normal">
                          {t(`webhooks.event.${event}`)} <span className="font-mono text-xs">({event})</span>
                        </Label>
                      </li>
                    )
                  })}
                </ul>
              )}
            </fieldset>
          )
        })}
      </div>
      <FieldMessages id={id} hint={t('webhooks.eventsHint')} errors={errors} />
    </fieldset>
  )
}
