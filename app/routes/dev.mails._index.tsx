import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/cloudflare'
import { Link, useLoaderData } from '@remix-run/react'
import { useTranslation } from 'react-i18next'
import { DevMailStatus, displayDateTime } from '~/components/dev-mail-status'
import { LanguageSwitch } from '~/components/language-switch'
import { publicApi, read } from '~/lib/api.server'
import { requireDevelopment } from '~/lib/dev-mailbox.server'

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
  return (
    <main id="main" className="mx-auto flex max-w-5xl flex-col gap-4 p-6">
      <h1 className="text-2xl font-semibold tracking-tight">{t('devMails.title')}</h1>
      <p className="text-sm text-muted-foreground">{t('devMails.intro')}</p>
      {mails.length === 0 ? (
        <p>{t('devMails.empty')}</p>
      ) : (
        <div className="overflow-x-auto rounded-lg border bg-card">
          <table className="w-full text-left text-sm">
            <thead className="border-b text-muted-foreground">
              <tr>
                <th scope="col" className="p-3 font-normal">
                  {t('devMails.date')}
                </th>
                <th scope="col" className="p-3 font-normal">
                  {t('devMails.to')}
                </th>
                <th scope="col" className="p-3 font-normal">
                  {t('devMails.subject')}
                </th>
                <th scope="col" className="p-3 font-normal">
                  {t('devMails.status')}
                </th>
              </tr>
            </thead>
            <tbody>
              {mails.map((mail) => (
                <tr key={mail.id} className="border-b last:border-0">
                  <td className="p-3 whitespace-nowrap tabular-nums">{displayDateTime(mail.createdAt)}</td>
                  <td className="p-3">{mail.to}</td>
                  <td className="p-3">
                    <Link className="text-primary underline-offset-4 hover:underline" to={`/dev/mails/${mail.id}`}>
                      {mail.subject}
                    </Link>
                  </td>
                  <td className="p-3">
                    <DevMailStatus mail={mail} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <LanguageSwitch />
    </main>
  )
}
