import { data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { Link, useLoaderData } from '@remix-run/react'
import { CircleCheck } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { AdminListPage, ListUnreadable } from '~/components/admin-list-page'
import { DataTable, type DataTableColumn } from '~/components/data-table'
import { EmptyState } from '~/components/empty-state'
import { SearchForm } from '~/components/search-form'
import { buttonVariants } from '~/components/ui/button'
import { HeldPosts, requesterName } from '~/features/governance/request-cells'
import { requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { displayDate } from '~/lib/dates'
import { listQuery } from '~/lib/pagination'
import { redirectPastLast } from '~/lib/pagination.server'
import { pageTitle, titleMeta } from '~/lib/title'
import {
  type PendingRequest,
  REQUEST_EXPIRY_DAYS,
  REQUEST_SORTS,
} from '../../worker-api/contract/governance/access-requests'

export const handle: BreadcrumbHandle = { breadcrumb: 'nav.accessRequests' }
export const meta = titleMeta

/**
 * The access requests waiting for a decision whose requester the administrator manages (README, "Access requests"):
 * searched, sorted (the oldest, nearest its expiry, first) and paged by the API; each opens its decision page.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const url = new URL(request.url)
  const query = listQuery(url.searchParams, REQUEST_SORTS)
  const {
    auth,
    data: result,
    t,
  } = await requireAdmin(request, context, {
    read: (auth) => auth.settle(auth.api.rest.bd.demande.aTraiter.$get({ query })),
  })
  const title = pageTitle(t, t('requests.adminTitle'))
  const headers = await auth.headers()
  if (!result.ok) {
    return data(
      { requests: [] as PendingRequest[], total: 0, page: 1, q: query.q ?? '', failed: true, title },
      { headers },
    )
  }
  const total = result.total ?? 0
  // The last request of the last page decided: on to the page that is now the last, not an empty one.
  redirectPastLast(url, query.page, total, result.data.length, headers)
  return data({ requests: result.data, total, page: query.page, q: query.q ?? '', failed: false, title }, { headers })
}

export default function AccessRequests() {
  const { requests, total, page, q, failed } = useLoaderData<typeof loader>()
  const { t } = useTranslation()
  const columns: DataTableColumn<PendingRequest>[] = [
    {
      id: 'requester',
      header: t('requests.requester'),
      className: 'min-w-0 break-words',
      cell: (request) => (
        <>
          <span className="font-medium">{requesterName(request)}</span>
          <span className="block break-all text-muted-foreground">{request.utilisateur.mail}</span>
          {/* Below `lg` the application and the period ride under the requester. */}
          <span className="mt-1 block lg:hidden">
            {request.application.libelle} · {request.dateDebut} → {request.dateFin}
          </span>
        </>
      ),
    },
    {
      id: 'application',
      header: t('requests.application'),
      className: 'hidden lg:table-cell',
      cell: (request) => <span className="font-medium">{request.application.libelle}</span>,
    },
    {
      id: 'motif',
      header: t('requests.why'),
      className: 'hidden xl:table-cell whitespace-normal break-words max-w-72',
      cell: (request) => request.motif,
    },
    {
      id: 'period',
      header: t('requests.period'),
      className: 'hidden lg:table-cell tabular-nums',
      cell: (request) => `${request.dateDebut} → ${request.dateFin}`,
    },
    {
      id: 'holds',
      header: t('requests.holds'),
      className: 'hidden 2xl:table-cell whitespace-normal',
      cell: (request) => <HeldPosts postes={request.postes} />,
    },
    {
      id: 'asked',
      header: t('requests.asked'),
      sort: 'dateDemande',
      className: 'hidden sm:table-cell tabular-nums whitespace-normal',
      cell: (request) => (
        <>
          {displayDate(request.dateDemande)}
          <span className="block text-xs text-muted-foreground">
            {t('requests.expires', { date: request.expiration })}
          </span>
        </>
      ),
    },
    {
      id: 'actions',
      header: <span className="sr-only">{t('autorisation.actions')}</span>,
      className: 'text-right',
      cell: (request) => (
        <Link
          to={`/pages/admin/demandes/${request.id}`}
          className={buttonVariants({ size: 'sm', variant: 'outline' })}
          aria-label={t('requests.handleLabel', {
            name: requesterName(request),
            application: request.application.libelle,
          })}
        >
          {t('requests.handle')}
        </Link>
      ),
    },
  ]
  return (
    <AdminListPage
      title={t('requests.adminTitle')}
      intro={t('requests.adminIntro', { count: REQUEST_EXPIRY_DAYS })}
      failure={null}
      panels={null}
      search={<SearchForm label={t('requests.search')} />}
      unreadable={failed ? <ListUnreadable retry={t('requests.retry')} /> : null}
      count={t('requests.total', { count: total })}
      page={page}
      total={total}
    >
      <DataTable
        aria-label={t('requests.tableLabel')}
        columns={columns}
        rows={requests}
        rowKey={(request) => request.id}
        defaultSort="dateDemande"
        empty={
          <EmptyState
            icon={CircleCheck}
            title={t('requests.empty')}
            description={q ? t('requests.emptySearch', { q }) : undefined}
          />
        }
      />
    </AdminListPage>
  )
}
