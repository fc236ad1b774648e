import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { Form, Link, useLoaderData, useRevalidator } from '@remix-run/react'
import { FileUp, Play } from 'lucide-react'
import { useEffect } from 'react'
import { useTranslation } from 'react-i18next'
import { SubmitButton } from '~/components/submit-button'
import { Alert } from '~/components/ui/alert'
import { Card, CardContent, CardHeader, CardTitle } from '~/components/ui/card'
import { Changes, Errors, Progress, Summary } from '~/features/bulk/import-status'
import { apiMessage } from '~/lib/api-errors'
import { requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { usePendingIntent } from '~/lib/form'
import { readForm } from '~/lib/form.server'
import { idParam } from '~/lib/id-param'
import { readPage } from '~/lib/pagination'
import { pageTitle, titleMeta } from '~/lib/title'
import type { ImportStatus } from '../../worker-api/contract/bulk/bulk'

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
