import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react'
import { Filter, Pencil, Send, Truck } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import type { DataTableColumn } from '~/components/data-table'
import { DataTable } from '~/components/data-table'
import { EmptyState } from '~/components/empty-state'
import { FormError } from '~/components/form-error'
import { Pagination } from '~/components/pagination'
import { SelectField } from '~/components/select-field'
import { SubmitButton } from '~/components/submit-button'
import { Button, buttonVariants } from '~/components/ui/button'
import {
  DELIVERIES_SHOWN,
  DELIVERY_ROW,
  EDIT_PANEL,
  EDIT_PARAM,
  FROM_LOG_PARAM,
  LOG_EDIT_LINK,
  RESEND_INTENT,
  STATE_PARAM,
  WEBHOOKS_PATH,
} from '~/features/machines/webhook'
import { webhookLogAction, webhookLogData } from '~/features/machines/webhook-log.server'
import { State } from '~/features/machines/webhook-rows'
import { requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { displayDateTime } from '~/lib/dates'
import { usePendingIntent } from '~/lib/form'
import { idParam } from '~/lib/id-param'
import { pageTitle, titleMeta } from '~/lib/title'
import {
  WEBHOOK_DELIVERY_STATES,
  type WebhookDelivery,
  type WebhookDeliveryState,
} from '../../worker-api/contract/machines/webhooks'

export const handle: BreadcrumbHandle = {
  breadcrumb: (data, t) => [
    { label: t('nav.webhooks'), to: WEBHOOKS_PATH },
    { label: (data as { webhook?: { url: string } } | undefined)?.webhook?.url ?? '' },
  ],
}
export const meta = titleMeta

/**
 * A subscription's delivery log (README, Webhooks): each event it was due, newest first, a page at a time, of one state
 * when the filter says: waiting (and when it is tried next), delivered (when), or given up; its attempts and the
 * receiver's last answer; "send again" on any of them.
 */
export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const id = idParam(params.id)
  const {
    auth,
    data: screen,
    t,
  } = await requireAdmin(request, context, { read: (auth) => webhookLogData(request, auth, id) })
  return data(
    { ...screen, title: pageTitle(t, t('webhooks.logTitle', { url: screen.webhook.url })) },
    { headers: await auth.headers() },
  )
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  return webhookLogAction(request, await requireAdmin(request, context), idParam(params.id))
}

export default function WebhookLog() {
  const { webhook, livraisons, total, page, etat } = useLoaderData<typeof loader>()
  const reply = useActionData<typeof action>()
  const { t } = useTranslation()
  const columns: DataTableColumn<WebhookDelivery>[] = [
    {
      id: 'evenement',
      header: t('webhooks.deliveries.event'),
      className: 'break-words',
      cell: (delivery) => (
        <>
          <span className="block font-mono text-sm">{delivery.evenement.type}</span>
          <span className="block text-xs text-muted-foreground">
            #{delivery.evenement.id} · {displayDateTime(delivery.evenement.date)}
          </span>
          {/* Narrower, the state and the answer ride under the event. */}
          <span className="mt-1 block sm:hidden">
            <DeliveryState delivery={delivery} />
          </span>
          <span className="mt-1 block text-xs xl:hidden">
            <Answer delivery={delivery} />
          </span>
        </>
      ),
    },
    {
      id: 'etat',
      header: t('webhooks.deliveries.state'),
      className: 'hidden sm:table-cell',
      cell: (delivery) => <DeliveryState delivery={delivery} />,
    },
    {
      id: 'tentatives',
      header: t('webhooks.deliveries.attempts'),
      className: 'hidden sm:table-cell tabular-nums text-right',
      cell: (delivery) => delivery.tentatives,
    },
    {
      id: 'reponse',
      header: t('webhooks.deliveries.answer'),
      className: 'hidden xl:table-cell break-words',
      cell: (delivery) => <Answer delivery={delivery} />,
    },
    {
      id: 'actions',
      header: <span className="sr-only">{t('webhooks.actions')}</span>,
      cell: (delivery) => <Resend delivery={delivery} />,
    },
  ]
  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div className="min-w-0">
          <h1 className="text-2xl font-semibold tracking-tight break-all">{webhook.url}</h1>
          <p className="text-muted-foreground">{t('webhooks.logIntro', { structure: webhook.structure.nom })}</p>
          {webhook.description ? <p className="break-words text-sm">{webhook.description}</p> : null}
          <p className="mt-2 flex flex-wrap items-center gap-2">
            <State webhook={webhook} />
            {webhook.actif ? null : <span className="text-sm text-muted-foreground">{t('webhooks.resendWaits')}</span>}
          </p>
        </div>
        <Link
          id={LOG_EDIT_LINK}
          to={`${WEBHOOKS_PATH}?${EDIT_PARAM}=${webhook.id}&${FROM_LOG_PARAM}=1#${EDIT_PANEL}`}
          className={buttonVariants({ variant: 'outline' })}
        >
          <Pencil aria-hidden />
          {t('webhooks.editSubscription')}
        </Link>
      </div>
      <FormError message={reply?.error ? t(reply.error.key, reply.error.values) : null} />
      <Form method="get" className="flex flex-wrap items-end gap-3">
        <div className="w-full min-w-0 sm:w-64">
          <SelectField
            label={t('webhooks.deliveries.filter')}
            options={[
              { value: '', label: t('webhooks.deliveries.all') },
              ...WEBHOOK_DELIVERY_STATES.map((value) => ({ value, label: t(`webhooks.deliveries.states.${value}`) })),
            ]}
            selectProps={{ id: 'livraisons-etat', name: STATE_PARAM, defaultValue: etat ?? '' }}
          />
        </div>
        <Button type="submit" variant="outline">
          <Filter aria-hidden />
          {t('webhooks.deliveries.apply')}
        </Button>
      </Form>
      <section aria-labelledby="livraisons-titre" className="flex min-w-0 flex-col gap-3">
        <h2 id="livraisons-titre" className="text-lg font-semibold">
          {t('webhooks.deliveries.count', { count: total })}
        </h2>
        <DataTable
          aria-labelledby="livraisons-titre"
          columns={columns}
          rows={livraisons}
          rowKey={(delivery) => delivery.id}
          rowAnchor={DELIVERY_ROW}
          empty={
            <EmptyState
              icon={Truck}
              title={t('webhooks.deliveries.empty')}
              description={t(etat ? 'webhooks.deliveries.emptyState' : 'webhooks.deliveries.emptyHint')}
            />
          }
        />
        <Pagination page={page} total={total} pageSize={DELIVERIES_SHOWN} />
      </section>
      <p className="text-sm">
        <Link to={WEBHOOKS_PATH} className="underline underline-offset-4">
          {t('webhooks.backToList')}
        </Link>
      </p>
    </div>
  )
}

