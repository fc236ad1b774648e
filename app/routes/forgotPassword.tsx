import { useTranslation } from 'react-i18next'
import { PublicPage } from '~/components/public-page'

/** Forgotten password: the form arrives with the account self-service work. */
export default function ForgotPassword() {
  const { t } = useTranslation()
  return (
    <PublicPage title={t('login.forgotPassword')}>
      <p className="text-muted-foreground">{t('common.comingSoon')}</p>
    </PublicPage>
  )
}
