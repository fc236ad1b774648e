import { useLocation } from '@remix-run/react'
import type { TFunction } from 'i18next'
import { KeyRound } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { ConfirmDialog, ConfirmPanel } from '~/components/confirm-dialog'
import { CopyField } from '~/components/copy-field'
import { FormError } from '~/components/form-error'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '~/components/ui/card'
import { useFormReply } from '~/lib/form'
import { urlWith } from '~/lib/url'
import { RENEW_CONFIRM, RENEW_INTENT } from './client-secret'

type Application = { id: number; libelle: string }

/** The id of the renewal's trigger, where focus comes back when its confirmation is cancelled. */
const TRIGGER = 'renouveler-secret'

/**
 * An OpenID Connect application's client as the portal made it, on its edit page: its id (read-only,
 * to copy), whether it is public or confidential, and for a confidential one the renewal of its secret
 * (never readable again once shown), after a confirmation.
 */
export function ClientCard({
  application,
  client,
}: {
  application: Application
  client: { clientId: string; public: boolean }
}) {
  const { t } = useTranslation()
  const { pathname, search } = useLocation()
  const failed = useFormReply(RENEW_INTENT)
  return (
    <Card className="min-w-0">
      <CardHeader>
        <CardTitle>{t('applications.oidc.credentials')}</CardTitle>
        <CardDescription>
          {t(client.public ? 'applications.oidc.publicIntro' : 'applications.oidc.confidentialIntro')}
        </CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-4">
        <FormError message={failed?.error ? t(failed.error.key, failed.error.values) : null} />
        <CopyField
          id="application-client-id"
          label={t('applications.oidc.clientId')}
          value={client.clientId}
          copyLabel={t('applications.oidc.copyClientId')}
        />
        {client.public ? null : (
          <div className="flex flex-col items-start gap-2">
            <p className="text-sm text-muted-foreground">{t('applications.oidc.secretLost')}</p>
            <ConfirmDialog
              id={TRIGGER}
              fallbackHref={urlWith(search, RENEW_CONFIRM)}
              triggerSize="default"
              {...renewal(t, application, pathname, search)}
            >
              <KeyRound aria-hidden />
              {t('applications.oidc.renew')}
            </ConfirmDialog>
          </div>
        )}
        <p className="text-xs text-muted-foreground">{t('applications.oidc.toCode')}</p>
      </CardContent>
    </Card>
  )
}

/** The renewal's confirmation without JavaScript (`?confirmer=secret`), at the top of the edit page. */
export function RenewPanel({ application }: { application: Application }) {
  const { t } = useTranslation()
  const { pathname, search } = useLocation()
  return (
    <ConfirmPanel
      cancelHref={urlWith(search, { confirmer: null })}
      returnTo={TRIGGER}
      {...renewal(t, application, pathname, search)}
    />
  )
}

/** What the renewal asks and posts, the same in the dialog and in the panel. */
function renewal(t: TFunction, application: Application, pathname: string, search: string) {
  return {
    title: t('applications.oidc.renewTitle', { libelle: application.libelle }),
    description: t('applications.oidc.renewConfirm'),
    confirmLabel: t('applications.oidc.renew'),
    pendingLabel: t('applications.oidc.renewing'),
    // Posted to the page without its confirmation: a failure shows the page, its message in the card.
    action: `${pathname}${urlWith(search, { confirmer: null })}`,
    fields: { intent: RENEW_INTENT, libelle: application.libelle },
  }
}
