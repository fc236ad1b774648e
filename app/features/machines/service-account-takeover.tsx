import { Form } from '@remix-run/react'
import { UserCheck } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { FormError } from '~/components/form-error'
import { FormPanel, FormPanelButtons } from '~/components/form-panel'
import { translateError } from '~/lib/api-errors'
import { useFormReply, usePendingIntent } from '~/lib/form'
import type { ServiceAccount } from '../../../worker-api/contract/machines/service-accounts'
import { TAKEOVER_INTENT, TAKEOVER_PANEL } from './service-account'
import { ProofFields } from './service-account-form'

/**
 * A row taken over by the administrator at the keyboard (`?reprendre=<id>`), a region of the page the same with and
 * without JavaScript: what it does (the account acts for them; a secret is renewed, shown once, the former ones
 * stopped), and for an administrator account the proof of the person at the keyboard. A refusal stays here.
 */
export function TakeOverPanel({
  account,
  withCode,
  cancelHref,
  returnTo,
}: {
  account: Pick<ServiceAccount, 'id' | 'nom' | 'clientId' | 'admin' | 'secret'>
  withCode: boolean
  cancelHref: string
  /** The row's link that opened the panel: where focus comes back. */
  returnTo: string
}) {
  const { t } = useTranslation()
  const reply = useFormReply(TAKEOVER_INTENT)
  const pending = usePendingIntent(TAKEOVER_INTENT, String(account.id))
  const said = reply?.result.error ?? {}
  const errors = (name: string) => said[name]?.map((error) => translateError(t, error))
  return (
    <FormPanel
      id={TAKEOVER_PANEL}
      title={t('serviceAccounts.takeOverTitle', { nom: account.nom })}
      intro={t(account.secret ? 'serviceAccounts.takeOverIntro' : 'serviceAccounts.takeOverIntroKeys')}
      className="scroll-mt-4"
    >
      <Form method="post" preventScrollReset className="flex flex-col gap-4">
        <input type="hidden" name="intent" value={TAKEOVER_INTENT} />
        <input type="hidden" name="id" value={account.id} />
        <input type="hidden" name="nom" value={account.nom} />
        <input type="hidden" name="clientId" value={account.clientId} />
        <input type="hidden" name="admin" value={String(account.admin)} />
        <FormError message={reply?.error ? t(reply.error.key, reply.error.values) : null} />
        {account.admin ? (
          <ProofFields
            idPrefix="reprise"
            withCode={withCode}
            required
            errors={{ motDePasse: errors('motDePasse'), code: errors('code') }}
          />
        ) : null}
        <FormPanelButtons
          icon={UserCheck}
          label={t('serviceAccounts.takeOverSubmit')}
          pendingLabel={t('serviceAccounts.takingOver')}
          pending={pending}
          cancelHref={`${cancelHref}#${returnTo}`}
        />
      </Form>
    </FormPanel>
  )
}
