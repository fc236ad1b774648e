import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { useActionData, useLoaderData, useLocation } from '@remix-run/react'
import { Plus, Webhook } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { AdminListPage } from '~/components/admin-list-page'
import { ConfirmPanel } from '~/components/confirm-dialog'
import { DataTable } from '~/components/data-table'
import { EmptyState } from '~/components/empty-state'
import { SearchForm } from '~/components/search-form'
import {
  CREATE_INTENT,
  CREATE_SECTION,
  DELETE_INTENT,
  EDIT_INTENT,
  EDIT_PARAM,
  FROM_LOG_PARAM,
  LOG_EDIT_LINK,
  logPath,
  RENEW_PARAM,
  type ReplyChoices,
  ROW,
  shownWebhookSecret,
} from '~/features/machines/webhook'
import { WebhookCreate } from '~/features/machines/webhook-form'
import { EditPanel, RenewPanel, WebhookSecretScreen } from '~/features/machines/webhook-panels'
import { webhookRows } from '~/features/machines/webhook-rows'
import { webhooksAction, webhooksData } from '~/features/machines/webhooks.server'
import { requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { anchorId } from '~/lib/focus'
import { type FormReply, posted } from '~/lib/form'
import { pageTitle, titleMeta } from '~/lib/title'
import { urlWith } from '~/lib/url'

export const handle: BreadcrumbHandle = { breadcrumb: 'nav.webhooks' }
export const meta = titleMeta

/**
 * The webhook subscriptions of the admin's scope (README, Webhooks): the addresses the portal posts its events to,
 * signed, each with its sub-tree, its events and whether it delivers (or why the portal stopped it); searched and paged
 * by the API; made below the list (its secret then shown once), changed (`?modifier=<id>`), given a new secret
 * (`?secret=<id>`, shown once) or deleted after a confirmation; each address leads to its delivery log.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const {
    auth,
    data: screen,
    t,
  } = await requireAdmin(request, context, { read: (auth) => webhooksData(request, auth) })
  return data({ ...screen, title: pageTitle(t, t('webhooks.title')) }, { headers: await auth.headers() })
}

export async function action({ request, context }: ActionFunctionArgs) {
  return webhooksAction(request, await requireAdmin(request, context))
}

type Answer = (FormReply & ReplyChoices) | undefined

export default function Webhooks() {
  const loaded = useLoaderData<typeof loader>()
  const answer = useActionData<typeof action>()
  const shown = shownWebhookSecret(answer)
  if (shown) return <WebhookSecretScreen shown={shown} />
  return <WebhooksList answer={answer as Answer} {...loaded} />
}

function WebhooksList({
  webhooks,
  total,
  page,
  q,
  choices,
  editing,
  renewing,
  constraint,
  editConstraint,
  answer,
}: ReturnType<typeof useLoaderData<typeof loader>> & { answer: Answer }) {
  const { t } = useTranslation()
  const { search } = useLocation()
  const params = new URLSearchParams(search)
  const confirming =
    params.get('confirmer') === DELETE_INTENT ? webhooks.find((w) => String(w.id) === params.get('id')) : undefined
  const { columns, deletion, deleteTexts } = webhookRows(t, { search, webhooks })
  const failed = answer?.intent === DELETE_INTENT && answer.error ? answer : null
  return (
    <div className="flex flex-col gap-8">
      <AdminListPage
        title={t('webhooks.title')}
        intro={t('webhooks.intro')}
        create={{ to: `${urlWith(search, {})}#${CREATE_SECTION}`, icon: Plus, label: t('webhooks.new') }}
        failure={
          failed?.error ? (
            <>
              <p className="font-medium">{t('webhooks.actionImpossible', { url: posted(failed, 'url') })}</p>
              <p>{t(failed.error.key, failed.error.values)}</p>
            </>
          ) : null
        }
        panels={
          <>
            {confirming ? (
              <ConfirmPanel
                cancelHref={urlWith(search, { confirmer: null, id: null })}
                returnTo={anchorId('supprimer', confirming.id)}
                {...deleteTexts(confirming)}
                fields={deletion(confirming)}
              />
            ) : null}
            {editing ? (
              <EditPanel
                // A refusal comes back with what was posted: the panel shows it, on its fields.
                key={answer?.intent === EDIT_INTENT ? 'again' : 'new'}
                webhook={editing}
                constraint={editConstraint}
                // Opened from its delivery log, back to it.
                cancelHref={params.has(FROM_LOG_PARAM) ? logPath(editing.id) : urlWith(search, { [EDIT_PARAM]: null })}
                returnTo={params.has(FROM_LOG_PARAM) ? LOG_EDIT_LINK : anchorId('modifier', editing.id)}
              />
            ) : null}
            {renewing ? (
              <RenewPanel
                key={answer ? 'again' : 'new'}
                webhook={renewing}
                cancelHref={urlWith(search, { [RENEW_PARAM]: null })}
                returnTo={anchorId('secret', renewing.id)}
              />
            ) : null}
          </>
        }
        search={<SearchForm label={t('webhooks.search')} />}
        count={t('webhooks.total', { count: total })}
        page={page}
        total={total}
      >
        <DataTable
          aria-label={t('webhooks.title')}
          columns={columns}
          rows={webhooks}
          rowKey={(webhook) => webhook.id}
          rowAnchor={ROW}
          empty={
            <EmptyState
              icon={Webhook}
              title={t('webhooks.empty')}
              description={q ? t('webhooks.emptySearch', { q }) : t('webhooks.emptyHint')}
            />
          }
        />
      </AdminListPage>
      <WebhookCreate
        choices={(answer?.intent === CREATE_INTENT ? answer.choices : undefined) ?? choices}
        constraint={constraint}
      />
    </div>
  )
}
