import { Form, Link, useLocation, useNavigation, useRevalidator } from '@remix-run/react'
import { Archive, Download, History, RefreshCw } from 'lucide-react'
import { useEffect } from 'react'
import { useTranslation } from 'react-i18next'
import { DataTable, type DataTableColumn } from '~/components/data-table'
import { EmptyState } from '~/components/empty-state'
import { Pagination } from '~/components/pagination'
import { SubmitButton } from '~/components/submit-button'
import { buttonVariants } from '~/components/ui/button'
import { displayDate } from '~/lib/dates'
import { DEFAULT_PAGE_SIZE } from '~/lib/pagination'
import { urlWith } from '~/lib/url'
import type { LogEntry } from '../../../worker-api/contract/history/logs'
import type { LogSearch } from '../../../worker-api/contract/history/search'

/**
 * The history screen's archive (issue 64): the notice that a range reaches archived months, and the search of them —
 * its progress, then what it found, paged, with its CSV.
 */

/** The URL's names: the search shown beside the list, and the page of its entries. */
export const SEARCH = 'recherche'
export const SEARCH_PAGE = 'pageArchive'

/** 'YYYY-MM' as 'MM/YYYY'. */
const monthText = (month: string) => `${month.slice(5, 7)}/${month.slice(0, 4)}`

/** The range reaches archived months, not in the list above: one button searches them (a form: works without JS). */
export function ArchiveNotice({ months }: { months: string }) {
  const { t } = useTranslation()
  const navigation = useNavigation()
  const [first = '', last = ''] = months.split('/')
  const starting = navigation.state === 'submitting' && navigation.formMethod?.toUpperCase() === 'POST'
  return (
    <section aria-labelledby="archive-title" id="archive" className="flex flex-col gap-3 rounded-lg border bg-card p-4">
      <h2 id="archive-title" className="flex items-center gap-2 text-lg font-semibold">
        <Archive aria-hidden className="size-5" />
        {t('logs.archive.title')}
      </h2>
      <p className="text-sm">
        {t(first === last ? 'logs.archive.noticeOne' : 'logs.archive.notice', {
          first: monthText(first),
          last: monthText(last),
        })}
      </p>
      <Form method="post">
        <SubmitButton icon={Archive} pending={starting} pendingLabel={t('logs.archive.starting')}>
          {t('logs.archive.search')}
        </SubmitButton>
      </Form>
    </section>
  )
}

export type ArchiveShown = { search: LogSearch; entries: LogEntry[]; total: number; page: number } | { gone: true }

/**
 * The search of the archived months: its progress while it runs (the page reads it again every 2 s with JavaScript; a
 * link does without), then what it found, paged, and its CSV; stopped at its limit or failed, said so.
 */
export function ArchivePanel({ archive, columns }: { archive: ArchiveShown; columns: DataTableColumn<LogEntry>[] }) {
  const { t } = useTranslation()
  const { search } = useLocation()
  const revalidator = useRevalidator()
  const navigation = useNavigation()
  const starting = navigation.state === 'submitting' && navigation.formMethod?.toUpperCase() === 'POST'
  const running = 'search' in archive && archive.search.etat === 'EN_COURS'
  useEffect(() => {
    if (!running) return
    const timer = setInterval(() => {
      if (revalidator.state === 'idle') revalidator.revalidate()
    }, 2000)
    return () => clearInterval(timer)
  }, [running, revalidator])
  if ('gone' in archive) {
    return (
      <section
        id="archive"
        aria-labelledby="archive-title"
        className="flex flex-col gap-3 rounded-lg border bg-card p-4"
      >
        <h2 id="archive-title" className="text-lg font-semibold">
          {t('logs.archive.title')}
        </h2>
        <p className="text-sm">{t('logs.archive.gone')}</p>
        <Form
          method="post"
          action={`/pages/admin/listeLogs${urlWith(search, { [SEARCH]: null, [SEARCH_PAGE]: null })}`}
        >
          <SubmitButton icon={Archive} pending={starting} pendingLabel={t('logs.archive.starting')}>
            {t('logs.archive.again')}
          </SubmitButton>
        </Form>
      </section>
    )
  }
  const { search: found, entries, total, page } = archive
  const months =
    found.moisDebut && found.moisFin
      ? t('logs.archive.months', { first: monthText(found.moisDebut), last: monthText(found.moisFin) })
      : t('logs.archive.noMonths')
  return (
    <section id="archive" aria-labelledby="archive-title" className="flex flex-col gap-3">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 id="archive-title" className="flex items-center gap-2 text-lg font-semibold">
          <Archive aria-hidden className="size-5" />
          {t('logs.archive.title')}
        </h2>
        <span className="text-sm text-muted-foreground">{months}</span>
      </div>
      <div className="flex flex-col gap-2 rounded-lg border bg-card p-4 text-sm" aria-live="polite">
        {found.etat === 'EN_COURS' ? (
          <>
            <p>
              {t('logs.archive.progress', { read: found.fichiersLus, files: found.fichiers, found: found.entrees })}
            </p>
            <progress
              className="h-2 w-full accent-primary"
              max={Math.max(1, found.fichiers)}
              value={found.fichiersLus}
              aria-label={t('logs.archive.progressLabel')}
            />
            <p>
              <Link to={urlWith(search, {})} className="inline-flex items-center gap-1 underline underline-offset-4">
                <RefreshCw aria-hidden className="size-4" />
                {t('logs.archive.refresh')}
              </Link>
            </p>
          </>
        ) : found.etat === 'ECHEC' ? (
          <p role="alert" className="text-destructive">
            {t('logs.archive.failed', { why: found.erreur ?? '' })}
          </p>
        ) : (
          <p>
            {t(found.etat === 'TRONQUEE' ? 'logs.archive.truncated' : 'logs.archive.done', { count: found.entrees })}
          </p>
        )}
        <p className="text-muted-foreground">{t('logs.archive.kept', { until: displayDate(found.expiresAt) })}</p>
      </div>
      {found.etat !== 'EN_COURS' && total > 0 ? (
        <div className="flex justify-end">
          <a
            href={`/pages/admin/listeLogs/archive?${new URLSearchParams({ [SEARCH]: found.id }).toString()}`}
            download
            className={buttonVariants({ variant: 'outline', size: 'sm' })}
          >
            <Download aria-hidden />
            {t('logs.archive.export')}
          </a>
        </div>
      ) : null}
      {total > 0 || found.etat !== 'EN_COURS' ? (
        <>
          <div className="overflow-hidden rounded-lg border bg-card">
            <DataTable
              aria-label={t('logs.archive.tableLabel')}
              columns={columns}
              rows={entries}
              rowKey={(entry) => entry.id}
              empty={<EmptyState icon={History} title={t('logs.archive.empty')} />}
            />
          </div>
          <Pagination page={page} total={total} pageSize={DEFAULT_PAGE_SIZE} param={SEARCH_PAGE} />
        </>
      ) : null}
    </section>
  )
}
