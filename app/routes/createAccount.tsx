import { useTranslation } from 'react-i18next'
import { PublicPage } from '~/components/public-page'

/** Carrier self-registration: the form arrives with the registration work. */
export default function CreateAccount() {
  const { t } = useTranslation()
  return (
    <PublicPage title={t('login.createAccount')}>
      <p className="text-muted-foreground">{t('common.comingSoon')}</p>
    </PublicPage>
  )
}
