import { getCollectionProps, getFormProps, getInputProps, useForm } from '@conform-to/react'
import type { getZodConstraint } from '@conform-to/zod/v4'
import { Form, Link } from '@remix-run/react'
import { ArrowDown, ArrowUp, Plus, Save, Trash2 } from 'lucide-react'
import { useEffect, useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { EnterSubmits } from '~/components/enter-submits'
import { Field, FieldMessages, fieldMessages } from '~/components/field'
import { FormError, formProblem } from '~/components/form-error'
import { SubmitButton } from '~/components/submit-button'
import { Button, buttonVariants } from '~/components/ui/button'
import { CHECKBOX } from '~/components/ui/checkbox'
import { Label } from '~/components/ui/label'
import { useFieldErrors, useFormReply, usePendingIntent } from '~/lib/form'
import { TEMPLATE_FONCTIONS_MAX, type TemplateForm as Values } from '../../../worker-api/contract/catalogue/catalogue'

export const TEMPLATE_INTENT = 'modele'

/**
 * The template of a structure type: its functions in order, each a name and the applications it
 * opens (every application of the catalogue, a switched-off one said so), moved up or down, removed,
 * added; then saved as a whole. The list's buttons are conform's: with JavaScript they change the form
 * in place, without it they post it and it comes back changed (nothing is saved until "Enregistrer").
 */
export function TemplateForm({
  type,
  fonctions,
  applications,
  constraint,
}: {
  type: { id: number; libelle: string }
  fonctions: { libelle: string; applications: string[] }[]
  applications: { id: number; libelle: string; actif: boolean }[]
  constraint: ReturnType<typeof getZodConstraint>
}) {
  const { t } = useTranslation()
  const reply = useFormReply(TEMPLATE_INTENT)
  const pending = usePendingIntent(TEMPLATE_INTENT)
  const [form, fields] = useForm<Values>({
    id: 'modele',
    lastResult: reply?.result,
    defaultValue: { fonctions },
    constraint,
    shouldValidate: 'onSubmit',
  })
  const shown = useFieldErrors(reply)
  const list = fields.fonctions.getFieldList()
  const addRef = useRef<HTMLButtonElement>(null)
  const focusAfter = useListFocus(list.length, addRef)
  const options = applications.map((application) => String(application.id))
  const named = new Map(applications.map((application) => [String(application.id), application]))
  const listErrors = shown.errors(fields.fonctions)

  const labels: Record<string, string> = { fonctions: t('templates.fonctions') }
  list.forEach((item, index) => {
    const { libelle, applications: granted } = item.getFieldset()
    labels[libelle.name] = t('templates.fonctionN', { n: index + 1 })
    labels[granted.name] = t('templates.fonctionN', { n: index + 1 })
  })

  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-6" onInput={shown.onInput}>
      <EnterSubmits intent={TEMPLATE_INTENT} disabled={pending}>
        {t('templates.save')}
      </EnterSubmits>
      <input type="hidden" name="type" value={type.libelle} />
      <FormError message={formProblem(t, reply, labels)} />
      {list.length === 0 ? <p className="text-sm text-muted-foreground">{t('templates.noneYet')}</p> : null}
      <ol className="flex flex-col gap-4">
        {list.map((item, index) => {
          const { libelle, applications: granted } = item.getFieldset()
          const grantedErrors = shown.errors(granted)
          const grantedMessages = fieldMessages(granted.id, undefined, grantedErrors)
          const n = index + 1
          return (
            <li key={item.key}>
              <fieldset className="flex min-w-0 flex-col gap-4 rounded-lg border p-4">
                <legend className="px-1 text-sm font-semibold">{t('templates.fonctionN', { n })}</legend>
                <Field
                  label={t('templates.libelle')}
                  hint={index === 0 ? t('templates.firstHint') : undefined}
                  errors={shown.errors(libelle)}
                  inputProps={{
                    ...getInputProps(libelle, { type: 'text' }),
                    id: libelle.id,
                    autoComplete: 'off',
                    autoFocus: focusAfter.noScript(reply?.result.intent, index, list.length),
                  }}
                />
                <fieldset
                  id={granted.id}
                  aria-invalid={grantedMessages.invalid || undefined}
                  aria-describedby={grantedMessages.describedBy}
                  className="flex min-w-0 flex-col gap-2"
                >
                  <legend className="mb-2 text-sm font-medium">{t('templates.opens')}</legend>
                  {applications.length === 0 ? (
                    <p className="text-sm text-muted-foreground">{t('templates.noApplication')}</p>
                  ) : (
                    <ul className="grid gap-2 sm:grid-cols-2">
                      {getCollectionProps(granted, { type: 'checkbox', options }).map(({ key, ...props }) => {
                        const application = named.get(props.value)
                        return (
                          <li key={key} className="flex min-w-0 items-start gap-2">
                            <input {...props} className={CHECKBOX} />
                            <Label htmlFor={props.id} className="min-w-0 font-normal [overflow-wrap:anywhere]">
                              {application?.actif === false
                                ? t('fonctions.applicationOff', { libelle: application.libelle })
                                : application?.libelle}
                            </Label>
                          </li>
                        )
                      })}
                    </ul>
                  )}
                  <FieldMessages id={granted.id} errors={grantedErrors} />
                </fieldset>
                <div className="flex flex-wrap gap-2">
                  {[
                    { to: index - 1, Icon: ArrowUp, label: t('templates.up'), name: t('templates.upLabel', { n }) },
                    {
                      to: index + 1,
                      Icon: ArrowDown,
                      label: t('templates.down'),
                      name: t('templates.downLabel', { n }),
                    },
                  ].map(({ to, Icon, label, name }) => (
                    <Button
                      key={label}
                      variant="outline"
                      size="sm"
                      {...form.reorder.getButtonProps({ name: fields.fonctions.name, from: index, to })}
                      disabled={to < 0 || to >= list.length}
                      aria-label={name}
                      formNoValidate
                    >
                      <Icon aria-hidden />
                      {label}
                    </Button>
                  ))}
                  <Button
                    variant="outline"
                    size="sm"
                    {...form.remove.getButtonProps({ name: fields.fonctions.name, index })}
                    aria-label={t('templates.removeLabel', { n })}
                    formNoValidate
                  >
                    <Trash2 aria-hidden />
                    {t('templates.remove')}
                  </Button>
                </div>
              </fieldset>
            </li>
          )
        })}
      </ol>
      <FieldMessages id={fields.fonctions.id} errors={listErrors} />
      <div>
        <Button
          ref={addRef}
          variant="outline"
          {...form.insert.getButtonProps({
            name: fields.fonctions.name,
            defaultValue: { libelle: '', applications: [] },
          })}
          disabled={list.length >= TEMPLATE_FONCTIONS_MAX}
          formNoValidate
        >
          <Plus aria-hidden />
          {t('templates.add')}
        </Button>
      </div>
      <div className="flex flex-wrap gap-2">
        <SubmitButton
          name="intent"
          value={TEMPLATE_INTENT}
          icon={Save}
          pending={pending}
          pendingLabel={t('templates.saving')}
        >
          {t('templates.save')}
        </SubmitButton>
        <Link to="/pages/admin/modeles" className={buttonVariants({ variant: 'outline' })}>
          {t('templates.cancel')}
        </Link>
      </div>
    </Form>
  )
}

/**
 * Where focus goes when the list changes: a function added, its name; one removed, the add button
 * (its own buttons are gone). With JavaScript the list changes in place; without, the page comes back
 * from the post and the new function's name takes the focus (`noScript`).
 */
function useListFocus(length: number, addRef: React.RefObject<HTMLButtonElement>) {
  const previous = useRef(length)
  useEffect(() => {
    if (length > previous.current) {
      const names = document.querySelectorAll<HTMLInputElement>('#modele input[name$=".libelle"]')
      names[names.length - 1]?.focus()
    } else if (length < previous.current) addRef.current?.focus()
    previous.current = length
  }, [length, addRef])
  return {
    noScript: (intent: { type: string } | undefined, index: number, count: number) =>
      intent?.type === 'insert' && index === count - 1 ? true : undefined,
  }
}