/** Waiting (when next), delivered (when), or given up. */
function DeliveryState({ delivery }: { delivery: WebhookDelivery }) {
  const { t } = useTranslation()
  const tone: Record<WebhookDeliveryState, string> = {
    EN_ATTENTE: 'border-warning',
    LIVREE: 'border-primary/50',
    ABANDONNEE: 'border-destructive text-destructive',
  }
  const when =
    delivery.etat === 'LIVREE' && delivery.livreeLe
      ? t('webhooks.deliveries.deliveredAt', { date: displayDateTime(delivery.livreeLe) })
      : delivery.etat === 'EN_ATTENTE' && delivery.prochaineTentative
        ? t('webhooks.deliveries.nextAt', { date: displayDateTime(delivery.prochaineTentative) })
        : null
  return (
    <span className="flex flex-col gap-1">
      <span className={`w-fit rounded-full border px-2 py-0.5 text-xs font-medium ${tone[delivery.etat]}`}>
        {t(`webhooks.deliveries.states.${delivery.etat}`)}
      </span>
      {when ? <span className="text-xs text-muted-foreground">{when}</span> : null}
    </span>
  )
}

/** The receiver's last answer: its status, or why no answer came, and when. */
function Answer({ delivery }: { delivery: WebhookDelivery }) {
  const { t } = useTranslation()
  if (delivery.derniereTentative === null) {
    return <span className="text-muted-foreground">{t('webhooks.deliveries.notTried')}</span>
  }
  return (
    <span className="flex flex-col gap-0.5">
      <span>
        {delivery.dernierCode !== null
          ? t('webhooks.deliveries.status', { code: delivery.dernierCode })
          : t('webhooks.deliveries.noAnswer')}
        {delivery.derniereErreur ? (
          <span className="break-all text-muted-foreground"> — {delivery.derniereErreur}</span>
        ) : null}
      </span>
      <span className="text-xs text-muted-foreground">
        {t('webhooks.deliveries.triedAt', { date: displayDateTime(delivery.derniereTentative) })}
      </span>
    </span>
  )
}

/** "Send again": due at once, its attempts counted afresh. */
function Resend({ delivery }: { delivery: WebhookDelivery }) {
  const { t } = useTranslation()
  const pending = usePendingIntent(RESEND_INTENT, String(delivery.id))
  const label = t('webhooks.deliveries.resendLabel', { type: delivery.evenement.type, id: delivery.evenement.id })
  return (
    <Form method="post" preventScrollReset className="flex justify-end">
      <input type="hidden" name="id" value={delivery.id} />
      <SubmitButton
        name="intent"
        value={RESEND_INTENT}
        variant="ghost"
        size="sm"
        icon={Send}
        pending={pending}
        pendingLabel={t('webhooks.deliveries.resending')}
        aria-label={label}
      >
        <span aria-hidden className="hidden lg:inline">
          {t('webhooks.deliveries.resend')}
        </span>
      </SubmitButton>
    </Form>
  )
}
