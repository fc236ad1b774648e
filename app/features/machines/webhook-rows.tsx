import { Link } from '@remix-run/react'
import type { TFunction } from 'i18next'
import { KeyRound, ListChecks, Pencil } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import type { DataTableColumn } from '~/components/data-table'
import { RowDelete } from '~/components/row-delete'
import { RowPanelLink } from '~/components/row-panel-link'
import { buttonVariants } from '~/components/ui/button'
import { displayDateTime } from '~/lib/dates'
import { anchorId, FOCUS_FIELD, neighbourAnchor } from '~/lib/focus'
import { urlWith } from '~/lib/url'
import type { Webhook } from '../../../worker-api/contract/machines/webhooks'
import { DELETE_INTENT, EDIT_PANEL, EDIT_PARAM, RENEW_PANEL, RENEW_PARAM, ROW, WEBHOOKS_PATH } from './webhook'

/**
 * The rows of the webhooks' list (routes/pages.admin.webhooks.tsx): its columns, narrower screens carrying the hidden
 * ones under the address, and each row's actions (its delivery log, its edit and renewal panels, a confirmed
 * deletion); `deletion` and `deleteTexts` are also the page's confirmation panel without JavaScript.
 */
export function webhookRows(t: TFunction, { search, webhooks }: { search: string; webhooks: Webhook[] }) {
  const deletion = (webhook: Webhook) => ({
    intent: DELETE_INTENT,
    id: String(webhook.id),
    url: webhook.url,
    [FOCUS_FIELD]: neighbourAnchor(webhooks, webhook, ROW),
  })
  const deleteTexts = (webhook: Webhook) => ({
    title: t('webhooks.deleteTitle', { url: webhook.url }),
    description: t('webhooks.deleteConfirm'),
    confirmLabel: t('webhooks.delete'),
    pendingLabel: t('webhooks.deleting'),
  })
  const panelLink = (param: string, panel: string, webhook: Webhook) =>
    `${urlWith(search, { confirmer: null, id: null, [EDIT_PARAM]: null, [RENEW_PARAM]: null, [param]: String(webhook.id) })}#${panel}`

  const columns: DataTableColumn<Webhook>[] = [
    {
      id: 'url',
      header: t('webhooks.url'),
      className: 'break-all',
      cell: (webhook) => (
        <>
          <Link to={`${WEBHOOKS_PATH}/${webhook.id}`} className="block font-medium underline-offset-4 hover:underline">
            {webhook.url}
          </Link>
          {webhook.description ? (
            <span className="mt-1 block break-words text-sm text-muted-foreground">{webhook.description}</span>
          ) : null}
          <span className="mt-1 flex flex-wrap gap-1">
            <State webhook={webhook} />
          </span>
          {/* Narrower, the columns hidden ride under the address. */}
          <span className="mt-1 block break-words text-xs text-muted-foreground md:hidden">
            {webhook.structure.nom}
          </span>
          <span className="mt-1 block lg:hidden">
            <Events webhook={webhook} />
          </span>
        </>
      ),
    },
    {
      id: 'structure',
      header: t('webhooks.structure'),
      className: 'hidden md:table-cell break-words',
      cell: (webhook) => webhook.structure.nom,
    },
    {
      id: 'evenements',
      header: t('webhooks.events'),
      className: 'hidden lg:table-cell',
      cell: (webhook) => <Events webhook={webhook} />,
    },
    {
      id: 'actions',
      header: <span className="sr-only">{t('webhooks.actions')}</span>,
      cell: (webhook) => (
        <div className="flex flex-wrap justify-end gap-1">
          <Link
            to={`${WEBHOOKS_PATH}/${webhook.id}`}
            className={buttonVariants({ variant: 'ghost', size: 'sm' })}
            aria-label={t('webhooks.logLabel', { url: webhook.url })}
          >
            <ListChecks aria-hidden />
            <span aria-hidden className="hidden lg:inline">
              {t('webhooks.log')}
            </span>
          </Link>
          <RowPanelLink
            id={anchorId('modifier', webhook.id)}
            to={panelLink(EDIT_PARAM, EDIT_PANEL, webhook)}
            icon={Pencil}
            label={t('webhooks.editLabel', { url: webhook.url })}
            text={t('webhooks.edit')}
          />
          <RowPanelLink
            id={anchorId('secret', webhook.id)}
            to={panelLink(RENEW_PARAM, RENEW_PANEL, webhook)}
            icon={KeyRound}
            label={t('webhooks.renewLabel', { url: webhook.url })}
            text={t('webhooks.renew')}
          />
          <RowDelete
            anchor="supprimer"
            id={webhook.id}
            search={search}
            reset={{ [EDIT_PARAM]: null, [RENEW_PARAM]: null }}
            {...deleteTexts(webhook)}
            fields={deletion(webhook)}
            word={t('webhooks.delete')}
            name={t('webhooks.deleteLabel', { url: webhook.url })}
          />
        </div>
      ),
    },
  ]
  return { columns, deletion, deleteTexts }
}

/** On, switched off by hand, or stopped by the portal (and why, since when). */
export function State({ webhook }: { webhook: Webhook }) {
  const { t } = useTranslation()
  if (webhook.actif) {
    return (
      <span className="w-fit rounded-full border border-primary/50 px-2 py-0.5 text-xs font-medium">
        {t('webhooks.on')}
      </span>
    )
  }
  return (
    <span className="w-fit rounded-full border border-destructive px-2 py-0.5 text-xs font-medium text-destructive">
      {webhook.desactivation
        ? t(`webhooks.stopped.${webhook.desactivation.motif}`, { date: displayDateTime(webhook.desactivation.date) })
        : t('webhooks.off')}
    </span>
  )
}

/** The events it names, a family whole as its name. */
function Events({ webhook }: { webhook: Webhook }) {
  return (
    <span className="flex flex-wrap gap-1">
      {webhook.evenements.map((event) => (
        <span key={event} className="break-all rounded-full border px-2 py-0.5 font-mono text-xs">
          {event}
        </span>
      ))}
    </span>
  )
}
