import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { Link, useLoaderData } from '@remix-run/react'
import { type ReactNode, useId } from 'react'
import { useTranslation } from 'react-i18next'
import { BarList, ChartTable, ColumnChart } from '~/components/charts'
import { DataTable, type DataTableColumn } from '~/components/data-table'
import { EndingPosts, EXTEND } from '~/features/organisation/ending-posts'
import { apiMessage, fieldErrors } from '~/lib/api-errors'
import { requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { displayDateTime } from '~/lib/dates'
import { focusFragment, formReply, readForm, submitted } from '~/lib/form.server'
import { formatBytes, formatCount } from '~/lib/i18n'
import { readPage } from '~/lib/pagination'
import { pageTitle, titleMeta } from '~/lib/title'
import { pathWithout } from '~/lib/url'
import {
  ENDING_POST_DAYS,
  EXPIRING_LINK_HOURS,
  HOME_DAYS,
  HOME_USER_LISTS,
  type Home,
} from '../../worker-api/contract/organisation/home'

export const handle: BreadcrumbHandle = { breadcrumb: 'nav.adminHome' }
export const meta = titleMeta

/**
 * The administration home (/pages/admin): what needs the administrator in their scope — users with
 * and without a post, inactive ones, registrations waiting and links about to expire, posts about to
 * end (each extended here), sign-ins and launches of the last month, the service accounts that called
 * today — from one API call; and the access requests waiting for them, counted alongside.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const page = readPage(new URL(request.url).searchParams.get('page'))
  const {
    auth,
    data: [home, requests],
    t,
  } = await requireAdmin(request, context, {
    read: (auth) =>
      Promise.all([
        auth.expect(auth.api.rest.bd.accueil.$get({ query: { page } })),
        // The access requests waiting for the administrator: their count, in the same round trip.
        auth.settle(auth.api.rest.bd.demande.aTraiter.$get({ query: { page: 1, taille: 1 } })),
      ]),
  })
  const waitingRequests = requests.ok ? (requests.total ?? 0) : null
  return data({ home, page, waitingRequests, title: pageTitle(t, t('home.title')) }, { headers: await auth.headers() })
}

/** "Prolonger": the post's new end (PUT rest/bd/poste, its start kept); a refusal said on the field. */
export async function action({ request, context }: ActionFunctionArgs) {
  const auth = await requireAdmin(request, context)
  const form = await readForm(request)
  const submission = submitted(form)
  const id = Number(form.get('id'))
  const dateDebut = String(form.get('dateDebut') ?? '')
  const dateFin = String(form.get('dateFin') ?? '').trim()
  const nom = String(form.get('nom') ?? '')
  if (form.get('intent') !== 'prolonger' || !Number.isSafeInteger(id) || id <= 0) {
    return formReply('', submission.reply(), { key: 'errors.technical' }, await auth.headers())
  }
  const back = pathWithout(request.url, [EXTEND])
  const result = await auth.settle(auth.api.rest.bd.poste.$put({ json: { id, dateDebut, dateFin } }))
  if (result.ok) {
    return auth.redirectWithToast(`${back}${focusFragment(form)}`, {
      type: 'success',
      key: 'home.extended',
      values: { nom, dateFin },
    })
  }
  // Gone meanwhile, or no longer the caller's to change: the list is read again.
  if (result.status === 404 || result.status === 403) {
    return auth.redirectWithToast(back, { type: 'error', key: 'home.extendGone', values: { nom } })
  }
  // Said on the new end, whichever of the post's dates the API refused, or the refusal itself.
  const fields = fieldErrors(result)
  const said = fields ? [...(fields.dateFin ?? []), ...(fields.dateDebut ?? [])] : []
  const error = apiMessage(result, 'errors.updateFailed')
  const errors = said.length > 0 ? said : [error.key]
  return formReply('prolonger', submission.reply({ fieldErrors: { dateFin: errors } }), error, await auth.headers())
}

/** A figure that links to the list it counts. */
function Figure({ to, value, label, hint }: { to: string; value: number; label: string; hint?: string }) {
  return (
    <li>
      <Link
        to={to}
        className="flex h-full flex-col gap-1 rounded-lg border bg-card p-4 shadow-sm transition-colors hover:bg-accent focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
      >
        <span className="text-3xl font-semibold tabular-nums">{value}</span>
        <span className="font-medium">{label}</span>
        {hint ? <span className="text-sm text-muted-foreground">{hint}</span> : null}
      </Link>
    </li>
  )
}

function Section({ title, children, action }: { title: string; children: ReactNode; action?: ReactNode }) {
  const id = useId()
  return (
    <section aria-labelledby={id} className="flex flex-col gap-3">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 id={id} className="text-lg font-semibold">
          {title}
        </h2>
        {action}
      </div>
      {children}
    </section>
  )
}

const usersUrl = (filters: Record<string, string>) =>
  `/pages/admin/listeUtilisateurs?${new URLSearchParams(filters).toString()}`

export default function AdminHome() {
  const { home, page, waitingRequests } = useLoaderData<typeof loader>()
  const { t } = useTranslation()
  const { utilisateurs, inscriptions, postesFinissant, connexions, lancements, comptesService } = home
  const first = connexions[0]?.jour ?? ''
  const last = connexions[connexions.length - 1]?.jour ?? ''
  const signIns = connexions.map((day) => ({ label: day.jour, value: day.nombre }))
  const signInTotal = signIns.reduce((sum, day) => sum + day.value, 0)
  const launches = lancements.map((row) => ({ label: row.application, value: row.nombre }))
  const history = `/pages/admin/listeLogs?${new URLSearchParams({ type: 'CONNEXION', du: first, au: last }).toString()}`

  return (
    <div className="flex flex-col gap-8">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">{t('home.title')}</h1>
        <p className="text-muted-foreground">{t('home.intro')}</p>
      </div>

      <Section title={t('home.users')}>
        <ul className="grid gap-3 sm:grid-cols-3">
          <Figure to={usersUrl(HOME_USER_LISTS.avecPoste)} value={utilisateurs.avecPoste} label={t('home.withPost')} />
          <Figure
            to={usersUrl(HOME_USER_LISTS.sansPoste)}
            value={utilisateurs.sansPoste}
            label={t('home.withoutPost')}
          />
          <Figure to={usersUrl(HOME_USER_LISTS.inactifs)} value={utilisateurs.inactifs} label={t('home.inactive')} />
        </ul>
      </Section>

      <Section title={t('home.registrations')}>
        <ul className="grid gap-3 sm:grid-cols-2">
          <Figure to="/pages/admin/autorisation" value={inscriptions.enAttente} label={t('home.waiting')} />
          <Figure
            to="/pages/admin/autorisation"
            value={inscriptions.liensExpirant}
            label={t('home.expiring', { hours: EXPIRING_LINK_HOURS })}
            hint={t('home.expiringHint')}
          />
        </ul>
      </Section>

      {waitingRequests !== null ? (
        <Section title={t('requests.homeTitle')}>
          <ul className="grid gap-3 sm:grid-cols-3">
            <Figure to="/pages/admin/demandes" value={waitingRequests} label={t('requests.homeWaiting')} />
          </ul>
        </Section>
      ) : null}

      <Section title={t('home.endingPosts', { days: ENDING_POST_DAYS, count: postesFinissant.total })}>
        <EndingPosts postes={postesFinissant.items} total={postesFinissant.total} page={page} />
      </Section>

      <div className="grid gap-8 lg:grid-cols-2">
        <Section
          title={t('home.signIns', { days: HOME_DAYS })}
          action={
            <Link to={history} className="text-sm underline underline-offset-4">
              {t('home.signInsHistory')}
            </Link>
          }
        >
          <p className="text-sm text-muted-foreground">{t('home.signInsTotal', { count: signInTotal })}</p>
          <ColumnChart
            points={signIns}
            max={t('home.scale', { count: Math.max(0, ...signIns.map((day) => day.value)) })}
            first={first}
            last={last}
          />
          <ChartTable
            caption={t('home.signIns', { days: HOME_DAYS })}
            headers={[t('home.day'), t('home.signInCount')]}
            points={signIns}
          />
        </Section>
        <Section title={t('home.launches', { days: HOME_DAYS })}>
          {launches.length === 0 ? (
            <p className="text-sm text-muted-foreground">{t('home.noLaunch')}</p>
          ) : (
            <>
              <BarList points={launches} />
              <ChartTable
                caption={t('home.launches', { days: HOME_DAYS })}
                headers={[t('home.application'), t('home.launchCount')]}
                points={launches}
              />
            </>
          )}
        </Section>
      </div>

      {home.stockage ? (
        <Section
          title={t('home.storage')}
          action={
            <Link to="/pages/admin/securite#history-months" className="text-sm underline underline-offset-4">
              {t('home.storageLink')}
            </Link>
          }
        >
          <StorageFigures storage={home.stockage} />
        </Section>
      ) : null}

      {comptesService.length > 0 ? (
        <Section
          title={t('home.serviceAccounts')}
          action={
            <Link to="/pages/admin/comptesService" className="text-sm underline underline-offset-4">
              {t('home.serviceAccountsLink')}
            </Link>
          }
        >
          <ServiceAccountCalls accounts={comptesService} />
        </Section>
      ) : null}
    </div>
  )
}

/** 'YYYY-MM' as 'MM/YYYY'. */
const monthText = (month: string) => `${month.slice(5, 7)}/${month.slice(0, 4)}`

/** The database's size against D1's limit (a warning from 5 GB), the history's entries in it, and the archive's. */
function StorageFigures({ storage }: { storage: NonNullable<Home['stockage']> }) {
  const { t, i18n } = useTranslation()
  const language = i18n.language
  const { base, historique, archive } = storage
  const size = formatBytes(base.octets, language)
  const limit = formatBytes(base.limite, language)
  const share = Math.round((base.octets / base.limite) * 100)
  return (
    <div className="flex flex-col gap-3">
      {base.etat !== 'ok' ? (
        <p
          className={`rounded-lg border p-3 text-sm ${base.etat === 'critique' ? 'border-destructive bg-destructive/10' : 'border-amber-600 bg-amber-50 dark:bg-amber-950'}`}
        >
          {t(base.etat === 'critique' ? 'home.storageCritique' : 'home.storageAttention', { size, limit })}
        </p>
      ) : null}
      <dl className="grid gap-3 sm:grid-cols-3">
        <StorageFigure term={t('home.database')}>
          <span className="text-lg font-semibold tabular-nums">{size}</span>
          <span>{t('home.databaseSize', { size, limit, share })}</span>
        </StorageFigure>
        <StorageFigure term={t('home.historyInDatabase')}>
          <span>
            {t('home.historyEntries', {
              count: historique.entrees,
              entries: formatCount(historique.entrees, language),
              size: formatBytes(historique.octets, language),
            })}
          </span>
          <span>
            {t('home.historyMonths', { count: historique.moisEnLigne })}
            {historique.premierMois ? `, ${t('home.since', { month: monthText(historique.premierMois) })}` : null}
          </span>
        </StorageFigure>
        <StorageFigure term={t('home.archive')}>
          {archive.mois === 0 || !archive.premierMois || !archive.dernierMois ? (
            <span>{t('home.archiveNone')}</span>
          ) : (
            <>
              <span>
                {t('home.archiveMonths', {
                  count: archive.mois,
                  first: monthText(archive.premierMois),
                  last: monthText(archive.dernierMois),
                })}
              </span>
              <span>
                {t('home.archiveFiles', {
                  count: archive.fichiers,
                  entries: formatCount(archive.entrees, language),
                  size: formatBytes(archive.octets, language),
                })}
              </span>
            </>
          )}
        </StorageFigure>
      </dl>
    </div>
  )
}

function StorageFigure({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="flex flex-col gap-1 rounded-lg border bg-card p-4 text-sm">
      <dt className="font-medium">{term}</dt>
      <dd className="flex flex-col gap-1 text-muted-foreground">{children}</dd>
    </div>
  )
}

type AccountCalls = Home['comptesService'][number]

/** The service accounts that called today, the busiest first: their calls and their last one. */
function ServiceAccountCalls({ accounts }: { accounts: AccountCalls[] }) {
  const { t } = useTranslation()
  const columns: DataTableColumn<AccountCalls>[] = [
    {
      id: 'nom',
      header: t('home.serviceAccount'),
      className: 'break-words',
      cell: (account) => (
        <Link
          to={`/pages/admin/comptesService?${new URLSearchParams({ q: account.nom }).toString()}`}
          className="font-medium underline underline-offset-4"
        >
          {account.nom}
        </Link>
      ),
    },
    { id: 'appels', header: t('home.calls'), className: 'text-right tabular-nums', cell: (account) => account.appels },
    {
      id: 'dernier',
      header: t('home.lastCall'),
      className: 'tabular-nums',
      cell: (account) => (account.derniereUtilisation ? displayDateTime(account.derniereUtilisation) : null),
    },
  ]
  return (
    <div className="overflow-hidden rounded-lg border bg-card">
      <DataTable
        aria-label={t('home.serviceAccountsCaption')}
        columns={columns}
        rows={accounts}
        rowKey={(account) => account.id}
      />
    </div>
  )
}
