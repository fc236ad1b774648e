import { getFormProps, useForm } from '@conform-to/react'
import type { getZodConstraint } from '@conform-to/zod/v4'
import { Form, Link } from '@remix-run/react'
import { KeyRound, Save, TriangleAlert } from 'lucide-react'
import { useEffect, useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { CopyField } from '~/components/copy-field'
import { EnterSubmits } from '~/components/enter-submits'
import { FormError, formProblem } from '~/components/form-error'
import { FormPanel, FormPanelButtons } from '~/components/form-panel'
import { Alert } from '~/components/ui/alert'
import { buttonVariants } from '~/components/ui/button'
import { Card, CardContent } from '~/components/ui/card'
import { CHECKBOX } from '~/components/ui/checkbox'
import { Label } from '~/components/ui/label'
import { displayDateTime } from '~/lib/dates'
import { FOCUS_FIELD } from '~/lib/focus'
import { useFieldErrors, useFormReply, usePendingIntent } from '~/lib/form'
import { PREVIOUS_SECRET_HOURS } from '../../../worker-api/contract/machines/service-accounts'
import type { Webhook } from '../../../worker-api/contract/machines/webhooks'
import {
  EDIT_FORM,
  EDIT_INTENT,
  EDIT_PANEL,
  RENEW_INTENT,
  RENEW_PANEL,
  type ShownWebhookSecret,
  WEBHOOKS_PATH,
} from './webhook'
import type { WebhookForm as Values } from './webhook-fields.server'
import { useWebhookLabels, WebhookFields } from './webhook-form'

const WARNING = 'webhook-secret-warning'

/**
 * A subscription's secret, shown this once: what was done, the warning that it will not be shown again, the secret to
 * copy, and the way back. Focus moves to its heading as it replaces the page.
 */
export function WebhookSecretScreen({ shown }: { shown: ShownWebhookSecret }) {
  const { t } = useTranslation()
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => heading.current?.focus(), [])
  const done =
    shown.event === 'created'
      ? t('webhooks.created', { url: shown.url })
      : `${t('webhooks.renewed', { url: shown.url })} ${
          shown.ancienSecretExpire
            ? t('webhooks.previousKept', { date: displayDateTime(shown.ancienSecretExpire) })
            : t('webhooks.previousRevoked')
        }`
  return (
    <div className="flex flex-col gap-6">
      <h1 ref={heading} tabIndex={-1} className="text-2xl font-semibold tracking-tight break-all focus:outline-none">
        {t('webhooks.secretTitle', { url: shown.url })}
      </h1>
      <Alert variant="success" role="status">
        {done}
      </Alert>
      <Card className="min-w-0">
        <CardContent className="flex flex-col gap-4 pt-6">
          <Alert id={WARNING} className="flex items-start gap-2 border-warning bg-warning/10 font-medium">
            <TriangleAlert aria-hidden className="mt-0.5 size-4 shrink-0" />
            <span>{t('webhooks.secretOnce')}</span>
          </Alert>
          <CopyField
            id="webhook-secret"
            label={t('webhooks.secret')}
            value={shown.secret}
            copyLabel={t('webhooks.copySecret')}
            describedBy={WARNING}
          />
          <p className="text-sm text-muted-foreground">{t('webhooks.secretUse')}</p>
        </CardContent>
      </Card>
      <div>
        <Link to={WEBHOOKS_PATH} className={buttonVariants()}>
          {t('webhooks.backToList')}
        </Link>
      </div>
    </div>
  )
}

/**
 * A row changed (`?modifier=<id>`), a region of the page the same with and without JavaScript: its address, events,
 * description, and whether it delivers (switched on again, one the portal stopped delivers once more). A refusal stays
 * here, on its field.
 */
