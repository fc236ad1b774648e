import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { Form, Link, useLoaderData, useLocation, useNavigation } from '@remix-run/react'
import { Download, History, TriangleAlert } from 'lucide-react'
import { useId } from 'react'
import { useTranslation } from 'react-i18next'
import { DataTable, type DataTableColumn } from '~/components/data-table'
import { DateRangePicker } from '~/components/date-range-picker'
import { EmptyState } from '~/components/empty-state'
import { Pagination } from '~/components/pagination'
import { SearchForm } from '~/components/search-form'
import { SelectField } from '~/components/select-field'
import { Alert } from '~/components/ui/alert'
import { Button, buttonVariants } from '~/components/ui/button'
import { Tooltip } from '~/components/ui/tooltip'
import { ArchiveNotice, ArchivePanel, SEARCH, SEARCH_PAGE } from '~/features/history/archive-search'
import { requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { displayDate, displayTime } from '~/lib/dates'
import { pageLanguage } from '~/lib/i18n'
import { DEFAULT_PAGE_SIZE, listQuery, readPage } from '~/lib/pagination'
import { redirectPastLast } from '~/lib/pagination.server'
import { pageTitle, titleMeta } from '~/lib/title'
import { urlWith } from '~/lib/url'
import type { LogEntry } from '../../worker-api/contract/history/logs'
import { fromFormDate, LOG_TYPES, type LogType, logLabel } from '../../worker-api/contract/log-labels'

export const handle: BreadcrumbHandle = { breadcrumb: 'nav.history' }
export const meta = titleMeta

/** The URL's names of the filters: the range's days as the date inputs give them, and the type. */
const FROM = 'du'
const TO = 'au'
const TYPE = 'type'
/** One user's entries only (their full history, from their page). */
const USER = 'utilisateur'
/** A search's id as the API gives it. */
const SEARCH_ID = /^[A-Za-z0-9_-]{1,64}$/

/**
 * The history's filters read from the URL: the range's days as the API wants them (yyyyMMdd), with
 * an error for a bound that is not a date or a range that ends before it starts. `typed` is what the
 * date inputs show again: the day as they hold it ('yyyy-MM-dd').
 */
export function logFilters(params: URLSearchParams) {
  const raw = { from: params.get(FROM)?.trim() ?? '', to: params.get(TO)?.trim() ?? '' }
  const days = { from: raw.from ? fromFormDate(raw.from) : null, to: raw.to ? fromFormDate(raw.to) : null }
  const dateDebut = days.from?.replaceAll('-', '')
  const dateFin = days.to?.replaceAll('-', '')
  const errors: { from?: string[]; to?: string[] } = {}
  if (raw.from && !days.from) errors.from = ['logs.invalidDay']
  if (raw.to && !days.to) errors.to = ['logs.invalidDay']
  if (dateDebut && dateFin && dateDebut > dateFin) errors.to = ['validation.dateRange']
  const type = LOG_TYPES.find((candidate) => candidate === params.get(TYPE))
  const q = listQuery(params, []).q
  const user = params.get(USER)
  const utilisateur = user && /^[1-9]\d{0,9}$/.test(user) ? Number(user) : undefined
  return {
    typed: { from: days.from ?? raw.from, to: days.to ?? raw.to },
    errors,
    valid: !errors.from && !errors.to,
    query: {
      ...(dateDebut ? { dateDebut } : {}),
      ...(dateFin ? { dateFin } : {}),
      ...(type ? { type } : {}),
      ...(q ? { q } : {}),
      ...(utilisateur ? { utilisateur } : {}),
    },
  }
}

/** The search of the archive the URL names, if it names one that could be. */
export function searchIdOf(params: URLSearchParams) {
  const id = params.get(SEARCH)
  return id && SEARCH_ID.test(id) ? id : null
}

/**
 * Spec §2 admin/listeLogs: the history of the users of the caller's scope, newest first, searched,
 * filtered by range and type, and paged by the API (10 a page). Spec §8: a failed read says 'Echec de
 * la récupération des données', on the page and as a toast.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const url = new URL(request.url)
  const filters = logFilters(url.searchParams)
  const { page } = listQuery(url.searchParams, [])
  const searchId = searchIdOf(url.searchParams)
  const archivePage = readPage(url.searchParams.get(SEARCH_PAGE))
  // A range that is not one is said on its fields; nothing is read until it is put right.
  const {
    auth,
    t,
    data: [result, archiveSearch, archiveEntries],
  } = await requireAdmin(request, context, {
    read: (auth) =>
      Promise.all([
        filters.valid
          ? auth.settle(
              auth.api.rest.bd.logs.index.$get({ query: { ...filters.query, page, taille: DEFAULT_PAGE_SIZE } }),
            )
          : Promise.resolve(null),
        // The search of the archived months the URL names, and a page of what it found, in the same round trip.
        searchId ? auth.settle(auth.api.rest.bd.logs.recherches[':id'].$get({ param: { id: searchId } })) : null,
        searchId
          ? auth.settle(
              auth.api.rest.bd.logs.recherches[':id'].entrees.$get({
                param: { id: searchId },
                query: { page: archivePage, taille: DEFAULT_PAGE_SIZE },
              }),
            )
          : null,
      ]),
  })
  const shown = {
    typed: filters.typed,
    errors: filters.errors,
    type: filters.query.type ?? '',
    q: filters.query.q ?? '',
  }
  // The search named: where it stands and its page, or gone (another's, or past its day: 404).
  const archive = searchId
    ? archiveSearch?.ok && archiveEntries?.ok
      ? {
          search: archiveSearch.data,
          entries: archiveEntries.data,
          total: archiveEntries.total ?? 0,
          page: archivePage,
        }
      : { gone: true as const }
    : null
  const base = {
    ...shown,
    utilisateur: filters.query.utilisateur ?? null,
    title: pageTitle(t, t('logs.title')),
    page,
    entries: [] as LogEntry[],
    total: 0,
    archived: null as string | null,
    archive,
  }
  if (!result) return data({ ...base, failed: false }, { headers: await auth.headers() })
  if (!result.ok) {
    return data(
      { ...base, failed: true, notice: { type: 'error' as const, key: 'errors.fetchFailed' } },
      { headers: await auth.headers() },
    )
  }
  const total = result.total ?? 0
  // A page past the last (the URL kept from a longer list): on to the last one.
  redirectPastLast(url, page, total, result.data.length, await auth.headers())
  return data(
    { ...base, entries: result.data, total, archived: result.archived, failed: false },
    { headers: await auth.headers() },
  )
}

/**
 * "Rechercher dans l'archive": the screen's filters searched in the archived months (POST rest/bd/logs/recherches), then
 * the screen again with the search beside the list; refused (3 running already), said in a notice.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const auth = await requireAdmin(request, context)
  const url = new URL(request.url)
  const filters = logFilters(url.searchParams)
  const back = `/pages/admin/listeLogs${url.search}`
  if (!filters.valid) return auth.redirectWithToast(back, { type: 'error', key: 'logs.invalidRange' })
  const started = await auth.settle(auth.api.rest.bd.logs.recherches.$post({ json: filters.query }))
  if (started.ok) {
    return auth.redirectWithToast(
      `/pages/admin/listeLogs${urlWith(url.searchParams, { [SEARCH]: started.data.id, [SEARCH_PAGE]: null })}#archive`,
      { type: 'success', key: 'logs.archive.started' },
    )
  }
  return auth.redirectWithToast(back, {
    type: 'error',
    key: started.status === 429 ? 'logs.archive.busy' : 'errors.technical',
  })
}

export default function Logs() {
  const { entries, total, page, q, typed, errors, type, failed, utilisateur, archived, archive } =
    useLoaderData<typeof loader>()
  const { t, i18n } = useTranslation()
  const { search } = useLocation()
  const navigation = useNavigation()
  const language = pageLanguage(i18n.language)
  const filtering = navigation.state === 'loading' && navigation.location.pathname === '/pages/admin/listeLogs'
  const exportSearch = urlWith(search, { page: null })
  const typeId = useId()
  const filtered = Boolean(q || typed.from || typed.to || type || utilisateur)

  const columns: DataTableColumn<LogEntry>[] = [
    {
      id: 'date',
      header: t('logs.date'),
      cell: (entry) => (
        <time dateTime={entry.date} className="whitespace-nowrap tabular-nums">
          {displayDate(entry.date)}
          {/* Narrower than `lg` the time column is hidden: the time rides under the day. */}
          <span className="block text-muted-foreground lg:hidden">{displayTime(entry.date)}</span>
        </time>
      ),
    },
    {
      id: 'time',
      header: t('logs.time'),
      className: 'hidden lg:table-cell',
      cell: (entry) => <span className="tabular-nums">{displayTime(entry.date)}</span>,
    },
    {
      id: 'user',
      header: t('logs.user'),
      className: 'hidden lg:table-cell break-words',
      cell: (entry) => <UserName entry={entry} />,
    },
    {
      id: 'action',
      header: t('logs.action'),
      // A long word (an address in a comment riding under the action) breaks rather than widen the table.
      className: 'wrap-anywhere',
      cell: (entry) => (
        <>
          {/* Narrower than `lg` the user column is hidden too: who acted comes first here. The table
              keeps two columns on a phone or beside the menu, the room for a long address. */}
          <span className="block break-words lg:hidden">
            <UserName entry={entry} />
          </span>
          <span className="font-medium">{logLabel(language, entry)}</span>
          {entry.typeLog === 'APPLICATION' ? <span className="block text-muted-foreground">{entry.nomLog}</span> : null}
          {entry.source === 'CLIENT' ? (
            <span className="mt-1 inline-flex rounded-full border px-2 py-0.5 text-xs text-muted-foreground">
              {t('logs.reportedByClient')}
            </span>
          ) : null}
          {/* Narrower than `xl` the structure and the comment ride under the action (smaller on a
              phone, where a 50-character address would otherwise take three lines). */}
          <span className="block text-xs text-muted-foreground sm:text-sm xl:hidden">
            {entry.structure?.nom ? <span className="block">{entry.structure.nom}</span> : null}
            {entry.commentaire ? <span className="block">{entry.commentaire}</span> : null}
          </span>
        </>
      ),
    },
    {
      id: 'structure',
      header: t('logs.structure'),
      className: 'hidden xl:table-cell',
      cell: (entry) => entry.structure?.nom ?? <span className="text-muted-foreground">—</span>,
    },
    {
      id: 'comment',
      header: t('logs.comment'),
      // A long word (an address) breaks rather than widen the table.
      className: 'hidden xl:table-cell wrap-anywhere',
      cell: (entry) => entry.commentaire ?? <span className="text-muted-foreground">—</span>,
    },
    {
      id: 'browser',
      header: t('logs.browser'),
      className: 'hidden xl:table-cell',
      cell: (entry) =>
        entry.nomNavigateur ? (
          `${entry.nomNavigateur} ${entry.versionNavigateur ?? ''}`.trim()
        ) : (
          <span className="text-muted-foreground">—</span>
        ),
    },
  ]

  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">{t('logs.title')}</h1>
        <p className="text-muted-foreground">{t('logs.intro')}</p>
      </div>
      <SearchForm label={t('logs.search')} />
      <Form method="get" className="flex flex-col gap-4 rounded-lg border bg-card p-4">
        {q ? <input type="hidden" name="q" value={q} /> : null}
        {utilisateur ? <input type="hidden" name={USER} value={utilisateur} /> : null}
        <div className="grid gap-4 lg:grid-cols-[1fr_auto] lg:items-start">
          <DateRangePicker
            // A new URL (filtered, reset) shows its own period, not the one picked before.
            key={`${typed.from}|${typed.to}`}
            legend={t('logs.range')}
            start={{
              name: FROM,
              label: t('logs.from'),
              defaultValue: typed.from,
              errors: errors.from?.map((key) => t(key)),
            }}
            end={{ name: TO, label: t('logs.to'), defaultValue: typed.to, errors: errors.to?.map((key) => t(key)) }}
          />
          {/* Level with the date inputs (under the period's legend), where the calendar opens below them. */}
          <div className="lg:pt-7">
            <SelectField
              label={t('logs.type')}
              placeholder={t('logs.allTypes')}
              options={LOG_TYPES.map((value: LogType) => ({
                value,
                label: logLabel(language, { typeLog: value, nomLog: '' }),
              }))}
              selectProps={{ id: typeId, name: TYPE, defaultValue: type }}
            />
          </div>
        </div>
        <div className="flex flex-wrap gap-2">
          <Button type="submit" disabled={filtering}>
            {filtering ? t('logs.filtering') : t('logs.filter')}
          </Button>
          {filtered ? (
            <Link to="/pages/admin/listeLogs" className={buttonVariants({ variant: 'outline' })}>
              {t('logs.reset')}
            </Link>
          ) : null}
        </div>
      </Form>
      {errors.from || errors.to ? (
        <Alert variant="destructive" role="alert">
          <p>{t('logs.invalidRange')}</p>
        </Alert>
      ) : failed ? (
        <EmptyState
          icon={TriangleAlert}
          title={t('errors.fetchFailed')}
          action={
            <Link to={urlWith(search, {})} className={buttonVariants({ variant: 'outline' })}>
              {t('logs.retry')}
            </Link>
          }
        />
      ) : (
        <>
          <div className="flex flex-wrap items-center justify-between gap-2">
            {/* No count of nothing above the empty state, which says it once. */}
            <p className="text-sm text-muted-foreground" aria-live="polite">
              {total > 0 ? t('logs.total', { count: total }) : null}
            </p>
            {total > 0 ? (
              // A plain link: the browser downloads the file (streamed by the API) without leaving the page.
              <a
                href={`/pages/admin/listeLogs/export${exportSearch === '?' ? '' : exportSearch}`}
                download
                className={buttonVariants({ variant: 'outline', size: 'sm' })}
              >
                <Download aria-hidden />
                {t('logs.export')}
              </a>
            ) : null}
          </div>
          <div className="overflow-hidden rounded-lg border bg-card">
            <DataTable
              aria-label={t('logs.tableLabel')}
              aria-busy={filtering}
              columns={columns}
              rows={entries}
              rowKey={(entry) => entry.id}
              empty={<EmptyState icon={History} title={t(filtered ? 'logs.emptyFiltered' : 'logs.empty')} />}
            />
          </div>
          <Pagination page={page} total={total} pageSize={DEFAULT_PAGE_SIZE} />
          {archived && !archive ? <ArchiveNotice months={archived} /> : null}
          {archive ? <ArchivePanel archive={archive} columns={columns} /> : null}
        </>
      )}
    </div>
  )
}

/**
 * Who acted: their name, with their address in a tooltip (spec §5), or what is known of them; a
 * program, by its service account's name.
 */
function UserName({ entry }: { entry: LogEntry }) {
  const { t } = useTranslation()
  if (entry.compteService) return <span>{t('logs.serviceAccount', { nom: entry.compteService.nom })}</span>
  return (
    <Tooltip content={entry.user?.mail || t('logs.unknownMail')}>
      {entry.user ? `${entry.user.prenom} ${entry.user.nom}` : t('logs.deletedUser')}
    </Tooltip>
  )
}
