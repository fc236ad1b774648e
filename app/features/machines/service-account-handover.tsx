import { Form } from '@remix-run/react'
import { Send } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { FormError } from '~/components/form-error'
import { FormPanel, FormPanelButtons } from '~/components/form-panel'
import { SearchForm } from '~/components/search-form'
import { SelectField } from '~/components/select-field'
import { translateError } from '~/lib/api-errors'
import { posted, useFormReply, usePendingIntent } from '~/lib/form'
import type { ServiceAccount, ServiceHeir } from '../../../worker-api/contract/machines/service-accounts'
import { HANDOVER_INTENT, HANDOVER_PANEL, HEIR_SEARCH_PARAM } from './service-account'
import { ProofFields } from './service-account-form'

/**
 * A row handed to another administrator of its structure (`?confier=<id>`), a region of the page the same with and
 * without JavaScript: the administrators it may go to in a select (the first ones by name, the others found by a
 * search of the URL, `?administrateur=`), what it does (the account acts for them; its secret renewed, shown once here
 * for the caller to pass on, the former ones stopped), and for an administrator account the proof of the person at the
 * keyboard. A refusal stays here, on its field.
 */
export function HandOverPanel({
  account,
  heirs,
  total,
  search,
  withCode,
  cancelHref,
  returnTo,
}: {
  account: Pick<ServiceAccount, 'id' | 'nom' | 'clientId' | 'admin' | 'secret' | 'structure'>
  heirs: ServiceHeir[]
  /** How many administrators match, `heirs` the first of them. */
  total: number
  search: string
  withCode: boolean
  cancelHref: string
  /** The row's link that opened the panel: where focus comes back. */
  returnTo: string
}) {
  const { t } = useTranslation()
  const reply = useFormReply(HANDOVER_INTENT)
  const pending = usePendingIntent(HANDOVER_INTENT, String(account.id))
  const said = reply?.result.error ?? {}
  const errors = (name: string) => said[name]?.map((error) => translateError(t, error))
  const chosen = posted(reply, 'utilisateur')
  const none = heirs.length === 0
  return (
    <FormPanel
      id={HANDOVER_PANEL}
      title={t('serviceAccounts.handOverTitle', { nom: account.nom })}
      intro={t(account.secret ? 'serviceAccounts.handOverIntro' : 'serviceAccounts.handOverIntroKeys', {
        structure: account.structure.nom,
      })}
      className="scroll-mt-4"
    >
      {total > heirs.length || search ? (
        <SearchForm
          label={t('serviceAccounts.handOverSearch')}
          name={HEIR_SEARCH_PARAM}
          // The list's own page stays as it is.
          pageParam="_"
          className="max-w-md"
        />
      ) : null}
      <Form method="post" preventScrollReset className="flex flex-col gap-4">
        <input type="hidden" name="intent" value={HANDOVER_INTENT} />
        <input type="hidden" name="id" value={account.id} />
        <input type="hidden" name="nom" value={account.nom} />
        <input type="hidden" name="clientId" value={account.clientId} />
        <input type="hidden" name="admin" value={String(account.admin)} />
        <FormError message={reply?.error ? t(reply.error.key, reply.error.values) : null} />
        {/* Keyed by what was posted, so that a refusal shows the administrator chosen. */}
        <div className="max-w-md" key={chosen}>
          <SelectField
            label={t('serviceAccounts.handOverTo')}
            hint={
              none
                ? t(search ? 'serviceAccounts.handOverNoneFound' : 'serviceAccounts.handOverNone', {
                    structure: account.structure.nom,
                  })
                : total > heirs.length
                  ? t('serviceAccounts.handOverFirst', { count: heirs.length, total })
                  : undefined
            }
            errors={errors('utilisateur')}
            placeholder={t('serviceAccounts.handOverChoose')}
            options={heirs.map((heir) => ({
              value: String(heir.id),
              label: [heir.prenom, heir.nom].filter(Boolean).join(' '),
            }))}
            selectProps={{
              id: 'confier-utilisateur',
              name: 'utilisateur',
              required: true,
              disabled: none,
              defaultValue: chosen,
            }}
          />
        </div>
        {account.admin ? (
          <ProofFields
            idPrefix="confier"
            withCode={withCode}
            required
            errors={{ motDePasse: errors('motDePasse'), code: errors('code') }}
          />
        ) : null}
        <FormPanelButtons
          icon={Send}
          label={t('serviceAccounts.handOverSubmit')}
          pendingLabel={t('serviceAccounts.handingOver')}
          pending={pending}
          cancelHref={`${cancelHref}#${returnTo}`}
        />
      </Form>
    </FormPanel>
  )
}
