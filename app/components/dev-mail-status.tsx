import { useTranslation } from 'react-i18next'
import type { DevMailSummary } from '../../worker-api/contract/dev'

const display = new Intl.DateTimeFormat('fr-FR', {
  timeZone: 'Europe/Paris',
  day: '2-digit',
  month: '2-digit',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
})

/** Spec §9 display format, DD/MM/YYYY HH:mm, in the organisation's time zone. */
export const displayDateTime = (iso: string) => display.format(new Date(iso)).replace(',', '')

export type { DevMailSummary }

export function DevMailStatus({ mail }: { mail: DevMailSummary }) {
  const { t } = useTranslation()
  if (mail.sentAt) return <span className="font-medium">{t('devMails.sent')}</span>
  if (mail.lastError) return <span className="text-destructive">{t('devMails.failed', { error: mail.lastError })}</span>
  return <span>{t('devMails.queued', { attempts: mail.attempts })}</span>
}
