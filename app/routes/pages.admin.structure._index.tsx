import { getZodConstraint } from '@conform-to/zod/v4'
import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { useLoaderData } from '@remix-run/react'
import { useTranslation } from 'react-i18next'
import { Card, CardContent } from '~/components/ui/card'
import { StructureForm } from '~/features/organisation/structure-form'
import { placementChoices, saveStructure } from '~/features/organisation/structure-form.server'
import { requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { readForm } from '~/lib/form.server'
import { pageTitle, titleMeta } from '~/lib/title'
import { structureFormSchema } from '../../worker-api/contract/organisation/structure'

export const handle: BreadcrumbHandle = {
  breadcrumb: (_data, t) => [
    { label: t('nav.structures'), to: '/pages/admin/listeStructures' },
    { label: t('structures.createTitle') },
  ],
}
export const meta = titleMeta

/** Spec §2 admin/structure: create a structure. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const {
    auth,
    data: choices,
    t,
  } = await requireAdmin(request, context, { read: (auth) => placementChoices(auth, new URL(request.url), null) })
  return data(
    {
      ...choices,
      constraint: getZodConstraint(structureFormSchema),
      title: pageTitle(t, t('structures.createTitle')),
    },
    { headers: await auth.headers() },
  )
}

export async function action({ request, context }: ActionFunctionArgs) {
  const auth = await requireAdmin(request, context)
  return saveStructure(await readForm(request), auth, null)
}

export default function CreateStructure() {
  const { types, typeId, parents, nom, constraint } = useLoaderData<typeof loader>()
  const { t } = useTranslation()
  return (
    <div className="flex flex-col gap-6">
      <h1 className="text-2xl font-semibold tracking-tight">{t('structures.createTitle')}</h1>
      <Card>
        <CardContent className="pt-6">
          <StructureForm
            structure={null}
            types={types}
            typeId={typeId}
            parents={parents}
            nom={nom}
            constraint={constraint}
          />
        </CardContent>
      </Card>
    </div>
  )
}