export function EditPanel({
  webhook,
  constraint,
  cancelHref,
  returnTo,
}: {
  webhook: Webhook
  constraint: ReturnType<typeof getZodConstraint>
  cancelHref: string
  /** The row's link that opened the panel: where focus comes back. */
  returnTo: string
}) {
  const { t } = useTranslation()
  const reply = useFormReply(EDIT_INTENT)
  const pending = usePendingIntent(EDIT_INTENT, String(webhook.id))
  const [form, fields] = useForm<Values>({
    id: EDIT_FORM,
    lastResult: reply?.result,
    defaultValue: {
      url: webhook.url,
      description: webhook.description ?? '',
      evenements: webhook.evenements,
      actif: webhook.actif ? 'on' : '',
    },
    constraint,
    shouldValidate: 'onSubmit',
  })
  const shown = useFieldErrors(reply)
  const labels = useWebhookLabels()
  return (
    <FormPanel
      id={EDIT_PANEL}
      title={t('webhooks.editTitle', { url: webhook.url })}
      intro={t('webhooks.editIntro', { structure: webhook.structure.nom })}
      className="min-w-0 scroll-mt-4"
    >
      <Form
        method="post"
        preventScrollReset
        {...getFormProps(form)}
        onInput={shown.onInput}
        className="flex flex-col gap-4"
      >
        <EnterSubmits intent={EDIT_INTENT} disabled={pending}>
          {t('webhooks.editSubmit')}
        </EnterSubmits>
        <input type="hidden" name="intent" value={EDIT_INTENT} />
        <input type="hidden" name="id" value={webhook.id} />
        <input type="hidden" name="ancienneUrl" value={webhook.url} />
        <input type="hidden" name="actifAvant" value={String(webhook.actif)} />
        <input type="hidden" name={FOCUS_FIELD} value={returnTo} />
        <FormError message={formProblem(t, reply, labels)} />
        <WebhookFields formId={EDIT_FORM} fields={fields} shown={shown} labels={labels} />
        <FormPanelButtons
          icon={Save}
          label={t('webhooks.editSubmit')}
          pendingLabel={t('webhooks.saving')}
          pending={pending}
          cancelHref={`${cancelHref}#${returnTo}`}
        />
      </Form>
    </FormPanel>
  )
}

/**
 * A row's new secret (`?secret=<id>`), a region of the page the same with and without JavaScript: whether the former
 * secret stops at once (else it signs beside the new one a day more, the time to deploy the new one on the receiver).
 */
export function RenewPanel({
  webhook,
  cancelHref,
  returnTo,
}: {
  webhook: Pick<Webhook, 'id' | 'url'>
  cancelHref: string
  returnTo: string
}) {
  const { t } = useTranslation()
  const reply = useFormReply(RENEW_INTENT)
  const pending = usePendingIntent(RENEW_INTENT, String(webhook.id))
  return (
    <FormPanel
      id={RENEW_PANEL}
      title={t('webhooks.renewTitle', { url: webhook.url })}
      intro={t('webhooks.renewIntro', { hours: PREVIOUS_SECRET_HOURS })}
      className="min-w-0 scroll-mt-4"
    >
      <Form method="post" preventScrollReset className="flex flex-col gap-4">
        <input type="hidden" name="intent" value={RENEW_INTENT} />
        <input type="hidden" name="id" value={webhook.id} />
        <input type="hidden" name="url" value={webhook.url} />
        <FormError message={reply?.error ? t(reply.error.key, reply.error.values) : null} />
        <div className="flex flex-col gap-1.5">
          <div className="flex items-start gap-2">
            <input
              type="checkbox"
              id="webhook-revoquer"
              name="revoquerAncien"
              defaultChecked={reply?.result.initialValue?.revoquerAncien === 'on'}
              aria-describedby="webhook-revoquer-hint"
              className={CHECKBOX}
            />
            <Label htmlFor="webhook-revoquer">{t('webhooks.revoke')}</Label>
          </div>
          <p id="webhook-revoquer-hint" className="text-xs text-muted-foreground">
            {t('webhooks.revokeHint', { hours: PREVIOUS_SECRET_HOURS })}
          </p>
        </div>
        <FormPanelButtons
          icon={KeyRound}
          label={t('webhooks.renewSubmit')}
          pendingLabel={t('webhooks.renewing')}
          pending={pending}
          cancelHref={`${cancelHref}#${returnTo}`}
        />
      </Form>
    </FormPanel>
  )
}
