import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { Form, Link, useLoaderData } from '@remix-run/react'
import { Save } from 'lucide-react'
import type { FormEvent, ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { z } from 'zod'
import { Field } from '~/components/field'
import { FormError } from '~/components/form-error'
import { SubmitButton } from '~/components/submit-button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '~/components/ui/card'
import { requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { useFieldErrors, useFormReply, usePendingIntent } from '~/lib/form'
import { formFailure, readForm } from '~/lib/form.server'
import { pageTitle, titleMeta } from '~/lib/title'
import { HISTORY_MONTHS, REQUEST_DAYS } from '../../worker-api/contract/sign-in/mfa'

export const handle: BreadcrumbHandle = { breadcrumb: 'nav.securitySettings' }
export const meta = titleMeta

const requestDays = z
  .number('validation.requestDuration')
  .int('validation.requestDuration')
  .min(REQUEST_DAYS.min, 'validation.requestDuration')
  .max(REQUEST_DAYS.max, 'validation.requestDuration')

const historyMonths = z
  .number('validation.historyMonths')
  .int('validation.historyMonths')
  .min(HISTORY_MONTHS.min, 'validation.historyMonths')
  .max(HISTORY_MONTHS.max, 'validation.historyMonths')

/** The page's forms: each sends its own setting, and the others stay as they are. */
const securityForms = z.discriminatedUnion('intent', [
  z.object({ intent: z.literal('settings'), mfaRequisAdministrateurs: z.boolean().default(false) }),
  z.object({ intent: z.literal('requests'), demandeDureeMaxJours: requestDays }),
  z.object({ intent: z.literal('history'), historiqueMoisEnLigne: historyMonths }),
])
type Intent = z.infer<typeof securityForms>['intent']

/** The organisation's security settings (root administrators; the API answers anyone else 403). */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const {
    auth,
    data: settings,
    t,
  } = await requireAdmin(request, context, { read: (auth) => auth.expect(auth.api.rest.bd.parametres.securite.$get()) })
  return data({ settings, title: pageTitle(t, t('mfa.settings.title')) }, { headers: await auth.headers() })
}

/** Saves the setting of the form sent (PUT rest/bd/parametres/securite) and comes back with a notice; a refusal stays on its form. */
export async function action({ request, context }: ActionFunctionArgs) {
  const auth = await requireAdmin(request, context)
  const submission = parseWithZod(await readForm(request), { schema: securityForms })
  // The form that answers: a post that names neither (a hand-made one) is answered on the first.
  const sent = submission.payload.intent
  const intent: Intent = sent === 'requests' || sent === 'history' ? sent : 'settings'
  if (submission.status !== 'success') return formFailure(intent, submission, { headers: await auth.headers() })
  const { intent: _, ...json } = submission.value
  const result = await auth.settle(auth.api.rest.bd.parametres.securite.$put({ json }))
  if (result.ok) return auth.redirectWithToast('/pages/admin/securite', { type: 'success', key: 'mfa.settings.saved' })
  return formFailure(intent, submission, {
    failure: result,
    fallback: 'errors.updateFailed',
    headers: await auth.headers(),
  })
}

export default function SecuritySettings() {
  const { t } = useTranslation()
  return (
    <div className="flex max-w-3xl flex-col gap-6">
      <div className="flex flex-col gap-2">
        <h1 className="text-2xl font-semibold tracking-tight">{t('mfa.settings.title')}</h1>
        <p className="max-w-prose text-sm text-muted-foreground">{t('mfa.settings.intro')}</p>
      </div>
      <SecondFactorForm />
      <NumberSettingForm
        intent="requests"
        name="demandeDureeMaxJours"
        bounds={REQUEST_DAYS}
        texts="requests.settings"
        label="requests.settings.duration"
        inputId="request-duration"
      />
      <NumberSettingForm
        intent="history"
        name="historiqueMoisEnLigne"
        bounds={HISTORY_MONTHS}
        texts="logs.settings"
        label="logs.settings.months"
        inputId="history-months"
      />
    </div>
  )
}

/** Whether administrators must have a second factor; refused to one who has none of their own (a link to get one). */
function SecondFactorForm() {
  const { settings } = useLoaderData<typeof loader>()
  const { t } = useTranslation()
  const reply = useFormReply<Intent>('settings')
  const [form, fields] = useForm({
    id: 'mfa-settings',
    lastResult: reply?.result,
    defaultValue: { mfaRequisAdministrateurs: settings.mfaRequisAdministrateurs ? 'on' : '' },
  })
  const { key, ...checkbox } = getInputProps(fields.mfaRequisAdministrateurs, { type: 'checkbox' })
  return (
    <SettingCard
      intent="settings"
      formProps={getFormProps(form)}
      title={t('mfa.title')}
      description={t('mfa.settings.requiredHint')}
      save={t('mfa.settings.save')}
    >
      {reply?.error?.key === 'errors.MFA_FACTOR_REQUIRED' ? (
        <p className="text-sm">
          <Link className="text-primary underline underline-offset-4" to="/pages/user/securite">
            {t('nav.security')}
          </Link>
        </p>
      ) : null}
      <div className="flex items-start gap-3">
        <input key={key} {...checkbox} id="mfa-required" className="mt-1 size-4 accent-primary" />
        <label htmlFor="mfa-required" className="font-medium">
          {t('mfa.settings.required')}
        </label>
      </div>
    </SettingCard>
  )
}

/**
 * A setting that is a number of days or months (the longest period an access request may ask for, the months of history
 * the database keeps before a month is archived); what is wrong with it said on the field.
 */
function NumberSettingForm({
  intent,
  name,
  bounds,
  texts,
  label,
  inputId,
}: {
  intent: 'requests' | 'history'
  name: 'demandeDureeMaxJours' | 'historiqueMoisEnLigne'
  bounds: { min: number; max: number }
  texts: 'requests.settings' | 'logs.settings'
  label: 'requests.settings.duration' | 'logs.settings.months'
  inputId: string
}) {
  const { settings } = useLoaderData<typeof loader>()
  const { t } = useTranslation()
  const reply = useFormReply<Intent>(intent)
  const [form, fields] = useForm<Record<string, string>>({
    id: `${intent}-settings`,
    lastResult: reply?.result,
    defaultValue: { [name]: String(settings[name]) },
  })
  const shown = useFieldErrors(reply)
  const field = fields[name]
  return (
    <SettingCard
      intent={intent}
      formProps={getFormProps(form)}
      onInput={shown.onInput}
      title={t(`${texts}.title`)}
      description={t(`${texts}.hint`)}
      save={t(`${texts}.save`)}
    >
      <Field
        label={t(label)}
        errors={field ? shown.errors(field) : undefined}
        inputProps={{
          id: inputId,
          name,
          type: 'number',
          inputMode: 'numeric',
          min: bounds.min,
          max: bounds.max,
          required: true,
          defaultValue: field?.initialValue ?? '',
          className: 'max-w-40',
        }}
      />
    </SettingCard>
  )
}

/** One setting's card: its form (which names itself by `intent`), the form's own message at its top, its button. */
function SettingCard({
  intent,
  formProps,
  onInput,
  title,
  description,
  save,
  children,
}: {
  intent: Intent
  formProps: ReturnType<typeof getFormProps>
  onInput?: (event: FormEvent<HTMLFormElement>) => void
  title: string
  description: string
  save: string
  children: ReactNode
}) {
  const { t } = useTranslation()
  const reply = useFormReply<Intent>(intent)
  const pending = usePendingIntent(intent)
  return (
    <Card>
      <CardHeader>
        <CardTitle>{title}</CardTitle>
        <CardDescription>{description}</CardDescription>
      </CardHeader>
      <CardContent>
        <Form method="post" {...formProps} onInput={onInput} className="flex flex-col gap-4">
          <input type="hidden" name="intent" value={intent} />
          <FormError message={reply?.error ? t(reply.error.key, reply.error.values) : null} />
          {children}
          <div>
            <SubmitButton icon={Save} pending={pending} pendingLabel={t('mfa.settings.saving')}>
              {save}
            </SubmitButton>
          </div>
        </Form>
      </CardContent>
    </Card>
  )
}
