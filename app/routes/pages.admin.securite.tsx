import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react'
import { Save } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { Field } from '~/components/field'
import { FormError } from '~/components/form-error'
import { SubmitButton } from '~/components/submit-button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '~/components/ui/card'
import { apiMessage, fieldErrors, type Message } from '~/lib/api-errors'
import { requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { usePendingIntent } from '~/lib/form'
import { readForm } from '~/lib/form.server'
import { pageTitle, titleMeta } from '~/lib/title'

export const handle: BreadcrumbHandle = { breadcrumb: 'nav.securitySettings' }
export const meta = titleMeta

/** The organisation's security settings (root administrators; the API answers anyone else 403). */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const {
    auth,
    data: settings,
    t,
  } = await requireAdmin(request, context, { read: (auth) => auth.expect(auth.api.rest.bd.parametres.securite.$get()) })
  return data({ settings, title: pageTitle(t, t('mfa.settings.title')) }, { headers: await auth.headers() })
}

export async function action({ request, context }: ActionFunctionArgs) {
  const auth = await requireAdmin(request, context)
  const form = await readForm(request)
  const intent = form.get('intent') === 'requests' ? 'requests' : 'settings'
  // Each form sends its own setting; the other stays as it is.
  const json =
    intent === 'requests'
      ? { demandeDureeMaxJours: Number(String(form.get('demandeDureeMaxJours') ?? '').trim() || Number.NaN) }
      : { mfaRequisAdministrateurs: form.get('mfaRequisAdministrateurs') === 'on' }
  if (intent === 'requests' && !Number.isInteger(json.demandeDureeMaxJours)) {
    const error: Message = { key: 'validation.requestDuration' }
    return data({ intent, error, factorMissing: false }, { status: 400, headers: await auth.headers() })
  }
  const result = await auth.settle(auth.api.rest.bd.parametres.securite.$put({ json }))
  if (result.ok) return auth.redirectWithToast('/pages/admin/securite', { type: 'success', key: 'mfa.settings.saved' })
  const field = fieldErrors(result)?.demandeDureeMaxJours?.[0]
  const error: Message = field ? { key: field } : apiMessage(result, 'errors.updateFailed')
  return data(
    { intent, error, factorMissing: result.error.businessCode === 'MFA_FACTOR_REQUIRED' },
    {
      status: 400,
      headers: await auth.headers(),
    },
  )
}

export default function SecuritySettings() {
  const { settings } = useLoaderData<typeof loader>()
  const reply = useActionData<typeof action>()
  const pending = usePendingIntent('settings')
  const pendingRequests = usePendingIntent('requests')
  const { t } = useTranslation()
  const failed = (intent: 'settings' | 'requests') =>
    reply?.intent === intent ? t(reply.error.key, reply.error.values) : null
  return (
    <div className="flex max-w-3xl flex-col gap-6">
      <div className="flex flex-col gap-2">
        <h1 className="text-2xl font-semibold tracking-tight">{t('mfa.settings.title')}</h1>
        <p className="max-w-prose text-sm text-muted-foreground">{t('mfa.settings.intro')}</p>
      </div>
      <Card>
        <CardHeader>
          <CardTitle>{t('mfa.title')}</CardTitle>
          <CardDescription>{t('mfa.settings.requiredHint')}</CardDescription>
        </CardHeader>
        <CardContent>
          <Form method="post" className="flex flex-col gap-4">
            <input type="hidden" name="intent" value="settings" />
            <FormError message={failed('settings')} />
            {reply?.factorMissing ? (
              <p className="text-sm">
                <Link className="text-primary underline underline-offset-4" to="/pages/user/securite">
                  {t('nav.security')}
                </Link>
              </p>
            ) : null}
            <div className="flex items-start gap-3">
              <input
                id="mfa-required"
                name="mfaRequisAdministrateurs"
                type="checkbox"
                defaultChecked={settings.mfaRequisAdministrateurs}
                className="mt-1 size-4 accent-primary"
              />
              <label htmlFor="mfa-required" className="font-medium">
                {t('mfa.settings.required')}
              </label>
            </div>
            <div>
              <SubmitButton icon={Save} pending={pending} pendingLabel={t('mfa.settings.saving')}>
                {t('mfa.settings.save')}
              </SubmitButton>
            </div>
          </Form>
        </CardContent>
      </Card>
      <Card>
        <CardHeader>
          <CardTitle>{t('requests.settings.title')}</CardTitle>
          <CardDescription>{t('requests.settings.hint')}</CardDescription>
        </CardHeader>
        <CardContent>
          <Form method="post" className="flex flex-col gap-4">
            <input type="hidden" name="intent" value="requests" />
            <Field
              label={t('requests.settings.duration')}
              errors={failed('requests') ? [failed('requests') as string] : undefined}
              inputProps={{
                id: 'request-duration',
                name: 'demandeDureeMaxJours',
                type: 'number',
                inputMode: 'numeric',
                min: 1,
                max: 3660,
                required: true,
                defaultValue: settings.demandeDureeMaxJours,
                className: 'max-w-40',
              }}
            />
            <div>
              <SubmitButton icon={Save} pending={pendingRequests} pendingLabel={t('mfa.settings.saving')}>
                {t('requests.settings.save')}
              </SubmitButton>
            </div>
          </Form>
        </CardContent>
      </Card>
    </div>
  )
}
