import { data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { Link, useLoaderData } from '@remix-run/react'
import { Pencil } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { buttonVariants } from '~/components/ui/button'
import { Card, CardContent, CardHeader, CardTitle } from '~/components/ui/card'
import { requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { pageTitle, titleMeta } from '~/lib/title'

export const handle: BreadcrumbHandle = { breadcrumb: 'nav.templates' }
export const meta = titleMeta

/**
 * The function templates (root administrators; the API answers anyone else 403): for each type a
 * structure may be given, the functions a new one starts with, in order, and what each opens.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const {
    auth,
    data: templates,
    t,
  } = await requireAdmin(request, context, {
    read: (auth) => auth.expect(auth.api.rest.bd.typestructure.fonctions.$get()),
  })
  return data({ types: templates.types, title: pageTitle(t, t('templates.title')) }, { headers: await auth.headers() })
}

export default function Templates() {
  const { types } = useLoaderData<typeof loader>()
  const { t } = useTranslation()
  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-col gap-2">
        <h1 className="text-2xl font-semibold tracking-tight">{t('templates.title')}</h1>
        <p className="max-w-prose text-sm text-muted-foreground">{t('templates.intro')}</p>
      </div>
      <div className="grid gap-4 lg:grid-cols-2">
        {types.map((type) => (
          <Card key={type.id} className="min-w-0">
            <CardHeader className="flex flex-row flex-wrap items-start justify-between gap-2">
              <CardTitle id={`type-${type.id}`} className="min-w-0 [overflow-wrap:anywhere]">
                {type.libelle}
              </CardTitle>
              <Link
                to={`/pages/admin/modeles/${type.id}`}
                className={buttonVariants({ variant: 'outline', size: 'sm' })}
                aria-label={t('templates.editLabel', { libelle: type.libelle })}
              >
                <Pencil aria-hidden />
                {t('templates.edit')}
              </Link>
            </CardHeader>
            <CardContent>
              {type.fonctions.length === 0 ? (
                <p className="text-sm text-muted-foreground">{t('templates.none')}</p>
              ) : (
                <ol aria-labelledby={`type-${type.id}`} className="flex flex-col gap-2">
                  {type.fonctions.map((fonction) => (
                    <li key={fonction.libelle} className="flex flex-col text-sm [overflow-wrap:anywhere]">
                      <span className="font-medium">{fonction.libelle}</span>
                      <span className="text-muted-foreground">
                        {fonction.applications.length === 0
                          ? t('fonctions.noApplication')
                          : `${t('fonctions.grants')} ${fonction.applications.map((a) => a.libelle).join(', ')}`}
                      </span>
                    </li>
                  ))}
                </ol>
              )}
            </CardContent>
          </Card>
        ))}
      </div>
    </div>
  )
}
