import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { Form, Link, useLoaderData } from '@remix-run/react'
import { Download, FileUp } from 'lucide-react'
import { Fragment } from 'react'
import { useTranslation } from 'react-i18next'
import { DataTable, type DataTableColumn } from '~/components/data-table'
import { FormError } from '~/components/form-error'
import { SubmitButton } from '~/components/submit-button'
import { buttonVariants } from '~/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '~/components/ui/card'
import { Label } from '~/components/ui/label'
import { apiMessage, type Message } from '~/lib/api-errors'
import { requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { displayDateTime } from '~/lib/dates'
import { posted, useFormReply, usePendingIntent } from '~/lib/form'
import { formReply, submitted } from '~/lib/form.server'
import { pageTitle, titleMeta } from '~/lib/title'
import { streamedFile } from '~/lib/upload.server'
import { IMPORT_COLUMNS, IMPORT_TYPES, type ImportStatus, type ImportType } from '../../worker-api/contract/bulk/bulk'

export const handle: BreadcrumbHandle = { breadcrumb: 'nav.bulk' }
export const meta = titleMeta

const INTENT = 'apercu'

/**
 * Moving an organisation in (README, "Moving an organisation in"): the scope exported in the import's format, a file
 * uploaded for its preview (kept by the API, so that "Importer" needs no second upload), and the administrator's
 * latest imports. Works without JavaScript: the upload is a plain multipart form.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const {
    auth,
    data: imports,
    t,
  } = await requireAdmin(request, context, { read: (auth) => auth.expect(auth.api.rest.bd.import.$get()) })
  return data({ imports, title: pageTitle(t, t('bulk.title')) }, { headers: await auth.headers() })
}

const isImportType = (value: unknown): value is ImportType => IMPORT_TYPES.includes(value as ImportType)

/**
 * Sends the file for its preview (POST rest/bd/import with `essai` and `conserver`), then its page; a file refused comes
 * back as a `FormReply` with what was chosen and why (the file's own problem as the API says it).
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const auth = await requireAdmin(request, context)
  const failed = async (fields: ReadonlyMap<string, string>, error: Message) => {
    const form = new FormData()
    for (const [name, value] of fields) form.set(name, value)
    return formReply(INTENT, submitted(form).reply(), error, await auth.headers())
  }
  // The file goes on to the API as the browser sends it (the form puts the type first): the page never holds it.
  const streamed = await streamedFile(request, 'fichier', async (fields, file) => {
    const type = fields.get('type')
    if (!isImportType(type)) return { fields, result: null }
    const query = { type, essai: 'true', conserver: 'true', fichier: file.name.slice(0, 100) } as const
    const result = await auth.settle(
      auth.api.rest.bd.import.$post(
        { query },
        { init: { body: file.body, headers: { 'Content-Type': 'text/csv' } } as RequestInit },
      ),
    )
    return { fields, result }
  })
  if (streamed.kind === 'unreadable') return failed(streamed.fields, { key: 'bulk.upload.failed' })
  if (streamed.kind === 'noFile') {
    const chosen = isImportType(streamed.fields.get('type'))
    return failed(streamed.fields, { key: chosen ? 'bulk.upload.noFile' : 'bulk.upload.noKind' })
  }
  const { fields, result } = streamed.result
  if (!result) return failed(fields, { key: 'bulk.upload.noKind' })
  if (result.ok && result.data && 'id' in result.data && result.data.id) {
    return auth.redirectWithToast(`/pages/admin/import/${result.data.id}`, { type: 'success', key: 'bulk.upload.read' })
  }
  if (!result.ok && result.error.businessCode === 'VALIDATION_FAILED' && result.error.message) {
    // The file's own problem (no header, a wrong one, too many rows), said by the API in the user's language.
    return failed(fields, { key: 'bulk.upload.said', values: { text: result.error.message } })
  }
  return failed(fields, result.ok ? { key: 'bulk.upload.failed' } : apiMessage(result, 'bulk.upload.failed'))
}

export default function BulkImport() {
  const { imports } = useLoaderData<typeof loader>()
  const reply = useFormReply(INTENT)
  const pending = usePendingIntent(INTENT)
  const { t } = useTranslation()
  const error = reply?.error ? t(reply.error.key, reply.error.values) : null
  const chosen = posted(reply, 'type') || 'utilisateurs'
  return (
    <div className="flex max-w-5xl flex-col gap-6">
      <div className="flex flex-col gap-2">
        <h1 className="text-2xl font-semibold tracking-tight">{t('bulk.title')}</h1>
        <p className="max-w-prose text-sm text-muted-foreground">{t('bulk.intro')}</p>
      </div>
      <Card>
        <CardHeader>
          <CardTitle>{t('bulk.upload.title')}</CardTitle>
        </CardHeader>
        <CardContent>
          <Form method="post" encType="multipart/form-data" className="flex flex-col gap-5">
            <input type="hidden" name="intent" value={INTENT} />
            <FormError message={error} />
            <fieldset className="flex flex-col gap-3">
              <legend className="mb-2 text-sm font-medium">{t('bulk.upload.kind')}</legend>
              {IMPORT_TYPES.map((type) => (
                <div key={type} className="flex items-start gap-3">
                  <input
                    id={`type-${type}`}
                    type="radio"
                    name="type"
                    value={type}
                    required
                    defaultChecked={chosen === type}
                    aria-describedby={`type-${type}-hint`}
                    className="mt-1 size-4 accent-primary"
                  />
                  <div className="flex min-w-0 flex-col">
                    <label htmlFor={`type-${type}`} className="font-medium">
                      {t(`bulk.upload.${type}`)}
                    </label>
                    <span id={`type-${type}-hint`} className="text-sm text-muted-foreground">
                      {t('bulk.upload.columns')}{' '}
                      {IMPORT_COLUMNS[type].map((column, n) => (
                        <Fragment key={column}>
                          {n > 0 ? '; ' : null}
                          <code className="font-mono">{column}</code>
                        </Fragment>
                      ))}
                    </span>
                  </div>
                </div>
              ))}
            </fieldset>
            <div className="flex flex-col gap-2">
              <Label htmlFor="fichier">{t('bulk.upload.file')}</Label>
              <input
                id="fichier"
                name="fichier"
                type="file"
                accept=".csv,text/csv"
                required
                aria-describedby="fichier-hint"
                className="w-full max-w-md text-sm file:mr-3 file:rounded-md file:border file:border-input file:bg-background file:px-3 file:py-2 file:text-sm file:font-medium"
              />
              <p id="fichier-hint" className="text-sm text-muted-foreground">
                {t('bulk.upload.fileHint')}
              </p>
            </div>
            <div>
              <SubmitButton icon={FileUp} pending={pending} pendingLabel={t('bulk.upload.submitting')}>
                {t('bulk.upload.submit')}
              </SubmitButton>
            </div>
          </Form>
        </CardContent>
      </Card>
      <Card>
        <CardHeader>
          <CardTitle>{t('bulk.export.title')}</CardTitle>
          <CardDescription>{t('bulk.export.intro')}</CardDescription>
        </CardHeader>
        <CardContent className="flex flex-wrap gap-3">
          {IMPORT_TYPES.map((type) => (
            <a
              key={type}
              href={`/pages/admin/export/${type}.csv`}
              download
              className={buttonVariants({ variant: 'outline' })}
            >
              <Download aria-hidden />
              {t(`bulk.export.${type}`)}
            </a>
          ))}
        </CardContent>
      </Card>
      <section aria-labelledby="recent-imports" className="flex flex-col gap-3">
        <h2 id="recent-imports" className="text-lg font-semibold">
          {t('bulk.recent.title')}
        </h2>
        <RecentImports imports={imports} />
      </section>
    </div>
  )
}

function RecentImports({ imports }: { imports: ImportStatus[] }) {
  const { t } = useTranslation()
  // Three columns, each import's details stacked in its first: the list reads at 320 px.
  const columns: DataTableColumn<ImportStatus>[] = [
    {
      id: 'file',
      header: t('bulk.recent.file'),
      cell: (row) => (
        <div className="flex flex-col gap-1">
          <Link
            className="text-primary underline underline-offset-4 [overflow-wrap:anywhere]"
            to={`/pages/admin/import/${row.id}`}
          >
            {row.fichier}
          </Link>
          <span className="text-sm text-muted-foreground">
            {t(`bulk.kinds.${row.type}`)} · {displayDateTime(row.debut)}
          </span>
        </div>
      ),
    },
    { id: 'state', header: t('bulk.recent.state'), cell: (row) => t(`bulk.states.${row.etat}`) },
    {
      id: 'result',
      header: t('bulk.recent.result'),
      className: 'whitespace-normal',
      cell: (row) =>
        t('bulk.recent.counts', {
          lignes: row.lignes,
          creees: row.creees,
          modifiees: row.modifiees,
          erreurs: row.lignesEnErreur,
        }),
    },
  ]
  return (
    <DataTable
      columns={columns}
      rows={imports}
      rowKey={(row) => row.id}
      empty={<p className="text-sm text-muted-foreground">{t('bulk.recent.none')}</p>}
      aria-labelledby="recent-imports"
    />
  )
}
