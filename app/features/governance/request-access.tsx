import { Form } from '@remix-run/react'
import { Send } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { AppIcon } from '~/components/app-icon'
import { ConfirmDialog, ConfirmPanel } from '~/components/confirm-dialog'
import { DateRangeInput } from '~/components/date-range-input'
import { FieldMessages, fieldMessages } from '~/components/field'
import { FormError } from '~/components/form-error'
import { SubmitButton } from '~/components/submit-button'
import { Card } from '~/components/ui/card'
import { Label } from '~/components/ui/label'
import { Textarea } from '~/components/ui/textarea'
import { displayDate } from '~/lib/dates'
import { anchorId } from '~/lib/focus'
import { posted, useFieldErrors, useFormReply, usePendingIntent } from '~/lib/form'
import { urlWith } from '~/lib/url'
import { addDays, toWireDate } from '../../../worker-api/contract/dates'
import type { OwnRequest, Requestable } from '../../../worker-api/contract/governance/access-requests'
import type { RequestIntent } from './request-access.server'

/** The no-JavaScript confirmation of a withdrawal: `?confirmer=retrait&id=<request>`. */
const WITHDRAW = 'retrait'
const CARD_GRID = 'grid grid-cols-[repeat(auto-fill,minmax(min(100%,18rem),1fr))] gap-4'

/**
 * "Autres applications" on "Mes accès": the demandable applications the user cannot launch, each with its request
 * waiting (and the way to withdraw it) or the form that asks for it — a disclosure, the same with and without
 * JavaScript, opened again with what was typed when the request is refused.
 */
export function OtherApplications({
  requestable,
  search,
  today,
}: {
  requestable: Requestable[]
  search: string
  today: string
}) {
  const { t } = useTranslation()
  const withdrawn = useFormReply<RequestIntent>('withdraw')
  const asked = useFormReply<RequestIntent>('request')
  if (requestable.length === 0) return null
  // A refusal shows on its application's form; one that names no application of the page (a hand-made post, or one
  // that is no longer demandable) and a refused withdrawal show above the cards.
  const onNoForm =
    asked && !requestable.some((item) => !item.demande && posted(asked, 'application') === String(item.application.id))
  const error = withdrawn?.error ?? (onNoForm ? asked.error : null)
  const params = new URLSearchParams(search)
  const confirming =
    params.get('confirmer') === WITHDRAW
      ? requestable.find((item) => String(item.demande?.id) === params.get('id'))
      : undefined
  return (
    <section aria-labelledby="other-applications" className="flex flex-col gap-3">
      <div>
        <h2 id="other-applications" className="text-lg font-semibold">
          {t('requests.otherTitle')}
        </h2>
        <p className="text-sm text-muted-foreground">{t('requests.otherIntro')}</p>
      </div>
      {error ? <FormError message={t(error.key, error.values)} /> : null}
      {confirming?.demande ? (
        <ConfirmPanel
          cancelHref={urlWith(search, { confirmer: null, id: null })}
          returnTo={anchorId('retirer', confirming.demande.id)}
          {...withdrawal(t, confirming)}
        />
      ) : null}
      <ul className={CARD_GRID}>
        {requestable.map((item) => (
          <li key={item.application.id}>
            <Card className="flex h-full flex-col gap-3 p-4">
              <div className="flex items-center gap-4">
                <span className="flex size-12 shrink-0 items-center justify-center rounded-lg bg-muted text-muted-foreground">
                  <AppIcon name={item.application.icone} className="size-6" />
                </span>
                <h3 className="min-w-0 flex-1 font-medium break-words">{item.application.libelle}</h3>
              </div>
              {item.demande ? <PendingRequest item={item} search={search} /> : <AskForm item={item} today={today} />}
            </Card>
          </li>
        ))}
      </ul>
    </section>
  )
}

/** The confirmation of withdrawing an application's waiting request. */
function withdrawal(t: (key: string, values?: Record<string, unknown>) => string, item: Requestable) {
  const name = item.application.libelle
  return {
    title: t('requests.withdrawTitle', { name }),
    description: t('requests.withdrawConfirm'),
    confirmLabel: t('requests.withdraw'),
    pendingLabel: t('requests.withdrawing'),
    fields: { intent: 'withdraw', id: String(item.demande?.id ?? ''), application: String(item.application.id) },
  }
}

