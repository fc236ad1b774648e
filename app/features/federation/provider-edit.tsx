import { getFormProps, useForm } from '@conform-to/react'
import type { getZodConstraint } from '@conform-to/zod/v4'
import { Form } from '@remix-run/react'
import { Save } from 'lucide-react'
import type { ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { EnterSubmits } from '~/components/enter-submits'
import { FormError, formProblem } from '~/components/form-error'
import { FormPanel, FormPanelButtons } from '~/components/form-panel'
import { displayDateTime } from '~/lib/dates'
import { FOCUS_FIELD } from '~/lib/focus'
import { useFieldErrors, useFormReply, usePendingIntent } from '~/lib/form'
import type { Fournisseur } from '../../../worker-api/contract/federation/providers'
import type { StructureChoices } from '../organisation/structure-choice'
import { EDIT_FORM, EDIT_INTENT, EDIT_PANEL, EDIT_SEARCH_INTENT, type ProviderAddresses } from './provider'
import type { ProviderForm as Values } from './provider-fields.server'
import { ProviderFields, useProviderLabels } from './provider-form'

/**
 * A row changed (`?modifier=<id>`), a region of the page the same with and without JavaScript: the provider's form
 * filled in as it is (its secret never: left empty, the one set stays), and what the portal read of its discovery
 * document, which the save reads again. A refusal stays here, on its field.
 */
export function EditPanel({
  provider,
  choices,
  constraint,
  addresses,
  cancelHref,
  returnTo,
}: {
  provider: Fournisseur
  choices: StructureChoices
  constraint: ReturnType<typeof getZodConstraint>
  addresses: ProviderAddresses
  cancelHref: string
  /** The row's link that opened the panel: where focus comes back. */
  returnTo: string
}) {
  const { t } = useTranslation()
  const reply = useFormReply(EDIT_INTENT)
  const pending = usePendingIntent(EDIT_INTENT, String(provider.id))
  const [form, fields] = useForm<Values>({
    id: EDIT_FORM,
    lastResult: reply?.result,
    defaultValue: {
      nom: provider.nom,
      issuer: provider.issuer,
      clientId: provider.clientId,
      authentification: provider.authentification,
      scopes: provider.scopes,
      domaines: provider.domaines.join(', '),
      premiereConnexion: provider.premiereConnexion,
      structure: provider.structure ? provider.structure.id : undefined,
      confianceMfa: provider.confianceMfa ? 'on' : '',
      affiche: provider.affiche ? 'on' : '',
      actif: provider.actif ? 'on' : '',
    },
    constraint,
    shouldValidate: 'onSubmit',
  })
  const shown = useFieldErrors(reply)
  const labels = useProviderLabels()
  return (
    <FormPanel
      id={EDIT_PANEL}
      title={t('fournisseurs.editTitle', { nom: provider.nom })}
      intro={t('fournisseurs.editIntro')}
      className="min-w-0 scroll-mt-4"
    >
      <Discovery provider={provider} />
      <Form
        method="post"
        preventScrollReset
        {...getFormProps(form)}
        onInput={shown.onInput}
        className="flex flex-col gap-4"
      >
        <EnterSubmits intent={EDIT_INTENT} disabled={pending}>
          {t('fournisseurs.editSubmit')}
        </EnterSubmits>
        <input type="hidden" name="id" value={provider.id} />
        <input type="hidden" name="ancienNom" value={provider.nom} />
        <input type="hidden" name={FOCUS_FIELD} value={returnTo} />
        <FormError message={formProblem(t, reply, labels)} />
        <ProviderFields
          formId={EDIT_FORM}
          fields={fields}
          shown={shown}
          labels={labels}
          choices={choices}
          searchIntent={EDIT_SEARCH_INTENT}
          addresses={addresses}
          secretHint={t(provider.secretDefini ? 'fournisseurs.secretKeptHint' : 'fournisseurs.secretNoneHint')}
        />
        {/* After the fields: without JavaScript, the structures' search button before it names its own intent first. */}
        <input type="hidden" name="intent" value={EDIT_INTENT} />
        <FormPanelButtons
          icon={Save}
          label={t('fournisseurs.editSubmit')}
          pendingLabel={t('fournisseurs.saving')}
          pending={pending}
          cancelHref={`${cancelHref}#${returnTo}`}
        />
      </Form>
    </FormPanel>
  )
}

/** What the portal read of the provider's discovery document (read-only: the issuer's document decides it). */
function Discovery({ provider }: { provider: Fournisseur }) {
  const { t } = useTranslation()
  const read = provider.decouverte
  const none = <span className="text-muted-foreground">{t('fournisseurs.discovery.none')}</span>
  const list = (values: string[]) => (values.length > 0 ? values.join(', ') : none)
  const rows: [string, ReactNode][] = [
    [t('fournisseurs.discovery.authorization'), read.authorizationEndpoint || none],
    [t('fournisseurs.discovery.token'), read.tokenEndpoint || none],
    [t('fournisseurs.discovery.jwks'), read.jwksUri || none],
    [t('fournisseurs.discovery.endSession'), read.endSessionEndpoint ?? none],
    [t('fournisseurs.discovery.methods'), list(read.authentifications)],
    [t('fournisseurs.discovery.algorithms'), list(read.algorithmes)],
    [t('fournisseurs.discovery.readAt'), displayDateTime(read.lueLe)],
  ]
  return (
    <section aria-labelledby={`${EDIT_PANEL}-decouverte`} className="flex min-w-0 flex-col gap-2 rounded-md border p-4">
      <h3 id={`${EDIT_PANEL}-decouverte`} className="text-sm font-medium">
        {t('fournisseurs.discovery.title')}
      </h3>
      <dl className="grid gap-x-4 gap-y-2 text-sm sm:grid-cols-[max-content_minmax(0,1fr)]">
        {rows.map(([term, value]) => (
          <div key={term} className="contents">
            <dt className="text-muted-foreground">{term}</dt>
            <dd className="min-w-0 break-all font-mono text-xs sm:text-sm">{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  )
}
