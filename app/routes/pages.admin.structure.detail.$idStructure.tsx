import { getZodConstraint } from '@conform-to/zod/v4'
import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { Link, useLoaderData } from '@remix-run/react'
import { Users } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { buttonVariants } from '~/components/ui/button'
import { Card, CardContent } from '~/components/ui/card'
import { fonctionAction, isFonctionIntent, structureFonctions } from '~/features/organisation/fonction-forms.server'
import { StructureFonctions } from '~/features/organisation/structure-fonctions'
import { StructureForm } from '~/features/organisation/structure-form'
import { placementChoices, saveStructure } from '~/features/organisation/structure-form.server'
import { requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { readForm } from '~/lib/form.server'
import { idParam } from '~/lib/id-param'
import { pageTitle, titleMeta } from '~/lib/title'
import { type Structure, structureFormSchema } from '../../worker-api/contract/organisation/structure'

export const handle: BreadcrumbHandle = {
  breadcrumb: (data, t) => [
    { label: t('nav.structures'), to: '/pages/admin/listeStructures' },
    { label: (data as { structure?: Structure } | undefined)?.structure?.nom ?? t('structures.editTitle') },
  ],
}
export const meta = titleMeta

/** Spec §2 admin/structure/detail/{idStructure}: edit a structure, with a way to its users; its functions (issue 25). */
export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const id = idParam(params.idStructure)
  const url = new URL(request.url)
  // One round trip for the structure, its functions, the types, the parents it may move under and the
  // admin check.
  const {
    auth,
    data: [structure, choices, fonctions],
    t,
  } = await requireAdmin(request, context, {
    read: (auth) => {
      const structure = auth.expect(auth.api.rest.bd.structure[':id'].$get({ param: { id } }))
      return Promise.all([structure, placementChoices(auth, url, { id, structure }), structureFonctions(auth, url, id)])
    },
  })
  return data(
    {
      structure,
      ...choices,
      ...fonctions,
      constraint: getZodConstraint(structureFormSchema),
      title: pageTitle(t, structure.nom, t('structures.editTitle')),
    },
    { headers: await auth.headers() },
  )
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const auth = await requireAdmin(request, context)
  const id = idParam(params.idStructure)
  const form = await readForm(request)
  if (isFonctionIntent(form.get('intent'))) return fonctionAction(request, form, auth, id)
  return saveStructure(form, auth, id)
}

export default function EditStructure() {
  const { structure, types, typeId, parents, nom, constraint, fonctions, racine, catalogue } =
    useLoaderData<typeof loader>()
  const { t } = useTranslation()
  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <h1 className="text-2xl font-semibold tracking-tight">{t('structures.editTitle')}</h1>
        <Link to={`/pages/admin/user/structure/${structure.id}`} className={buttonVariants({ variant: 'outline' })}>
          <Users aria-hidden />
          {t('structures.goUsers')}
        </Link>
      </div>
      <Card>
        <CardContent className="pt-6">
          <StructureForm
            key={structure.id}
            structure={structure}
            types={types}
            typeId={typeId}
            parents={parents}
            nom={nom}
            constraint={constraint}
          />
        </CardContent>
      </Card>
      <StructureFonctions structure={structure} fonctions={fonctions} racine={racine} catalogue={catalogue} />
    </div>
  )
}