function PendingRequest({ item, search }: { item: Requestable; search: string }) {
  const { t } = useTranslation()
  const demande = item.demande
  if (!demande) return null
  return (
    <div className="flex flex-col gap-2 text-sm" role="status">
      <p className="font-medium">{t('requests.pending', { date: displayDate(demande.dateDemande) })}</p>
      <p className="text-muted-foreground">
        {t('requests.pendingPeriod', { from: demande.dateDebut, to: demande.dateFin, expiry: demande.expiration })}
      </p>
      <div>
        <ConfirmDialog
          id={anchorId('retirer', demande.id)}
          fallbackHref={urlWith(search, { confirmer: WITHDRAW, id: String(demande.id) })}
          {...withdrawal(t, item)}
        >
          <span className="sr-only">{t('requests.withdrawLabel', { name: item.application.libelle })}</span>
          <span aria-hidden>{t('requests.withdraw')}</span>
        </ConfirmDialog>
      </div>
    </div>
  )
}

/** The request of one application; the page's last reply is its own when it names this application. */
function AskForm({ item, today }: { item: Requestable; today: string }) {
  const { t } = useTranslation()
  const id = item.application.id
  const pending = usePendingIntent('request', String(id))
  const last = useFormReply<RequestIntent>('request')
  const reply = posted(last, 'application') === String(id) ? last : undefined
  const shown = useFieldErrors(reply)
  const errors = shown.of
  const motifId = `motif-${id}`
  const motif = fieldMessages(motifId, t('requests.reasonHint'), errors('motif'))
  const lastDay = Math.min(item.dureeMaxJours, 30) - 1
  return (
    <details open={reply !== undefined} className="group">
      <summary className="inline-flex cursor-pointer items-center rounded-md border border-input bg-card px-3 py-1.5 text-sm font-medium hover:bg-accent focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring">
        <span aria-hidden>{t('requests.ask')}</span>
        <span className="sr-only">{t('requests.askLabel', { name: item.application.libelle })}</span>
      </summary>
      <Form method="post" className="mt-3 flex flex-col gap-3" onInput={shown.onInput}>
        <input type="hidden" name="intent" value="request" />
        <input type="hidden" name="application" value={id} />
        <input type="hidden" name="id" value={id} />
        <FormError message={reply?.error ? t(reply.error.key, reply.error.values) : null} />
        <div className="flex flex-col gap-1.5">
          <Label htmlFor={motifId}>{t('requests.reason')}</Label>
          <Textarea
            id={motifId}
            name="motif"
            rows={3}
            required
            minLength={3}
            maxLength={500}
            defaultValue={posted(reply, 'motif')}
            aria-invalid={motif.invalid || undefined}
            aria-describedby={motif.describedBy}
          />
          <FieldMessages id={motifId} hint={t('requests.reasonHint')} errors={errors('motif')} />
        </div>
        <DateRangeInput
          legend={t('requests.period')}
          className="[&_.grid]:sm:grid-cols-1"
          start={{
            name: 'dateDebut',
            id: `debut-${id}`,
            label: t('requests.from'),
            defaultValue: reply ? posted(reply, 'dateDebut') : toWireDate(today),
            errors: errors('dateDebut'),
            required: true,
          }}
          end={{
            name: 'dateFin',
            id: `fin-${id}`,
            label: t('requests.to'),
            defaultValue: reply ? posted(reply, 'dateFin') : toWireDate(addDays(today, lastDay)),
            errors: errors('dateFin'),
            required: true,
          }}
        />
        <p className="text-xs text-muted-foreground">{t('requests.periodHint', { count: item.dureeMaxJours })}</p>
        <div>
          <SubmitButton icon={Send} size="sm" pending={pending} pendingLabel={t('requests.sending')}>
            {t('requests.send')}
          </SubmitButton>
        </div>
      </Form>
    </details>
  )
}

/** The user's latest decided requests: granted, refused (with why), withdrawn or expired. */
export function RequestHistory({ requests }: { requests: OwnRequest[] }) {
  const { t } = useTranslation()
  if (requests.length === 0) return null
  return (
    <section aria-labelledby="request-history" className="flex flex-col gap-3">
      <h2 id="request-history" className="text-lg font-semibold">
        {t('requests.historyTitle')}
      </h2>
      <ul className="flex flex-col divide-y rounded-lg border bg-card">
        {requests.map((request) => (
          <li key={request.id} className="flex flex-col gap-1 p-4 text-sm">
            <span className="font-medium break-words">{request.application.libelle}</span>
            <span>
              {t('requests.decidedOn', {
                state: t(`requests.states.${request.etat}`),
                date: displayDate(request.dateDecision ?? request.dateDemande),
              })}
              {' · '}
              <span className="tabular-nums text-muted-foreground">
                {request.dateDebut} → {request.dateFin}
              </span>
            </span>
            {request.etat === 'REFUSEE' && request.commentaire ? (
              <span className="break-words text-muted-foreground">
                {t('requests.refusalReason', { reason: request.commentaire })}
              </span>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  )
}
