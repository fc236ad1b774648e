import type { LoaderFunctionArgs, MetaFunction } from '@remix-run/cloudflare'
import { Link, useLoaderData } from '@remix-run/react'
import { useTranslation } from 'react-i18next'
import { DevMailStatus } from '~/features/demo/dev-mail-status'
import { requireDevelopment } from '~/features/demo/dev-mailbox.server'
import { publicApi, read } from '~/lib/api.server'
import { displayDateTime } from '~/lib/dates'
import { idParam } from '~/lib/id-param'
import { API_BASE } from '../../worker-api/contract/base'

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.mail.subject ?? 'Mail'} · Portail (dev)` },
]

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  requireDevelopment(context)
  const id = idParam(params.id)
  const mail = await read(publicApi(request, context).rest.dev.mails[':id{[0-9]+}'].$get({ param: { id: String(id) } }))
  if (!mail.ok) throw new Response(mail.error.businessCode, { status: mail.status })
  const { html: _html, ...rest } = mail.data
  return { mail: rest }
}

/** One mail: its links (to follow them from here), the HTML as sent (framed, sandboxed) and the text. */
export default function DevMailView() {
  const { mail } = useLoaderData<typeof loader>()
  const { t } = useTranslation()
  return (
    <main id="main" className="mx-auto flex max-w-5xl flex-col gap-4 p-6">
      <Link className="text-sm text-primary underline-offset-4 hover:underline" to="/dev/mails">
        {t('devMails.back')}
      </Link>
      <h1 className="text-2xl font-semibold tracking-tight">{mail.subject}</h1>
      <dl className="grid gap-x-4 gap-y-1 text-sm sm:grid-cols-[8rem_1fr]">
        <dt className="text-muted-foreground">{t('devMails.to')}</dt>
        <dd>{mail.to}</dd>
        <dt className="text-muted-foreground">{t('devMails.date')}</dt>
        <dd className="tabular-nums">{displayDateTime(mail.createdAt)}</dd>
        <dt className="text-muted-foreground">{t('devMails.status')}</dt>
        <dd>
          <DevMailStatus mail={mail} />
        </dd>
      </dl>
      {mail.links.length > 0 ? (
        <section aria-labelledby="mail-links" className="flex flex-col gap-1">
          <h2 id="mail-links" className="font-semibold">
            {t('devMails.links')}
          </h2>
          <ul className="text-sm">
            {mail.links.map((link) => (
              <li key={link} className="break-all">
                <a className="text-primary underline-offset-4 hover:underline" href={link}>
                  {link}
                </a>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <section aria-labelledby="mail-html" className="flex flex-col gap-2">
        <h2 id="mail-html" className="font-semibold">
          {t('devMails.htmlVersion')}
        </h2>
        <iframe
          title={t('devMails.htmlVersion')}
          src={`${API_BASE}/rest/dev/mails/${mail.id}/html`}
          sandbox="allow-popups allow-popups-to-escape-sandbox"
          className="h-[32rem] w-full rounded-lg border bg-white"
        />
      </section>
      <details className="rounded-lg border bg-card p-3">
        <summary className="cursor-pointer font-semibold">{t('devMails.textVersion')}</summary>
        <pre className="mt-2 whitespace-pre-wrap text-sm">{mail.text}</pre>
      </details>
    </main>
  )
}
