import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/cloudflare'
import { Link, useLoaderData } from '@remix-run/react'
import { MailOpen } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { DataTable, type DataTableColumn } from '~/components/data-table'
import { EmptyState } from '~/components/empty-state'
import { LanguageSwitch } from '~/components/language-switch'
import { DevMailStatus, type DevMailSummary } from '~/features/demo/dev-mail-status'
import { requireDevelopment } from '~/features/demo/dev-mailbox.server'
import { publicApi, read } from '~/lib/api.server'
import { displayDateTime } from '~/lib/dates'

export const meta: MetaFunction = () => [{ title: 'Mails · Portail (dev)' }]

/** The development mailbox: every mail of the outbox, newest first (DESIGN §5). */
export async function loader({ request, context }: LoaderFunctionArgs) {
  requireDevelopment(context)
  const mails = await read(publicApi(request, context).rest.dev.mails.$get())
  if (!mails.ok) throw new Response(mails.error.businessCode, { status: mails.status })
  return { mails: mails.data }
}

export default function DevMailbox() {
  const { mails } = useLoaderData<typeof loader>()
  const { t } = useTranslation()
  const columns: DataTableColumn<DevMailSummary>[] = [
    {
      id: 'date',
      header: t('devMails.date'),
      cell: (mail) => displayDateTime(mail.createdAt),
      className: 'whitespace-nowrap tabular-nums',
    },
    { id: 'to', header: t('devMails.to'), cell: (mail) => mail.to },
    {
      id: 'subject',
      header: t('devMails.subject'),
      cell: (mail) => (
        <Link className="text-primary underline-offset-4 hover:underline" to={`/dev/mails/${mail.id}`}>
          {mail.subject}
        </Link>
      ),
    },
    { id: 'status', header: t('devMails.status'), cell: (mail) => <DevMailStatus mail={mail} /> },
  ]
  return (
    <main id="main" className="mx-auto flex max-w-5xl flex-col gap-4 p-6">
      <h1 className="text-2xl font-semibold tracking-tight">{t('devMails.title')}</h1>
      <p className="text-sm text-muted-foreground">{t('devMails.intro')}</p>
      {/* The card's border around the table's own scroll container. */}
      <div className={mails.length > 0 ? 'overflow-hidden rounded-lg border bg-card' : undefined}>
        <DataTable
          aria-label={t('devMails.title')}
          columns={columns}
          rows={mails}
          rowKey={(mail) => mail.id}
          empty={<EmptyState icon={MailOpen} title={t('devMails.empty')} />}
        />
      </div>
      <LanguageSwitch />
    </main>
  )
}
