import { data, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/cloudflare'
import { useLoaderData } from '@remix-run/react'
import { ExternalLink } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { AppIcon } from '~/components/app-icon'
import { Button } from '~/components/ui/button'
import { Card } from '~/components/ui/card'
import { requireUser } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { i18nServer } from '~/lib/i18n.server'

export const handle: BreadcrumbHandle = { breadcrumb: 'nav.myAccess' }
export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: data?.title ?? 'Portail' }]

export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = await requireUser(request, context)
  const [{ accesApplication }, t] = await Promise.all([
    auth.expect(auth.api.rest.bd.acces.utilisateur[':userId'].$get({ param: { userId: auth.user.id } })),
    i18nServer.getFixedT(request),
  ])
  return data(
    { applications: accesApplication.map((a) => a.application), title: `${t('access.title')} · ${t('app.name')}` },
    { headers: await auth.headers() },
  )
}

/** As many columns as cards of 18rem fit: a card never gets too narrow for its button. */
const CARD_GRID = 'grid grid-cols-[repeat(auto-fill,minmax(min(100%,18rem),1fr))] gap-4'

export default function Access() {
  const { applications } = useLoaderData<typeof loader>()
  const { t } = useTranslation()
  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">{t('access.title')}</h1>
        <p className="text-muted-foreground">{t('access.intro')}</p>
      </div>
      {applications.length === 0 ? (
        <Card className="p-6 text-center" role="status">
          {t('access.empty')}
        </Card>
      ) : (
        <ul className={CARD_GRID}>
          {applications.map((application) => (
            <li key={application.id}>
              <Card className="flex h-full items-center gap-4 p-4">
                <span className="flex size-12 shrink-0 items-center justify-center rounded-lg bg-accent text-primary">
                  <AppIcon name={application.icone} className="size-6" />
                </span>
                <h2 className="min-w-0 flex-1 font-medium break-words">{application.libelle}</h2>
                {/* A native form opening a new tab: the same with and without JavaScript. */}
                <form method="post" action="/launch" target="_blank" rel="noopener">
                  <input type="hidden" name="idApplication" value={application.id} />
                  <Button type="submit" size="sm" aria-label={t('access.launchLabel', { name: application.libelle })}>
                    <ExternalLink aria-hidden />
                    {t('access.launch')}
                  </Button>
                </form>
              </Card>
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}
