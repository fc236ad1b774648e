import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { useActionData, useLoaderData } from '@remix-run/react'
import { useTranslation } from 'react-i18next'
import { applicationFormAction, applicationFormData } from '~/features/catalogue/application-form.server'
import { ApplicationScreen, formProps } from '~/features/catalogue/application-screen'
import { SecretScreen } from '~/features/catalogue/application-secret'
import { shownSecret } from '~/features/catalogue/client-secret'
import { requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { titleMeta } from '~/lib/title'

export const handle: BreadcrumbHandle = {
  breadcrumb: (_data, t) => [
    { label: t('nav.applications'), to: '/pages/admin/applications' },
    { label: t('applications.newTitle') },
  ],
}
export const meta = titleMeta

/** Registers an application in the catalogue (root administrators). */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const { auth, data: form } = await requireAdmin(request, context, {
    read: (auth) => applicationFormData(request, auth, null),
  })
  return data(form, { headers: await auth.headers() })
}

export async function action({ request, context }: ActionFunctionArgs) {
  return applicationFormAction(request, await requireAdmin(request, context), null)
}

export default function NewApplication() {
  // Without JavaScript, "show its functions" answers the form for the structure chosen; a save that
  // made a client's secret answers it, shown this once.
  const reloaded = useActionData<typeof action>()
  const loaded = useLoaderData<typeof loader>()
  const { t } = useTranslation()
  const shown = shownSecret(reloaded)
  if (shown) return <SecretScreen shown={shown} />
  return (
    <ApplicationScreen
      title={t('applications.newTitle')}
      application={null}
      client={null}
      {...formProps(reloaded, loaded)}
    />
  )
}
