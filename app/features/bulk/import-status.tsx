import { Download } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { DataTable, type DataTableColumn } from '~/components/data-table'
import { Pagination } from '~/components/pagination'
import { buttonVariants } from '~/components/ui/button'
import { formatCount } from '~/lib/i18n'
import {
  type ImportChange,
  type ImportStatus,
  type RowError,
  STATUS_ERRORS_LISTED,
} from '../../../worker-api/contract/bulk/bulk'

/* The parts of an import's page (its figures, its progress, its changes and its rows in error), read from its status. */

function Figures({ items }: { items: [label: string, value: number][] }) {
  const { i18n } = useTranslation()
  return (
    <dl className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-5">
      {items.map(([label, value]) => (
        <div key={label} className="rounded-lg border p-3">
          <dt className="text-sm text-muted-foreground">{label}</dt>
          <dd className="text-2xl font-semibold tabular-nums">{formatCount(value, i18n.language)}</dd>
        </div>
      ))}
    </dl>
  )
}

export function Summary({ status }: { status: ImportStatus }) {
  const { t } = useTranslation()
  const preview = status.etat === 'APERCU'
  return (
    <section aria-label={t('bulk.detail.summary')}>
      <Figures
        items={[
          [t('bulk.detail.lines'), status.lignes],
          [t(preview ? 'bulk.detail.toCreate' : 'bulk.detail.created'), status.creees],
          [t(preview ? 'bulk.detail.toChange' : 'bulk.detail.changed'), status.modifiees],
          [t('bulk.detail.unchanged'), status.inchangees],
          [t('bulk.detail.inError'), status.lignesEnErreur],
        ]}
      />
    </section>
  )
}

export function Progress({ status }: { status: ImportStatus }) {
  const { t, i18n } = useTranslation()
  const left = status.secondesRestantes
  const time =
    status.etat === 'EN_ATTENTE'
      ? t('bulk.detail.waiting')
      : left === null
        ? t('bulk.detail.timeUnknown')
        : left < 60
          ? t('bulk.detail.timeLeftShort')
          : t('bulk.detail.timeLeft', { minutes: Math.ceil(left / 60) })
  return (
    <section aria-label={t('bulk.detail.progressLabel')} className="flex flex-col gap-4">
      <div className="flex flex-col gap-2" role="status">
        <progress
          className="h-3 w-full accent-primary"
          value={status.traitees}
          max={Math.max(1, status.lignes)}
          aria-label={t('bulk.detail.progressLabel')}
        />
        <p className="font-medium tabular-nums">
          {t('bulk.detail.progress', {
            done: formatCount(status.traitees, i18n.language),
            total: formatCount(status.lignes, i18n.language),
          })}
        </p>
        <p className="text-sm text-muted-foreground">{time}</p>
      </div>
      <Figures
        items={[
          [t('bulk.detail.created'), status.creees],
          [t('bulk.detail.changed'), status.modifiees],
          [t('bulk.detail.unchanged'), status.inchangees],
          [t('bulk.detail.inError'), status.lignesEnErreur],
        ]}
      />
      <p className="text-sm text-muted-foreground">{t('bulk.detail.refreshing')}</p>
    </section>
  )
}

function changeWords(change: ImportChange, t: ReturnType<typeof useTranslation>['t']): string[] {
  const words: string[] = []
  for (const field of ['nom', 'prenom', 'mail'] as const) {
    const value = change[field]
    if (value) words.push(t(`bulk.detail.change.${field}`, { avant: value.avant, apres: value.apres }))
  }
  if (change.admin !== undefined)
    words.push(t(change.admin ? 'bulk.detail.change.admin' : 'bulk.detail.change.notAdmin'))
  if (change.actif !== undefined) {
    words.push(t(change.actif ? 'bulk.detail.change.reactivated' : 'bulk.detail.change.deactivated'))
  }
  return words
}

/** A kept preview's rows that rename, readdress, promote, demote, deactivate or reactivate existing users. */
export function Changes({ status }: { status: ImportStatus }) {
  const { t, i18n } = useTranslation()
  const more = status.totalChangements - status.changements.length
  const columns: DataTableColumn<ImportChange>[] = [
    { id: 'line', header: t('bulk.detail.line'), className: 'tabular-nums', cell: (row) => row.ligne },
    { id: 'login', header: t('bulk.detail.login'), className: 'whitespace-normal break-all', cell: (row) => row.login },
    {
      id: 'what',
      header: t('bulk.detail.what'),
      className: 'whitespace-normal [overflow-wrap:anywhere]',
      cell: (row) => (
        <ul className="flex flex-col gap-1">
          {changeWords(row, t).map((words) => (
            <li key={words}>{words}</li>
          ))}
        </ul>
      ),
    },
  ]
  return (
    <section aria-labelledby="import-changes" className="flex flex-col gap-3">
      <h2 id="import-changes" className="text-lg font-semibold">
        {t('bulk.detail.changesTitle')}{' '}
        <span className="tabular-nums">({formatCount(status.totalChangements, i18n.language)})</span>
      </h2>
      <DataTable
        columns={columns}
        rows={status.changements}
        rowKey={(row) => row.ligne}
        aria-labelledby="import-changes"
      />
      {more > 0 ? (
        <p className="text-sm text-muted-foreground">
          {t('bulk.detail.moreChanges', { count: more, n: formatCount(more, i18n.language) })}
        </p>
      ) : null}
    </section>
  )
}

export function Errors({ status, page }: { status: ImportStatus; page: number }) {
  const { t, i18n } = useTranslation()
  const columns: DataTableColumn<RowError>[] = [
    { id: 'line', header: t('bulk.detail.line'), className: 'tabular-nums', cell: (row) => row.ligne },
    { id: 'column', header: t('bulk.detail.column'), cell: (row) => row.colonne ?? '—' },
    {
      id: 'message',
      header: t('bulk.detail.message'),
      className: 'whitespace-normal break-words',
      cell: (row) => row.message,
    },
  ]
  return (
    <section aria-labelledby="import-errors" className="flex flex-col gap-3">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 id="import-errors" className="text-lg font-semibold">
          {t('bulk.detail.errorsTitle')}{' '}
          <span className="tabular-nums">({formatCount(status.totalErreurs, i18n.language)})</span>
        </h2>
        {status.totalErreurs > 0 ? (
          <a
            href={`/pages/admin/import/${status.id}/erreurs`}
            download
            className={buttonVariants({ variant: 'outline' })}
          >
            <Download aria-hidden />
            {t('bulk.detail.download')}
          </a>
        ) : null}
      </div>
      <DataTable
        columns={columns}
        rows={status.erreurs}
        rowKey={(row) => `${row.ligne}-${row.colonne}-${row.message}`}
        empty={<p className="text-sm text-muted-foreground">{t('bulk.detail.noErrors')}</p>}
        aria-labelledby="import-errors"
      />
      <Pagination page={page} total={status.totalErreurs} pageSize={STATUS_ERRORS_LISTED} />
    </section>
  )
}
