import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { useActionData, useLoaderData } from '@remix-run/react'
import { CreateUserScreen } from '~/features/organisation/user-create-form'
import { userFormAction, userFormData } from '~/features/organisation/user-form.server'
import { requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { titleMeta } from '~/lib/title'

export const handle: BreadcrumbHandle = {
  breadcrumb: (_data, t) => [
    { label: t('nav.manageUsers'), to: '/pages/admin/listeUtilisateurs' },
    { label: t('userCreate.title') },
  ],
}
export const meta = titleMeta

/** Spec §2 admin/user/new: create a user with their first post, in any structure of the admin's scope. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const { auth, data: form } = await requireAdmin(request, context, {
    read: (auth) => userFormData(request, auth, null),
  })
  return data(form, { headers: await auth.headers() })
}

export async function action({ request, context }: ActionFunctionArgs) {
  return userFormAction(request, await requireAdmin(request, context), null)
}

export default function CreateUser() {
  // Without JavaScript, "show functions" answers the form for the structure chosen.
  const reloaded = useActionData<typeof action>()
  const loaded = useLoaderData<typeof loader>()
  const { structures, shown, total, recherche, structureId, fonctions, values, constraint } =
    reloaded?.intent === 'fonctions' ? reloaded : loaded
  return (
    <CreateUserScreen
      choices={{ structures, shown, total, recherche }}
      structureId={structureId}
      fonctions={fonctions}
      values={values}
      constraint={constraint}
      cancelTo="/pages/admin/listeUtilisateurs"
    />
  )
}
