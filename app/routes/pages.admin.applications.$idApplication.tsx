import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { useActionData, useLoaderData } from '@remix-run/react'
import { useTranslation } from 'react-i18next'
import { applicationFormAction, applicationFormData } from '~/features/catalogue/application-form.server'
import { ApplicationScreen, formProps } from '~/features/catalogue/application-screen'
import { SecretScreen } from '~/features/catalogue/application-secret'
import { shownSecret } from '~/features/catalogue/client-secret'
import { requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { idParam } from '~/lib/id-param'
import { titleMeta } from '~/lib/title'

export const handle: BreadcrumbHandle = {
  breadcrumb: (data, t) => [
    { label: t('nav.applications'), to: '/pages/admin/applications' },
    {
      label:
        (data as { application?: { libelle: string } | null } | undefined)?.application?.libelle ??
        t('applications.editCrumb'),
    },
  ],
}
export const meta = titleMeta

/**
 * Edits an application of the catalogue: its name, address, icon, state, protocol (its OpenID Connect
 * client) and the functions that grant it; renews a confidential client's secret.
 */
export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const id = idParam(params.idApplication)
  const { auth, data: form } = await requireAdmin(request, context, {
    read: (auth) => applicationFormData(request, auth, id),
  })
  return data(form, { headers: await auth.headers() })
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const auth = await requireAdmin(request, context)
  return applicationFormAction(request, auth, idParam(params.idApplication))
}

export default function EditApplication() {
  const reloaded = useActionData<typeof action>()
  const loaded = useLoaderData<typeof loader>()
  const { t } = useTranslation()
  const shown = shownSecret(reloaded)
  if (shown) return <SecretScreen shown={shown} />
  const libelle = loaded.application?.libelle ?? ''
  return (
    <ApplicationScreen
      title={t('applications.editTitle', { libelle })}
      application={loaded.application}
      client={loaded.client}
      {...formProps(reloaded, loaded)}
    />
  )
}
