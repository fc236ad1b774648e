import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import type { getZodConstraint } from '@conform-to/zod/v4'
import { Form } from '@remix-run/react'
import { Save } from 'lucide-react'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { FormError, formProblem } from '~/components/form-error'
import { FormPanel, FormPanelButtons } from '~/components/form-panel'
import { Label } from '~/components/ui/label'
import { Switch } from '~/components/ui/switch'
import { FOCUS_FIELD } from '~/lib/focus'
import { useFieldErrors, useFormReply, usePendingIntent } from '~/lib/form'
import { useHydrated } from '~/lib/hydrated'
import type { ServiceAccount } from '../../../worker-api/contract/machines/service-accounts'
import { EDIT_INTENT, EDIT_PANEL } from './service-account'
import type { ServiceAccountEditForm as Values } from './service-account-edit.server'
import { asList, KeysField, NameFields, ProofFields, ScopeFields } from './service-account-form'

/** A keys-only account: it signs in with its public keys (private_key_jwt), which the panel may replace. */
const keysOnly = (account: Pick<ServiceAccount, 'secret' | 'cles'>) => !account.secret && account.cles > 0

/**
 * Whether what the form holds widens the account as the API reads it (a scope added, new keys, switched on again):
 * for an administrator account, that asks for the proof of the person at the keyboard. A scope taken away does not.
 */
function widens(
  account: Pick<ServiceAccount, 'scopes' | 'actif'>,
  values: { scopes: string[]; actif: boolean; jwks: string },
) {
  const held: readonly string[] = account.scopes
  return (
    values.scopes.some((scope) => !held.includes(scope)) ||
    (values.actif && !account.actif) ||
    values.jwks.trim() !== ''
  )
}

/**
 * A row changed under the same client id (`?modifier=<id>`), a region of the page the same with and without
 * JavaScript: its name, description, scopes, whether it is on (off, refused at its next call), and for a keys-only
 * account new public keys (left empty, its keys stay). Widening an administrator account asks for the proof: once the
 * page is live the fields show when the change widens it (or the API asked for them); without JavaScript they are
 * always there, saying when they are needed. A refusal stays here, on its field.
 */
export function EditPanel({
  account,
  withCode,
  constraint,
  cancelHref,
  returnTo,
}: {
  account: ServiceAccount
  withCode: boolean
  constraint: ReturnType<typeof getZodConstraint>
  cancelHref: string
  /** The row's link that opened the panel: where focus comes back. */
  returnTo: string
}) {
  const { t } = useTranslation()
  const reply = useFormReply(EDIT_INTENT)
  const pending = usePendingIntent(EDIT_INTENT, String(account.id))
  const hydrated = useHydrated()
  const [form, fields] = useForm<Values>({
    id: 'modifier',
    lastResult: reply?.result,
    defaultValue: {
      nom: account.nom,
      description: account.description ?? '',
      scopes: account.scopes,
      actif: account.actif ? 'on' : '',
    },
    constraint,
    shouldValidate: 'onSubmit',
  })
  const shown = useFieldErrors(reply)
  const [widening, setWidening] = useState(() =>
    widens(account, {
      scopes: asList(fields.scopes.initialValue),
      actif: fields.actif.initialValue === 'on',
      jwks: String(fields.jwks.initialValue ?? ''),
    }),
  )
  const proofAsked = Boolean(reply?.result.error?.motDePasse || reply?.result.error?.code)
  const keys = keysOnly(account)
  const labels = {
    nom: t('serviceAccounts.nom'),
    description: t('serviceAccounts.description'),
    scopes: t('serviceAccounts.scopes'),
    actif: t('serviceAccounts.actif'),
    jwks: t('serviceAccounts.editJwks'),
    motDePasse: t('serviceAccounts.password'),
    code: t('serviceAccounts.code'),
  }
  return (
    <FormPanel
      id={EDIT_PANEL}
      title={t('serviceAccounts.editTitle', { nom: account.nom })}
      intro={t('serviceAccounts.editIntro')}
      className="min-w-0 scroll-mt-4"
    >
      <Form
        method="post"
        preventScrollReset
        {...getFormProps(form)}
        onInput={shown.onInput}
        onChange={(event) => {
          const data = new FormData(event.currentTarget)
          setWidening(
            widens(account, {
              scopes: data.getAll(fields.scopes.name).map(String),
              actif: data.get(fields.actif.name) === 'on',
              jwks: String(data.get(fields.jwks.name) ?? ''),
            }),
          )
        }}
        className="flex flex-col gap-4"
      >
        <input type="hidden" name="intent" value={EDIT_INTENT} />
        <input type="hidden" name="id" value={account.id} />
        <input type="hidden" name="ancienNom" value={account.nom} />
        <input type="hidden" name={FOCUS_FIELD} value={returnTo} />
        <FormError message={formProblem(t, reply, labels)} />
        <NameFields nom={fields.nom} description={fields.description} shown={shown} labels={labels} />
        <div className="flex items-start gap-3">
          <Switch
            {...getInputProps(fields.actif, { type: 'checkbox' })}
            id={fields.actif.id}
            aria-describedby={`${fields.actif.id}-hint`}
          />
          <div className="flex min-w-0 flex-col">
            <Label htmlFor={fields.actif.id}>{labels.actif}</Label>
            <p id={`${fields.actif.id}-hint`} className="text-xs text-muted-foreground">
              {t('serviceAccounts.actifHint')}
            </p>
          </div>
        </div>
        <ScopeFields
          idPrefix="modifier"
          name={fields.scopes.name}
          checked={asList(fields.scopes.initialValue)}
          errors={shown.errors(fields.scopes)}
        />
        {keys ? (
          <KeysField
            field={fields.jwks}
            label={labels.jwks}
            hint={t('serviceAccounts.editJwksHint', { count: account.cles })}
            shown={shown}
          />
        ) : null}
        {account.admin && (!hydrated || widening || proofAsked) ? (
          <ProofFields
            idPrefix="modifier"
            withCode={withCode}
            required={hydrated && widening}
            hint={t(withCode ? 'serviceAccounts.editProofHint' : 'serviceAccounts.editProofHintPassword')}
            errors={{ motDePasse: shown.errors(fields.motDePasse), code: shown.errors(fields.code) }}
          />
        ) : null}
        <FormPanelButtons
          icon={Save}
          label={t('serviceAccounts.editSubmit')}
          pendingLabel={t('serviceAccounts.saving')}
          pending={pending}
          cancelHref={`${cancelHref}#${returnTo}`}
        />
      </Form>
    </FormPanel>
  )
}
