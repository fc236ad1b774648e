import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { Form, Link, useLoaderData, useRevalidator } from '@remix-run/react'
import { Download, FileUp, Play } from 'lucide-react'
import { useEffect } from 'react'
import { useTranslation } from 'react-i18next'
import { DataTable, type DataTableColumn } from '~/components/data-table'
import { Pagination } from '~/components/pagination'
import { SubmitButton } from '~/components/submit-button'
import { Alert } from '~/components/ui/alert'
import { buttonVariants } from '~/components/ui/button'
import { Card, CardContent, CardHeader, CardTitle } from '~/components/ui/card'
import { apiMessage } from '~/lib/api-errors'
import { requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { usePendingIntent } from '~/lib/form'
import { readForm } from '~/lib/form.server'
import { formatCount } from '~/lib/i18n'
import { idParam } from '~/lib/id-param'
import { readPage } from '~/lib/pagination'
import { pageTitle, titleMeta } from '~/lib/title'
import {
  type ImportChange,
  type ImportStatus,
  type RowError,
  STATUS_ERRORS_LISTED,
} from '../../worker-api/contract/bulk/bulk'

export const handle: BreadcrumbHandle = {
  breadcrumb: (data, t) => [
    { label: t('nav.bulk'), to: '/pages/admin/import' },
    { label: (data as { status?: ImportStatus } | undefined)?.status?.fichier ?? '' },
  ],
}
export const meta = titleMeta

const INTENT = 'importer'
/** How often a running import's page reads it again: with JavaScript in place, without by reloading. */
const REFRESH_SECONDS = 2

const running = (status: ImportStatus) => status.etat === 'EN_ATTENTE' || status.etat === 'EN_COURS'

/**
 * An import of the administrator: its preview (what each row will do, the errors a page at a time, "Importer"), then
 * its progress (rows done of all, counts so far, time left; read again every 2 s, live with JavaScript and by the
 * page reloading itself without), and its summary with the errors file.
 */
export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const id = idParam(params.id)
  const page = readPage(new URL(request.url).searchParams.get('page'))
  const {
    auth,
    data: status,
    t,
  } = await requireAdmin(request, context, {
    read: (auth) =>
      auth.expect(
        auth.api.rest.bd.import[':id'].$get({
          param: { id: Number.isSafeInteger(id) && id > 0 ? id : 0 },
          query: page > 1 ? { page } : {},
        }),
      ),
  })
  const title = t(titleKey(status), { fichier: status.fichier })
  return data(
    { status, page, title: pageTitle(t, title), autoRefresh: running(status) ? REFRESH_SECONDS : null },
    { headers: await auth.headers() },
  )
}

function titleKey(status: ImportStatus) {
  if (status.etat === 'APERCU') return 'bulk.detail.previewTitle'
  if (status.etat === 'TERMINE') return 'bulk.detail.doneTitle'
  if (status.etat === 'ECHEC') return 'bulk.detail.failedTitle'
  return 'bulk.detail.runningTitle'
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const auth = await requireAdmin(request, context)
  const id = idParam(params.id)
  const form = await readForm(request)
  const here = `/pages/admin/import/${id}`
  const result = await auth.settle(
    auth.api.rest.bd.import[':id'].lancement.$post({
      param: { id },
      json: { invitation: form.get('invitation') === 'on' },
    }),
  )
  if (result.ok) return auth.redirectWithToast(here, { type: 'success', key: 'bulk.detail.started' })
  const message = apiMessage(result, 'errors.updateFailed')
  return auth.redirectWithToast(here, { type: 'error', key: message.key, values: message.values })
}

export default function ImportDetail() {
  const { status, page } = useLoaderData<typeof loader>()
  const { t } = useTranslation()
  useLiveWhileRunning(running(status))
  return (
    <div className="flex max-w-5xl flex-col gap-6">
      <div className="flex flex-col gap-2">
        <h1 className="break-words text-2xl font-semibold tracking-tight">
          {t(titleKey(status), { fichier: status.fichier })}
        </h1>
        {status.etat === 'APERCU' ? (
          <p className="max-w-prose text-sm text-muted-foreground">{t('bulk.detail.previewIntro')}</p>
        ) : null}
      </div>
      {status.motif ? <Alert variant="destructive">{status.motif}</Alert> : null}
      {running(status) ? <Progress status={status} /> : <Summary status={status} />}
      {status.etat === 'APERCU' && status.totalChangements > 0 ? <Changes status={status} /> : null}
      {status.etat === 'APERCU' ? <Launch status={status} /> : null}
      <Errors status={status} page={page} />
      <p>
        <Link
          className="inline-flex items-center gap-2 text-primary underline underline-offset-4"
          to="/pages/admin/import"
        >
          <FileUp aria-hidden className="size-4" />
          {t('bulk.detail.another')}
        </Link>
      </p>
    </div>
  )
}

/** With JavaScript, the page reads the import again every few seconds while it runs. */
function useLiveWhileRunning(live: boolean) {
  const { revalidate, state } = useRevalidator()
  useEffect(() => {
    if (!live || state !== 'idle') return
    const timer = setTimeout(revalidate, REFRESH_SECONDS * 1000)
    return () => clearTimeout(timer)
  }, [live, revalidate, state])
}

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

function Summary({ status }: { status: ImportStatus }) {
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

function Progress({ status }: { status: ImportStatus }) {
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

function Launch({ status }: { status: ImportStatus }) {
  const { t } = useTranslation()
  const pending = usePendingIntent(INTENT)
  return (
    <Card>
      <CardHeader>
        <CardTitle>{t('bulk.detail.start')}</CardTitle>
      </CardHeader>
      <CardContent>
        <Form method="post" className="flex flex-col gap-4">
          <input type="hidden" name="intent" value={INTENT} />
          {status.type === 'utilisateurs' ? (
            <div className="flex items-start gap-3">
              <input
                id="invitation"
                name="invitation"
                type="checkbox"
                aria-describedby="invitation-hint"
                className="mt-1 size-4 accent-primary"
              />
              <div className="flex flex-col">
                <label htmlFor="invitation" className="font-medium">
                  {t('bulk.detail.invitation')}
                </label>
                <span id="invitation-hint" className="text-sm text-muted-foreground">
                  {t('bulk.detail.invitationHint')}
                </span>
              </div>
            </div>
          ) : null}
          <div>
            <SubmitButton icon={Play} pending={pending} pendingLabel={t('bulk.detail.starting')}>
              {t('bulk.detail.start')}
            </SubmitButton>
          </div>
        </Form>
      </CardContent>
    </Card>
  )
}

/** What each change of an existing user will do, in words: "Nom : Dupont → Durand", "Devient administrateur"… */
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
function Changes({ status }: { status: ImportStatus }) {
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

function Errors({ status, page }: { status: ImportStatus; page: number }) {
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
