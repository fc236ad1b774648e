import { Form, Link } from '@remix-run/react'
import { KeyRound, TriangleAlert } from 'lucide-react'
import { useEffect, useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { CopyField } from '~/components/copy-field'
import { FormError } from '~/components/form-error'
import { FormPanel, FormPanelButtons } from '~/components/form-panel'
import { Alert } from '~/components/ui/alert'
import { buttonVariants } from '~/components/ui/button'
import { Card, CardContent } from '~/components/ui/card'
import { CHECKBOX } from '~/components/ui/checkbox'
import { Label } from '~/components/ui/label'
import { translateError } from '~/lib/api-errors'
import { displayDateTime } from '~/lib/dates'
import { useFormReply, usePendingIntent } from '~/lib/form'
import { PREVIOUS_SECRET_HOURS, type ServiceAccount } from '../../../worker-api/contract/machines/service-accounts'
import { RENEW_INTENT, RENEW_PANEL, type ShownServiceSecret } from './service-account'
import { ProofFields } from './service-account-form'

const WARNING = 'service-secret-warning'

/** Where the screen lives, and where the credentials' page leads back. */
export const SERVICE_ACCOUNTS_PATH = '/pages/admin/comptesService'

/**
 * A service account's credentials, shown this once: what was done, the warning that the secret will
 * not be shown again, the client id and secret to copy (the client id alone for an account that signs
 * with its keys), and the way back. Focus moves to its heading as it replaces the page.
 */
export function ServiceSecretScreen({ shown }: { shown: ShownServiceSecret }) {
  const { t } = useTranslation()
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => heading.current?.focus(), [])
  const { nom } = shown
  const done =
    shown.event === 'created'
      ? t('serviceAccounts.created', { nom })
      : `${t(
          shown.event === 'takenOver'
            ? 'serviceAccounts.takenOver'
            : shown.event === 'handedOver'
              ? 'serviceAccounts.handedOver'
              : 'serviceAccounts.renewed',
          { nom },
        )} ${
          shown.ancienSecretExpire
            ? t('serviceAccounts.previousKept', { date: displayDateTime(shown.ancienSecretExpire) })
            : t('serviceAccounts.previousRevoked')
        }`
  return (
    <div className="flex flex-col gap-6">
      <h1 ref={heading} tabIndex={-1} className="text-2xl font-semibold tracking-tight focus:outline-none">
        {t('serviceAccounts.secretTitle', { nom })}
      </h1>
      <Alert variant="success" role="status">
        {done}
      </Alert>
      <Card className="min-w-0">
        <CardContent className="flex flex-col gap-4 pt-6">
          {shown.clientSecret ? (
            <Alert id={WARNING} className="flex items-start gap-2 border-warning bg-warning/10 font-medium">
              <TriangleAlert aria-hidden className="mt-0.5 size-4 shrink-0" />
              <span>{t('serviceAccounts.secretOnce')}</span>
            </Alert>
          ) : (
            <p className="text-sm">{t('serviceAccounts.keysOnly')}</p>
          )}
          <CopyField
            id="service-client-id"
            label={t('serviceAccounts.clientId')}
            value={shown.clientId}
            copyLabel={t('applications.oidc.copyClientId')}
          />
          {shown.clientSecret ? (
            <CopyField
              id="service-client-secret"
              label={t('serviceAccounts.clientSecret')}
              value={shown.clientSecret}
              copyLabel={t('applications.oidc.copySecret')}
              describedBy={WARNING}
            />
          ) : null}
        </CardContent>
      </Card>
      <div>
        <Link to={SERVICE_ACCOUNTS_PATH} className={buttonVariants()}>
          {t('serviceAccounts.backToList')}
        </Link>
      </div>
    </div>
  )
}

/**
 * A row's new secret (`?secret=<id>`), a region of the page the same with and without JavaScript:
 * whether the former secret stops at once (else it works a day more, the time to deploy the new one),
 * and for an administrator account the proof of the person at the keyboard. A refusal stays here,
 * on its field.
 */
export function RenewPanel({
  account,
  withCode,
  cancelHref,
  returnTo,
}: {
  account: Pick<ServiceAccount, 'id' | 'nom' | 'clientId' | 'admin'>
  withCode: boolean
  cancelHref: string
  /** The row's link that opened the panel: where focus comes back. */
  returnTo: string
}) {
  const { t } = useTranslation()
  const reply = useFormReply(RENEW_INTENT)
  const pending = usePendingIntent(RENEW_INTENT, String(account.id))
  const said = reply?.result.error ?? {}
  const errors = (name: string) => said[name]?.map((error) => translateError(t, error))
  return (
    <FormPanel
      id={RENEW_PANEL}
      title={t('serviceAccounts.renewTitle', { nom: account.nom })}
      intro={t('serviceAccounts.renewIntro', { hours: PREVIOUS_SECRET_HOURS })}
      className="scroll-mt-4"
    >
      <Form method="post" preventScrollReset className="flex flex-col gap-4">
        <input type="hidden" name="intent" value={RENEW_INTENT} />
        <input type="hidden" name="id" value={account.id} />
        <input type="hidden" name="nom" value={account.nom} />
        <input type="hidden" name="clientId" value={account.clientId} />
        <input type="hidden" name="admin" value={String(account.admin)} />
        <FormError message={reply?.error ? t(reply.error.key, reply.error.values) : null} />
        <div className="flex flex-col gap-1.5">
          <div className="flex items-start gap-2">
            <input
              type="checkbox"
              id="secret-revoquer"
              name="revoquerAncien"
              defaultChecked={reply?.result.initialValue?.revoquerAncien === 'on'}
              aria-describedby="secret-revoquer-hint"
              className={CHECKBOX}
            />
            <Label htmlFor="secret-revoquer">{t('serviceAccounts.revoke')}</Label>
          </div>
          <p id="secret-revoquer-hint" className="text-xs text-muted-foreground">
            {t('serviceAccounts.revokeHint')}
          </p>
        </div>
        {account.admin ? (
          <ProofFields
            idPrefix="secret"
            withCode={withCode}
            required
            errors={{ motDePasse: errors('motDePasse'), code: errors('code') }}
          />
        ) : null}
        <FormPanelButtons
          icon={KeyRound}
          label={t('serviceAccounts.renewSubmit')}
          pendingLabel={t('serviceAccounts.renewing')}
          pending={pending}
          cancelHref={`${cancelHref}#${returnTo}`}
        />
      </Form>
    </FormPanel>
  )
}
