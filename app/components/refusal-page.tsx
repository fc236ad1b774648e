import { Link } from '@remix-run/react'
import { useTranslation } from 'react-i18next'
import { Alert } from '~/components/ui/alert'
import type { Message } from '~/lib/api-errors'

/**
 * What a sign-in page for an application (OpenID Connect, SAML) shows when it does not go on: why, and the way back to
 * the portal.
 */
export function RefusalPage({ title, message }: { title: string; message: Message }) {
  const { t } = useTranslation()
  return (
    <main className="mx-auto max-w-lg p-6">
      <h1 className="mb-4 font-semibold text-xl">{title}</h1>
      <Alert variant="destructive" role="alert">
        {t(message.key, message.values)}
      </Alert>
      <Link to="/pages/user/acces" className="mt-4 inline-block text-primary underline">
        {t('demoApp.backToPortal')}
      </Link>
    </main>
  )
}
