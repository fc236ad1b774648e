import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import type { getZodConstraint } from '@conform-to/zod/v4'
import { Form, Link, useLocation } from '@remix-run/react'
import { Save } from 'lucide-react'
import { useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { ChoiceReloadButton } from '~/components/choice-reload-button'
import { EnterSubmits } from '~/components/enter-submits'
import { Field, FieldMessages, fieldMessages } from '~/components/field'
import { FormError, formProblem } from '~/components/form-error'
import { SubmitButton } from '~/components/submit-button'
import { buttonVariants } from '~/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '~/components/ui/card'
import { CHECKBOX } from '~/components/ui/checkbox'
import { Label } from '~/components/ui/label'
import { useStructureChange } from '~/features/organisation/structure-change'
import type { StructureChoices } from '~/features/organisation/structure-choice'
import { StructureSelect } from '~/features/organisation/structure-select'
import { useFieldErrors, useFormReply, usePendingIntent } from '~/lib/form'
import type { ApplicationForm as Values } from '../../../worker-api/contract/catalogue/catalogue'
import type { SamlServiceProvider } from '../../../worker-api/contract/saml/saml'
import { type ApplicationFormValues, choiceValue, GRANTS_FIELD, type Grant, grantsFrom } from './application-grants'
import { ProtocolCard } from './application-protocol'
import { IconPicker } from './icon-picker'

const INTENT = 'application'

/**
 * The catalogue's application form, to register or edit one. Without JavaScript, the "show its functions" button posts
 * the form (`intent=fonctions`), which comes back with what was typed. An application granted by more functions than
 * one save may name (`grantsKept`) keeps its grants: the form says so and changes the rest.
 */
export function ApplicationForm({
  values,
  grants: savedGrants,
  grantsKept,
  structures,
  shown: listedStructures,
  total,
  recherche,
  structure,
  fonctions,
  constraint,
  saml,
}: StructureChoices & {
  values: ApplicationFormValues
  saml: SamlServiceProvider | null
  grants: Grant[]
  grantsKept: number | null
  structure: { id: number; nom: string } | null
  fonctions: { id: number; libelle: string }[]
  constraint: ReturnType<typeof getZodConstraint>
}) {
  const { t } = useTranslation()
  const reply = useFormReply(INTENT)
  const pending = usePendingIntent(INTENT)
  const { pathname } = useLocation()
  const formRef = useRef<HTMLFormElement>(null)
  const [form, fields] = useForm<Values>({
    id: 'application',
    lastResult: reply?.result,
    defaultValue: {
      ...values,
      actif: values.actif ? 'on' : undefined,
      demandable: values.demandable ? 'on' : undefined,
      oidc: {
        ...values.oidc,
        public: values.oidc.public ? 'on' : undefined,
        deviceGrant: values.oidc.deviceGrant ? 'on' : undefined,
      },
      saml: {
        ...values.saml,
        signAssertion: values.saml.signAssertion ? 'on' : undefined,
        signResponse: values.saml.signResponse ? 'on' : undefined,
      },
    },
    constraint,
    shouldValidate: 'onSubmit',
  })
  const shown = useFieldErrors(reply)
  const structureChange = useStructureChange(formRef, 'application-structure', structure?.id ?? null)

  // A failed save (without JavaScript) comes back with the functions it had ticked.
  const posted = reply?.result.initialValue
  const initial = posted ? grantsFrom(asList(posted.fonctions), asList(posted.choix)) : savedGrants
  // Every function ever ticked on this page stays listed (unticked, it is off the grants): nothing
  // jumps from under the pointer or the focus when a box changes.
  const [listed, setListed] = useState<Grant[]>(initial)
  const [ticked, setTicked] = useState<ReadonlySet<number>>(() => new Set(initial.map((grant) => grant.id)))
  const viewed: Grant[] = structure ? fonctions.map((f) => ({ ...f, structure })) : []
  const elsewhere = listed.filter((grant) => grant.structure.id !== structure?.id)
  const toggle = (grant: Grant, on: boolean) => {
    if (on && !listed.some((g) => g.id === grant.id)) setListed([...listed, grant])
    const next = new Set(ticked)
    if (on) next.add(grant.id)
    else next.delete(grant.id)
    setTicked(next)
  }
  const named = new Map([...listed, ...viewed].map((grant) => [grant.id, grant]))
  const grantErrors = shown.errors(fields.fonctions)
  const grantMessages = fieldMessages('application-fonctions', undefined, grantErrors)

  const checkbox = (grant: Grant, withStructure: boolean) => (
    <li key={grant.id} className="flex items-start gap-2">
      <input
        type="checkbox"
        id={`fonction-${grant.id}`}
        name="fonctions"
        value={grant.id}
        checked={ticked.has(grant.id)}
        onChange={(event) => toggle(grant, event.currentTarget.checked)}
        className={CHECKBOX}
      />
      <Label htmlFor={`fonction-${grant.id}`} className="font-normal">
        {grant.libelle}
        {withStructure ? <span className="text-muted-foreground"> · {grant.structure.nom}</span> : null}
      </Label>
    </li>
  )

  return (
    <Form
      method="post"
      // Posted for the structure shown: a failed save comes back with its functions.
      action={structure ? `${pathname}?structure=${structure.id}` : undefined}
      {...getFormProps(form)}
      ref={formRef}
      className="flex flex-col gap-6"
      onInput={shown.onInput}
      onClick={structureChange.onClick}
      onKeyDown={structureChange.onKeyDown}
      onBlur={structureChange.onBlur}
    >
      <EnterSubmits intent={INTENT} disabled={pending}>
        {t('applications.save')}
      </EnterSubmits>
      <FormError
        message={formProblem(t, reply, {
          libelle: t('applications.libelle'),
          url: t('applications.url'),
          icone: t('applications.icone'),
          fonctions: t('applications.fonctions'),
          protocole: t('applications.protocol.legend'),
          ...clientLabels(Object.keys(reply?.result.error ?? {}), {
            oidc: t('applications.oidc.legend'),
            'oidc.redirectUris': t('applications.oidc.redirectUris'),
            'oidc.postLogoutRedirectUris': t('applications.oidc.postLogoutRedirectUris'),
            'oidc.initiateLoginUri': t('applications.oidc.initiateLoginUri'),
            'oidc.backchannelLogoutUri': t('applications.oidc.backchannelLogoutUri'),
            'saml.metadata': t('applications.saml.metadata'),
            'saml.nameIdFormat': t('applications.saml.nameIdFormat'),
            'saml.signAssertion': t('applications.saml.signed'),
            'saml.attributes': t('applications.saml.attributes'),
          }),
        })}
      />
      {[...named.values()].map((grant) => (
        <input key={grant.id} type="hidden" name="choix" value={choiceValue(grant)} />
      ))}
      <div className="grid gap-6 lg:grid-cols-2">
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>{t('applications.identity')}</CardTitle>
          </CardHeader>
          <CardContent className="flex flex-col gap-4">
            <Field
              label={t('applications.libelle')}
              errors={shown.errors(fields.libelle)}
              inputProps={{
                ...getInputProps(fields.libelle, { type: 'text' }),
                id: fields.libelle.id,
                autoComplete: 'off',
              }}
            />
            <Field
              label={t('applications.url')}
              hint={t('applications.urlHint')}
              errors={shown.errors(fields.url)}
              inputProps={{
                ...getInputProps(fields.url, { type: 'text' }),
                id: fields.url.id,
                inputMode: 'url',
                autoComplete: 'off',
                spellCheck: false,
              }}
            />
            <IconPicker
              name={fields.icone.name}
              id={fields.icone.id}
              defaultValue={String(fields.icone.initialValue ?? '')}
              errors={shown.errors(fields.icone)}
            />
            <div className="flex flex-col gap-1.5">
              <div className="flex items-start gap-2">
                <input
                  {...getInputProps(fields.actif, { type: 'checkbox' })}
                  id={fields.actif.id}
                  aria-describedby={`${fields.actif.id}-hint`}
                  className={CHECKBOX}
                />
                <Label htmlFor={fields.actif.id}>{t('applications.actif')}</Label>
              </div>
              <p id={`${fields.actif.id}-hint`} className="text-xs text-muted-foreground">
                {t('applications.actifHint')}
              </p>
            </div>
            <div className="flex flex-col gap-1.5">
              <div className="flex items-start gap-2">
                <input
                  {...getInputProps(fields.demandable, { type: 'checkbox' })}
                  id={fields.demandable.id}
                  aria-describedby={`${fields.demandable.id}-hint`}
                  className={CHECKBOX}
                />
                <Label htmlFor={fields.demandable.id}>{t('applications.demandable')}</Label>
              </div>
              <p id={`${fields.demandable.id}-hint`} className="text-xs text-muted-foreground">
                {t('applications.demandableHint')}
              </p>
            </div>
          </CardContent>
        </Card>
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>{t('applications.fonctions')}</CardTitle>
            {grantsKept === null ? <CardDescription>{t('applications.grantsIntro')}</CardDescription> : null}
          </CardHeader>
          <CardContent className="flex flex-col gap-4">
            {grantsKept !== null ? (
              <>
                <input type="hidden" name={GRANTS_FIELD} value="kept" />
                <p id="application-fonctions" className="text-sm">
                  {t('applications.grantsKept', { count: grantsKept })}
                </p>
              </>
            ) : (
              <>
                <fieldset
                  id="application-fonctions"
                  aria-invalid={grantMessages.invalid || undefined}
                  aria-describedby={grantMessages.describedBy}
                  className="flex flex-col gap-2"
                >
                  <legend className="mb-2 text-sm font-medium">{t('applications.chosen')}</legend>
                  {elsewhere.length === 0 && !viewed.some((grant) => ticked.has(grant.id)) ? (
                    <p className="text-sm text-muted-foreground">{t('applications.noGrant')}</p>
                  ) : null}
                  <ul className="flex flex-col gap-2">{elsewhere.map((grant) => checkbox(grant, true))}</ul>
                  <FieldMessages id="application-fonctions" errors={grantErrors} />
                </fieldset>
                <div className="flex flex-col gap-2">
                  <StructureSelect
                    id="application-structure"
                    name="structure"
                    label={t('applications.structure')}
                    choices={{ structures, shown: listedStructures, total, recherche }}
                    defaultValue={structure ? String(structure.id) : ''}
                    placeholder={t('applications.chooseStructure')}
                    emptyMessage={t('applications.noStructure')}
                    intent="fonctions"
                  />
                  <ChoiceReloadButton intent="fonctions">{t('applications.showFonctions')}</ChoiceReloadButton>
                </div>
                {structure ? (
                  <fieldset className="flex flex-col gap-2">
                    <legend className="mb-2 text-sm font-medium">
                      {t('applications.fonctionsOf', { nom: structure.nom })}
                    </legend>
                    {viewed.length === 0 ? (
                      <p className="text-sm text-muted-foreground">
                        {t('applications.structureWithout')}{' '}
                        <Link to={`/pages/admin/structure/detail/${structure.id}#fonctions`} className="underline">
                          {t('applications.addFonction', { nom: structure.nom })}
                        </Link>
                      </p>
                    ) : (
                      <ul className="flex flex-col gap-2">{viewed.map((grant) => checkbox(grant, false))}</ul>
                    )}
                  </fieldset>
                ) : null}
              </>
            )}
          </CardContent>
        </Card>
      </div>
      <ProtocolCard fields={fields} shown={shown} formRef={formRef} posted={posted ?? undefined} saml={saml} />
      <div className="flex flex-wrap gap-2">
        <SubmitButton
          name="intent"
          value={INTENT}
          icon={Save}
          pending={pending}
          pendingLabel={t('applications.saving')}
        >
          {t('applications.save')}
        </SubmitButton>
        <Link to="/pages/admin/applications" className={buttonVariants({ variant: 'outline' })}>
          {t('applications.cancel')}
        </Link>
      </div>
    </Form>
  )
}

/** The client's fields by their labels, an address of a list (`oidc.redirectUris[1]`) by its list's. */
function clientLabels(names: string[], labels: Record<string, string>): Record<string, string> {
  const named = names.flatMap((name) => {
    const label = labels[name.replace(/\[\d+\]$/, '')]
    return label ? [[name, label] as const] : []
  })
  return Object.fromEntries(named)
}

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined ? [] : [value])
