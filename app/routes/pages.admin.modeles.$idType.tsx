import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { useLoaderData } from '@remix-run/react'
import { useTranslation } from 'react-i18next'
import { TEMPLATE_INTENT, TemplateForm } from '~/features/catalogue/template-form'
import { requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import type { FormReply } from '~/lib/form'
import { formFailure, readForm } from '~/lib/form.server'
import { idParam } from '~/lib/id-param'
import { pageTitle, titleMeta } from '~/lib/title'
import { templateFormSchema } from '../../worker-api/contract/catalogue/catalogue'

export const handle: BreadcrumbHandle = {
  breadcrumb: (data, t) => [
    { label: t('nav.templates'), to: '/pages/admin/modeles' },
    { label: (data as { type?: { libelle: string } } | undefined)?.type?.libelle ?? t('templates.edit') },
  ],
}
export const meta = titleMeta

/**
 * Edits the template of a structure type (root administrators; the API answers anyone else 403):
 * the functions a new structure of the type starts with, in order, and what each opens. One call
 * reads the type's template and the catalogue to choose from.
 */
export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const id = idParam(params.idType)
  const {
    auth,
    data: templates,
    t,
  } = await requireAdmin(request, context, {
    read: (auth) => auth.expect(auth.api.rest.bd.typestructure.fonctions.$get()),
  })
  const type = templates.types.find((candidate) => candidate.id === id)
  if (!type) throw new Response('NOT_FOUND', { status: 404, headers: await auth.headers() })
  return data(
    {
      type: { id: type.id, libelle: type.libelle },
      fonctions: type.fonctions.map((fonction) => ({
        libelle: fonction.libelle,
        applications: fonction.applications.map((application) => String(application.id)),
      })),
      applications: templates.applications,
      constraint: getZodConstraint(templateFormSchema),
      title: pageTitle(t, t('templates.editTitle', { libelle: type.libelle })),
    },
    { headers: await auth.headers() },
  )
}

/**
 * Saves the template (PUT rest/bd/typestructure/{id}/fonctions) and goes back to the templates with a
 * notice. Without JavaScript, adding, moving and removing a function post the form too: it comes
 * back changed, nothing saved yet. An application deleted meanwhile is said on the function naming it.
 */
export async function action({ request, context, params }: ActionFunctionArgs) {
  const auth = await requireAdmin(request, context)
  const id = idParam(params.idType)
  const form = await readForm(request)
  const submission = parseTemplate(form)
  if (submission.status === undefined) {
    const headers = await auth.headers()
    return data<FormReply>({ intent: TEMPLATE_INTENT, result: submission.reply(), error: null }, { headers })
  }
  if (submission.status !== 'success') {
    return formFailure(TEMPLATE_INTENT, submission, { headers: await auth.headers() })
  }
  const json = submission.value.fonctions.map((fonction) => ({
    libelle: fonction.libelle,
    applications: [...new Set(fonction.applications)].map((application) => ({ id: application })),
  }))
  const result = await auth.settle(auth.api.rest.bd.typestructure[':id'].fonctions.$put({ param: { id }, json }))
  if (!result.ok) {
    // Not (or no longer) an administrator of the root: refused as the page itself is.
    if (result.status === 403) throw new Response('FORBIDDEN', { status: 403, headers: await auth.headers() })
    // The API names a function's field by its place in the list: `1.libelle` is the form's `fonctions[1].libelle`.
    const fieldNames = (field: string) => {
      const [index, name] = field.split('.')
      return index && name ? `fonctions[${index}].${name}` : 'fonctions'
    }
    return formFailure(TEMPLATE_INTENT, submission, { failure: result, fieldNames, headers: await auth.headers() })
  }
  return auth.redirectWithToast('/pages/admin/modeles', {
    type: 'success',
    key: 'templates.saved',
    values: { libelle: String(form.get('type') ?? '') },
  })
}

/** The form as conform reads it; a hand-made post whose list request makes no sense is a 400, not a 500. */
function parseTemplate(form: FormData) {
  try {
    return parseWithZod(form, { schema: templateFormSchema })
  } catch {
    throw new Response('Malformed form', { status: 400 })
  }
}

export default function EditTemplate() {
  const loaded = useLoaderData<typeof loader>()
  const { t } = useTranslation()
  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-col gap-2">
        <h1 className="text-2xl font-semibold tracking-tight [overflow-wrap:anywhere]">
          {t('templates.editTitle', { libelle: loaded.type.libelle })}
        </h1>
        <p className="max-w-prose text-sm text-muted-foreground">{t('templates.editIntro')}</p>
      </div>
      <TemplateForm {...loaded} />
    </div>
  )
}
