import { useTranslation } from 'react-i18next'
import type { DevMailSummary } from '../../../worker-api/contract/dev'

export type { DevMailSummary }

export function DevMailStatus({ mail }: { mail: DevMailSummary }) {
  const { t } = useTranslation()
  if (mail.sentAt) return <span className="font-medium">{t('devMails.sent')}</span>
  if (mail.lastError) return <span className="text-destructive">{t('devMails.failed', { error: mail.lastError })}</span>
  return <span>{t('devMails.queued', { attempts: mail.attempts })}</span>
}
