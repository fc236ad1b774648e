import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { useActionData, useLoaderData } from '@remix-run/react'
import { CreateUserScreen } from '~/features/organisation/user-create-form'
import { userFormAction, userFormData } from '~/features/organisation/user-form.server'
import { requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { idParam } from '~/lib/id-param'
import { titleMeta } from '~/lib/title'

export const handle: BreadcrumbHandle = {
  breadcrumb: (data, t) => {
    const preset = (data as { preset?: { id: number; nom: string } | null } | undefined)?.preset
    return [
      { label: t('nav.structures'), to: '/pages/admin/listeStructures' },
      ...(preset
        ? [
            { label: preset.nom, to: `/pages/admin/structure/detail/${preset.id}` },
            { label: t('structureUsers.crumb'), to: `/pages/admin/user/structure/${preset.id}` },
          ]
        : []),
      { label: t('userCreate.title') },
    ]
  },
}
export const meta = titleMeta

/** Spec §2 admin/user/{idStructure}/new: create a user, the structure chosen beforehand (another may be picked). */
export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const preset = idParam(params.idStructure)
  const { auth, data: form } = await requireAdmin(request, context, {
    read: (auth) => userFormData(request, auth, preset),
  })
  return data(form, { headers: await auth.headers() })
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const auth = await requireAdmin(request, context)
  return userFormAction(request, auth, idParam(params.idStructure))
}

export default function CreateUserInStructure() {
  // Without JavaScript, "show functions" answers the form for the structure chosen.
  const reloaded = useActionData<typeof action>()
  const loaded = useLoaderData<typeof loader>()
  const { structures, shown, total, recherche, structureId, fonctions, values, constraint, preset } =
    reloaded?.intent === 'fonctions' ? reloaded : loaded
  return (
    <CreateUserScreen
      choices={{ structures, shown, total, recherche }}
      structureId={structureId}
      fonctions={fonctions}
      values={values}
      constraint={constraint}
      cancelTo={preset ? `/pages/admin/user/structure/${preset.id}` : '/pages/admin/listeUtilisateurs'}
    />
  )
}
