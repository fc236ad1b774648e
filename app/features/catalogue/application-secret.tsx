import { Link } from '@remix-run/react'
import { TriangleAlert } from 'lucide-react'
import { useEffect, useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { CopyField } from '~/components/copy-field'
import { Alert } from '~/components/ui/alert'
import { buttonVariants } from '~/components/ui/button'
import { Card, CardContent } from '~/components/ui/card'
import type { ShownSecret } from './client-secret'

const WARNING = 'client-secret-warning'

/**
 * A client's secret, shown this once: the answer of the save or the renewal that made it (the portal
 * keeps only its SHA-256). What was done, the warning that it will not be shown again, the client's id
 * and secret to copy, and the way back. Focus moves to its heading as it replaces the form.
 */
export function SecretScreen({ shown }: { shown: ShownSecret }) {
  const { t } = useTranslation()
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => heading.current?.focus(), [])
  const { libelle, id } = shown.application
  return (
    <div className="flex flex-col gap-6">
      <h1 ref={heading} tabIndex={-1} className="text-2xl font-semibold tracking-tight focus:outline-none">
        {t('applications.oidc.secretTitle', { libelle })}
      </h1>
      <Alert variant="success" role="status">
        {t(`applications.oidc.${shown.event}`, { libelle })}
      </Alert>
      <Card className="min-w-0">
        <CardContent className="flex flex-col gap-4 pt-6">
          <Alert id={WARNING} className="flex items-start gap-2 border-warning bg-warning/10 font-medium">
            <TriangleAlert aria-hidden className="mt-0.5 size-4 shrink-0" />
            <span>{t('applications.oidc.secretOnce')}</span>
          </Alert>
          <CopyField
            id="client-id"
            label={t('applications.oidc.clientId')}
            value={shown.clientId}
            copyLabel={t('applications.oidc.copyClientId')}
          />
          <CopyField
            id="client-secret"
            label={t('applications.oidc.clientSecret')}
            value={shown.clientSecret}
            copyLabel={t('applications.oidc.copySecret')}
            describedBy={WARNING}
          />
        </CardContent>
      </Card>
      <div className="flex flex-wrap gap-2">
        <Link to="/pages/admin/applications" className={buttonVariants()}>
          {t('applications.oidc.toCatalogue')}
        </Link>
        <Link to={`/pages/admin/applications/${id}`} className={buttonVariants({ variant: 'outline' })}>
          {t('applications.oidc.toApplication')}
        </Link>
      </div>
    </div>
  )
}
