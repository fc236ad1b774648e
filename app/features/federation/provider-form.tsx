import { type FieldMetadata, getFormProps, getInputProps, getSelectProps, useForm } from '@conform-to/react'
import type { getZodConstraint } from '@conform-to/zod/v4'
import { Form, useNavigation } from '@remix-run/react'
import { Plus } from 'lucide-react'
import { useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { CheckboxField } from '~/components/checkbox-field'
import { CopyField } from '~/components/copy-field'
import { EnterSubmits } from '~/components/enter-submits'
import { Field, FieldMessages, fieldMessages } from '~/components/field'
import { FormError, formProblem } from '~/components/form-error'
import { SelectField } from '~/components/select-field'
import { SubmitButton } from '~/components/submit-button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '~/components/ui/card'
import { CHECKBOX } from '~/components/ui/checkbox'
import { Label } from '~/components/ui/label'
import { type FieldErrors, useFieldErrors, useFormReply, usePendingIntent } from '~/lib/form'
import { useHydrated } from '~/lib/hydrated'
import { AUTHENTIFICATIONS, PREMIERES_CONNEXIONS } from '../../../worker-api/contract/federation/providers'
import type { StructureChoices } from '../organisation/structure-choice'
import { StructureSelect } from '../organisation/structure-select'
import {
  CREATE_FORM,
  CREATE_INTENT,
  CREATE_SECTION,
  DEFAULT_SCOPES,
  type ProviderAddresses,
  SEARCH_INTENT,
} from './provider'
import type { ProviderForm as Values } from './provider-fields.server'

type Fields = ReturnType<typeof useForm<Values>>[1]

/** The form's labels, by field: the fields and the form's message ("check Name, Issuer") say the same. */
export function useProviderLabels() {
  const { t } = useTranslation()
  return {
    nom: t('fournisseurs.nom'),
    issuer: t('fournisseurs.issuer'),
    clientId: t('fournisseurs.clientId'),
    authentification: t('fournisseurs.authentification'),
    secret: t('fournisseurs.secret'),
    scopes: t('fournisseurs.scopes'),
    domaines: t('fournisseurs.domaines'),
    premiereConnexion: t('fournisseurs.premiereConnexion'),
    structure: t('fournisseurs.structure'),
    confianceMfa: t('fournisseurs.confianceMfa'),
    affiche: t('fournisseurs.affiche'),
    actif: t('fournisseurs.actif'),
  }
}

/**
 * The form that registers a provider: what the portal is at the provider (the addresses to declare there, its client
 * id and how it proves itself), what it asks for, the domains it answers for, what a first sign-in does, and whether
 * its button shows. Its secret is never shown again, nor sent back with a refusal. Once a provider is registered the
 * form starts afresh for the next one (a new one, its choices as well as its fields).
 */
export function ProviderCreate(props: CreateProps) {
  const [round, setRound] = useState(0)
  return <CreateCard key={round} {...props} onSaved={() => setRound((n) => n + 1)} />
}

type CreateProps = {
  choices: StructureChoices
  constraint: ReturnType<typeof getZodConstraint>
  addresses: ProviderAddresses
}

function CreateCard({ choices, constraint, addresses, onSaved }: CreateProps & { onSaved: () => void }) {
  const { t } = useTranslation()
  const reply = useFormReply(CREATE_INTENT)
  const pending = usePendingIntent(CREATE_INTENT)
  const [form, fields] = useForm<Values>({
    id: CREATE_FORM,
    lastResult: reply?.result,
    defaultValue: {
      authentification: 'client_secret_basic',
      scopes: DEFAULT_SCOPES,
      premiereConnexion: 'RATTACHER',
      actif: 'on',
    },
    constraint,
    shouldValidate: 'onSubmit',
  })
  const shown = useFieldErrors(reply)
  const labels = useProviderLabels()
  useSaved(pending, reply !== undefined, onSaved)
  return (
    <Card id={CREATE_SECTION} className="min-w-0 scroll-mt-4">
      <CardHeader>
        <CardTitle>{t('fournisseurs.new')}</CardTitle>
        <CardDescription>{t('fournisseurs.newIntro')}</CardDescription>
      </CardHeader>
      <CardContent>
        <Form
          method="post"
          preventScrollReset
          {...getFormProps(form)}
          onInput={shown.onInput}
          className="flex flex-col gap-4"
        >
          <EnterSubmits intent={CREATE_INTENT} disabled={pending}>
            {t('fournisseurs.create')}
          </EnterSubmits>
          <FormError message={formProblem(t, reply, labels)} />
          <ProviderFields
            formId={CREATE_FORM}
            fields={fields}
            shown={shown}
            labels={labels}
            choices={choices}
            searchIntent={SEARCH_INTENT}
            addresses={addresses}
            secretHint={t('fournisseurs.secretHint')}
          />
          <div>
            <SubmitButton
              name="intent"
              value={CREATE_INTENT}
              icon={Plus}
              pending={pending}
              pendingLabel={t('fournisseurs.creating')}
            >
              {t('fournisseurs.create')}
            </SubmitButton>
          </div>
        </Form>
      </CardContent>
    </Card>
  )
}

/** Once the form's save went through (the page came back without its reply: the action redirected), `onSaved`. */
function useSaved(pending: boolean, refused: boolean, onSaved: () => void) {
  const navigation = useNavigation()
  const sent = useRef(false)
  useEffect(() => {
    if (pending) {
      sent.current = true
      return
    }
    if (!sent.current || navigation.state !== 'idle') return
    sent.current = false
    if (!refused) onSaved()
  }, [pending, refused, navigation.state, onSaved])
}

/**
 * A provider's fields, on its creation and in its edit panel. Once the page is live, the secret is hidden while the
 * portal signs with its key (private_key_jwt), the portal's keys' address shown instead, and the structure only asked
 * for the rule that queues registrations there; without JavaScript all are there, each saying when it counts.
 */
export function ProviderFields({
  formId,
  fields,
  shown,
  labels,
  choices,
  searchIntent,
  addresses,
  secretHint,
}: {
  /** The form's id, the prefix of the ids of what it shows beside its fields. */
  formId: string
  fields: Fields
  shown: FieldErrors
  labels: ReturnType<typeof useProviderLabels>
  choices: StructureChoices
  /** The no-JavaScript post that shows the form again with the structures searched. */
  searchIntent: string
  addresses: ProviderAddresses
  /** What the secret field says: never shown again, and on a change whether one is kept. */
  secretHint: string
}) {
  const { t } = useTranslation()
  const hydrated = useHydrated()
  const box = useRef<HTMLDivElement>(null)
  const [method, setMethod] = useState(String(fields.authentification.initialValue ?? ''))
  const [rule, setRule] = useState(String(fields.premiereConnexion.initialValue ?? ''))
  // A choice made before the page became live is the one that counts.
  useEffect(() => {
    const form = box.current?.closest('form')
    if (!form) return
    const posted = new FormData(form)
    setMethod((current) => String(posted.get(fields.authentification.name) ?? current))
    setRule((current) => String(posted.get(fields.premiereConnexion.name) ?? current))
  }, [fields.authentification.name, fields.premiereConnexion.name])
  const signsWithKey = method === 'private_key_jwt'
  return (
    <div ref={box} className="flex min-w-0 flex-col gap-4">
      <div className="grid gap-4 lg:grid-cols-2">
        <Field
          label={labels.nom}
          hint={t('fournisseurs.nomHint')}
          errors={shown.errors(fields.nom)}
          inputProps={{ ...getInputProps(fields.nom, { type: 'text' }), id: fields.nom.id, autoComplete: 'off' }}
        />
        <Field
          label={labels.issuer}
          hint={t('fournisseurs.issuerHint')}
          errors={shown.errors(fields.issuer)}
          inputProps={{
            ...getInputProps(fields.issuer, { type: 'url' }),
            id: fields.issuer.id,
            autoComplete: 'off',
            spellCheck: false,
            placeholder: 'https://login.partenaire.example',
          }}
        />
      </div>
      <RegisterAt addresses={addresses} prefix={formId} withKeys={!hydrated || signsWithKey} />
      <div className="grid gap-4 lg:grid-cols-2">
        <Field
          label={labels.clientId}
          hint={t('fournisseurs.clientIdHint')}
          errors={shown.errors(fields.clientId)}
          inputProps={{
            ...getInputProps(fields.clientId, { type: 'text' }),
            id: fields.clientId.id,
            autoComplete: 'off',
            spellCheck: false,
          }}
        />
        <SelectField
          label={labels.authentification}
          hint={t('fournisseurs.authentificationHint')}
          errors={shown.errors(fields.authentification)}
          options={AUTHENTIFICATIONS.map((value) => ({ value, label: t(`fournisseurs.method.${value}`) }))}
          selectProps={{
            ...getSelectProps(fields.authentification),
            id: fields.authentification.id,
            onChange: (event) => setMethod(event.currentTarget.value),
          }}
        />
      </div>
      <div hidden={hydrated && signsWithKey}>
        <Field
          label={labels.secret}
          hint={secretHint}
          errors={shown.errors(fields.secret)}
          inputProps={{
            ...getInputProps(fields.secret, { type: 'password' }),
            id: fields.secret.id,
            // Never filled in by the browser with the administrator's own password.
            autoComplete: 'new-password',
            spellCheck: false,
          }}
        />
      </div>
      <div className="grid gap-4 lg:grid-cols-2">
        <Field
          label={labels.scopes}
          hint={t('fournisseurs.scopesHint')}
          errors={shown.errors(fields.scopes)}
          inputProps={{
            ...getInputProps(fields.scopes, { type: 'text' }),
            id: fields.scopes.id,
            autoComplete: 'off',
            spellCheck: false,
          }}
        />
        <Field
          label={labels.domaines}
          hint={t('fournisseurs.domainesHint')}
          errors={shown.errors(fields.domaines)}
          inputProps={{
            ...getInputProps(fields.domaines, { type: 'text' }),
            id: fields.domaines.id,
            autoComplete: 'off',
            spellCheck: false,
            placeholder: 'partenaire.fr, partenaire-logistique.fr',
          }}
        />
      </div>
      <RuleFields field={fields.premiereConnexion} errors={shown.errors(fields.premiereConnexion)} onRule={setRule} />
      <div hidden={hydrated && rule !== 'INSCRIRE'} className="flex flex-col gap-2">
        <p className="text-xs text-muted-foreground">{t('fournisseurs.structureHint')}</p>
        <StructureSelect
          id={fields.structure.id}
          name={fields.structure.name}
          label={labels.structure}
          choices={choices}
          defaultValue={String(fields.structure.initialValue ?? '')}
          placeholder={t('fournisseurs.chooseStructure')}
          emptyMessage={t('fournisseurs.noStructure')}
          errors={shown.errors(fields.structure)}
          intent={searchIntent}
        />
      </div>
      <div className="flex flex-col gap-3">
        <CheckboxField
          field={fields.confianceMfa}
          label={labels.confianceMfa}
          hint={t('fournisseurs.confianceMfaHint')}
        />
        <CheckboxField field={fields.affiche} label={labels.affiche} hint={t('fournisseurs.afficheHint')} />
        <CheckboxField field={fields.actif} label={labels.actif} hint={t('fournisseurs.actifHint')} />
      </div>
    </div>
  )
}

/** What a first sign-in does, as radio buttons each saying what follows. */
function RuleFields({
  field,
  errors,
  onRule,
}: {
  field: FieldMetadata<string | undefined>
  errors: string[] | undefined
  onRule: (rule: string) => void
}) {
  const { t } = useTranslation()
  const messages = fieldMessages(field.id, undefined, errors)
  return (
    <fieldset
      id={field.id}
      aria-invalid={messages.invalid || undefined}
      aria-describedby={messages.describedBy}
      className="flex min-w-0 flex-col gap-2"
    >
      <legend className="mb-2 text-sm font-medium">{t('fournisseurs.premiereConnexion')}</legend>
      <div className="grid gap-2 lg:grid-cols-3">
        {PREMIERES_CONNEXIONS.map((rule) => {
          const id = `${field.id}-${rule}`
          return (
            <div
              key={rule}
              className="flex items-start gap-2 rounded-md border p-3 has-[:checked]:border-primary has-[:checked]:bg-accent has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-ring"
            >
              <input
                type="radio"
                id={id}
                name={field.name}
                value={rule}
                defaultChecked={String(field.initialValue ?? '') === rule}
                onChange={(event) => onRule(event.currentTarget.value)}
                aria-describedby={`${id}-hint`}
                className={CHECKBOX}
              />
              <div className="flex min-w-0 flex-col gap-1">
                <Label htmlFor={id} className="cursor-pointer">
                  {t(`fournisseurs.rule.${rule}`)}
                </Label>
                <p id={`${id}-hint`} className="text-xs text-muted-foreground">
                  {t(`fournisseurs.ruleHint.${rule}`)}
                </p>
              </div>
            </div>
          )
        })}
      </div>
      <FieldMessages id={field.id} errors={errors} />
    </fieldset>
  )
}

/**
 * What the administrator declares at the provider, to copy: the redirect URI, and the portal's public keys' address
 * for private_key_jwt (once the page is live, only when that method is chosen).
 */
export function RegisterAt({
  addresses,
  prefix,
  withKeys,
}: {
  addresses: ProviderAddresses
  prefix: string
  withKeys: boolean
}) {
  const { t } = useTranslation()
  const introId = `${prefix}-a-declarer`
  return (
    <fieldset aria-describedby={introId} className="flex min-w-0 flex-col gap-3 rounded-md border bg-muted/40 p-4">
      <legend className="px-1 text-sm font-medium">{t('fournisseurs.register.title')}</legend>
      <p id={introId} className="text-xs text-muted-foreground">
        {t('fournisseurs.register.intro')}
      </p>
      <CopyField
        id={`${prefix}-redirect-uri`}
        label={t('fournisseurs.register.redirectUri')}
        value={addresses.redirectUri}
        copyLabel={t('fournisseurs.register.copyRedirectUri')}
      />
      {withKeys ? (
        <CopyField
          id={`${prefix}-jwks-uri`}
          label={t('fournisseurs.register.jwksUri')}
          value={addresses.jwksUri}
          copyLabel={t('fournisseurs.register.copyJwksUri')}
        />
      ) : null}
    </fieldset>
  )
}
