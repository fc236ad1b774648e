import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { useLoaderData, useLocation } from '@remix-run/react'
import { ExternalLink } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { AppIcon } from '~/components/app-icon'
import { Button } from '~/components/ui/button'
import { Card } from '~/components/ui/card'
import { OtherApplications, RequestHistory } from '~/features/governance/request-access'
import { requestAccessAction } from '~/features/governance/request-access.server'
import { requireUser } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { i18nServer } from '~/lib/i18n.server'
import { pageTitle, titleMeta } from '~/lib/title'
import { todayIso } from '../../worker-api/contract/dates'

export const handle: BreadcrumbHandle = { breadcrumb: 'nav.myAccess' }
export const meta = titleMeta

/** How many of their latest requests the page shows the user. */
const LATEST_REQUESTS = 5

/**
 * What the user may launch now and what future posts will open, the demandable applications they may ask for (with
 * their requests waiting) and their latest requests, in one call and one round trip; when there is nothing to launch at all,
 * whether they hold any current or future post (read only then), to say why there is nothing.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = await requireUser(request, context)
  const [{ accesApplication, accesFuturs = [], demandables = [], demandes = [] }, t] = await Promise.all([
    auth.expect(
      auth.api.rest.bd.acces.utilisateur[':userId'].$get({
        param: { userId: auth.user.id },
        query: { futurs: 'true', demandes: LATEST_REQUESTS },
      }),
    ),
    i18nServer.getFixedT(request),
  ])
  const postless = accesApplication.length === 0 && accesFuturs.length === 0 && (await hasNoPost(auth))
  return data(
    {
      applications: accesApplication.map((a) => a.application),
      upcoming: accesFuturs,
      requestable: demandables,
      latest: demandes.filter((request) => request.etat !== 'EN_ATTENTE'),
      postless,
      // The organisation's day, as the server sees it: where a request's period starts by default.
      today: todayIso(),
      title: pageTitle(t, t('access.title')),
    },
    { headers: await auth.headers() },
  )
}

/** Asking for an application, or withdrawing a request (features/governance). */
export async function action({ request, context }: ActionFunctionArgs) {
  return requestAccessAction(request, await requireUser(request, context))
}

/** Whether the signed-in user holds no current or future post (their own profile says). */
async function hasNoPost(auth: Awaited<ReturnType<typeof requireUser>>) {
  const me = await auth.settle(auth.api.rest.bd.utilisateur[':id'].$get({ param: { id: auth.user.id }, query: {} }))
  return me.ok && me.data.postesEnCours.length === 0 && me.data.postesFutur.length === 0
}

/** As many columns as cards of 18rem fit: a card never gets too narrow for its button. */
const CARD_GRID = 'grid grid-cols-[repeat(auto-fill,minmax(min(100%,18rem),1fr))] gap-4'

export default function Access() {
  const { applications, upcoming, requestable, latest, postless, today } = useLoaderData<typeof loader>()
  const { search } = useLocation()
  const { t } = useTranslation()
  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">{t('access.title')}</h1>
        <p className="text-muted-foreground">{t('access.intro')}</p>
      </div>
      {applications.length === 0 ? (
        <Card className="flex flex-col gap-2 p-6 text-center" role="status">
          <p>{t('access.empty')}</p>
          {postless ? <p className="text-sm text-muted-foreground">{t('access.noPost')}</p> : null}
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
      {upcoming.length > 0 ? (
        // What future posts will open: shown where users look, greyed, with the day it opens.
        <section aria-labelledby="upcoming" className="flex flex-col gap-3">
          <div>
            <h2 id="upcoming" className="text-lg font-semibold">
              {t('access.upcomingTitle')}
            </h2>
            <p className="text-sm text-muted-foreground">{t('access.upcomingIntro')}</p>
          </div>
          <ul className={CARD_GRID}>
            {upcoming.map(({ application, dateDebut }) => (
              <li key={application.id}>
                <Card className="flex h-full items-center gap-4 border-dashed bg-muted/40 p-4 text-muted-foreground">
                  <span className="flex size-12 shrink-0 items-center justify-center rounded-lg bg-muted">
                    <AppIcon name={application.icone} className="size-6" />
                  </span>
                  <div className="min-w-0 flex-1">
                    <h3 className="font-medium break-words text-foreground/80">{application.libelle}</h3>
                    <p className="text-sm">{t('access.availableFrom', { date: dateDebut })}</p>
                  </div>
                </Card>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <OtherApplications requestable={requestable} search={search} today={today} />
      <RequestHistory requests={latest} />
    </div>
  )
}
