import type { LoaderFunctionArgs } from '@remix-run/cloudflare'
import { useTranslation } from 'react-i18next'
import { Card, CardContent } from '~/components/ui/card'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { i18nServer } from '~/lib/i18n.server'
import { pageTitle, titleMeta } from '~/lib/title'

export const handle: BreadcrumbHandle = { breadcrumb: 'common.documentation' }
export const meta = titleMeta

export async function loader({ request }: LoaderFunctionArgs) {
  const t = await i18nServer.getFixedT(request)
  return { title: pageTitle(t, t('docs.title')) }
}

export default function Documentation() {
  const { t } = useTranslation()
  return (
    <div className="flex max-w-3xl flex-col gap-6">
      <h1 className="text-2xl font-semibold tracking-tight">{t('docs.title')}</h1>
      <Card>
        <CardContent className="flex flex-col gap-3 pt-6">
          <p>{t('docs.intro')}</p>
          <p>{t('docs.launch')}</p>
          <p>{t('docs.access')}</p>
          <p>{t('docs.session')}</p>
          <p>
            {t('docs.api')}{' '}
            <a className="text-primary underline" href="/portail-backend/openapi.json">
              /portail-backend/openapi.json
            </a>
          </p>
        </CardContent>
      </Card>
    </div>
  )
}
