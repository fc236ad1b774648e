import { Link } from '@remix-run/react'
import { Bot } from 'lucide-react'
import { useId } from 'react'
import { useTranslation } from 'react-i18next'
import { accountsActingFor, type StoppingAccounts } from './stopping-accounts'

/**
 * What a confirmation says of the service accounts it stops (demoting an administrator, ending their last current post,
 * deleting them): each account's name and structure, how many more, and the service accounts' page where they are
 * handed to another administrator. Nothing when none would stop.
 */
export function StoppingAccountsNote({
  stopping,
  userId,
  name,
}: {
  stopping: StoppingAccounts | null
  userId: number
  /** The administrator's name, as the confirmation says it. */
  name: string
}) {
  const { t } = useTranslation()
  const headingId = useId()
  if (!stopping || stopping.total === 0) return null
  const more = stopping.total - stopping.accounts.length
  return (
    <section
      aria-labelledby={headingId}
      className="flex flex-col gap-2 rounded-md border border-warning/60 bg-warning/10 p-3 text-sm"
    >
      <h3 id={headingId} className="flex items-start gap-2 font-medium">
        <Bot aria-hidden className="mt-0.5 size-4 shrink-0" />
        {t('serviceAccounts.stopping.title', { count: stopping.total, name })}
      </h3>
      <ul className="list-disc pl-5 [overflow-wrap:anywhere]">
        {stopping.accounts.map((account) => (
          <li key={account.id}>
            {t('serviceAccounts.stopping.line', { nom: account.nom, structure: account.structure.nom })}
          </li>
        ))}
      </ul>
      {more > 0 ? <p>{t('serviceAccounts.stopping.more', { count: more })}</p> : null}
      <p>
        <Link to={accountsActingFor(userId)} className="font-medium underline underline-offset-4">
          {t('serviceAccounts.stopping.handOver', { count: stopping.total })}
        </Link>
      </p>
    </section>
  )
}
