import { type FieldMetadata, getInputProps, getTextareaProps } from '@conform-to/react'
import { type RefObject, useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Field, FieldMessages, fieldMessages } from '~/components/field'
import { Card, CardContent, CardHeader, CardTitle } from '~/components/ui/card'
import { CHECKBOX } from '~/components/ui/checkbox'
import { Label } from '~/components/ui/label'
import { Textarea } from '~/components/ui/textarea'
import { translateError } from '~/lib/api-errors'
import type { FieldErrors } from '~/lib/form'
import { useHydrated } from '~/lib/hydrated'
import { APPLICATION_PROTOCOLS, type ApplicationForm } from '../../../worker-api/contract/catalogue/catalogue'
import type { SamlServiceProvider } from '../../../worker-api/contract/saml/saml'
import { SAML_FIELDSET, SamlFields } from './application-saml'

type Fields = { [Name in keyof ApplicationForm]-?: FieldMetadata<ApplicationForm[Name], ApplicationForm, string[]> }
type Shown = FieldErrors

/** The id of the client's fieldset, which the OpenID Connect choice controls. */
const CLIENT = 'application-oidc'

/**
 * The application's sign-in protocol (launch code, OpenID Connect or SAML) and the fields of its OpenID Connect client
 * and of its SAML service provider. Those are always in the page (without JavaScript the server ignores those of the
 * protocol not chosen); once hydrated they are hidden, not removed, while another protocol is chosen, so a change of
 * mind keeps them.
 */
export function ProtocolCard({
  fields,
  shown,
  formRef,
  posted,
  saml,
}: {
  fields: Fields
  shown: Shown
  formRef: RefObject<HTMLFormElement>
  /** What the failed save posted (conform's reply), to name a refused address. */
  posted: Record<string, unknown> | undefined
  /** A SAML application's service provider as registered (editing one). */
  saml: SamlServiceProvider | null
}) {
  const { t } = useTranslation()
  const hydrated = useHydrated()
  const [chosen, setChosen] = useState(String(fields.protocole.initialValue ?? 'CODE'))
  // A choice made before the page became live is the one that counts.
  useEffect(() => {
    const radios = formRef.current?.elements.namedItem(fields.protocole.name)
    if (radios instanceof RadioNodeList && radios.value) setChosen(radios.value)
  }, [formRef, fields.protocole.name])
  const client = fields.oidc.getFieldset()
  /** A list's errors: its own, then each refused address's, named (`oidc.redirectUris[1]`: the second line kept). */
  const linesErrors = (field: FieldMetadata<string | undefined, ApplicationForm, string[]>) => {
    // The addresses as the failed save posted them (with JavaScript, conform's `initialValue` stays the page's).
    const sent = (posted?.oidc as Record<string, unknown> | undefined)?.[field.name.slice('oidc.'.length)]
    const lines = String(sent ?? field.initialValue ?? '')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '')
    const each = Object.entries(field.allErrors).flatMap(([name, errors]) => {
      const index = /\[(\d+)\]$/.exec(name.slice(field.name.length))?.[1]
      if (index === undefined) return []
      const uri = lines[Number(index)] ?? ''
      return errors.map((error) => t('applications.oidc.lineError', { uri, error: translateError(t, error) }))
    })
    const all = [...(field.errors ?? []).map((error) => translateError(t, error)), ...each]
    return shown.current({ name: field.name, errors: all.length > 0 ? all : undefined })
  }
  const protocolErrors = shown.errors(fields.protocole)
  const protocolMessages = fieldMessages('application-protocole', undefined, protocolErrors)
  const publicId = 'application-oidc-public'
  const deviceId = 'application-oidc-device-grant'

  return (
    <Card className="min-w-0">
      <CardHeader>
        <CardTitle>{t('applications.protocol.title')}</CardTitle>
      </CardHeader>
      <CardContent className="flex flex-col gap-6">
        <fieldset
          id="application-protocole"
          aria-invalid={protocolMessages.invalid || undefined}
          aria-describedby={protocolMessages.describedBy}
        >
          <legend className="mb-2 text-sm font-medium">{t('applications.protocol.legend')}</legend>
          <div className="grid gap-2 md:grid-cols-2">
            {APPLICATION_PROTOCOLS.map((protocol) => (
              <div
                key={protocol}
                className="flex items-start gap-2 rounded-md border p-3 has-[:checked]:border-primary has-[:checked]:bg-accent has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-ring"
              >
                <input
                  type="radio"
                  id={`application-protocole-${protocol}`}
                  name={fields.protocole.name}
                  value={protocol}
                  defaultChecked={String(fields.protocole.initialValue ?? 'CODE') === protocol}
                  onChange={(event) => setChosen(event.currentTarget.value)}
                  aria-describedby={`application-protocole-${protocol}-hint`}
                  aria-controls={protocol === 'OIDC' ? CLIENT : protocol === 'SAML' ? SAML_FIELDSET : undefined}
                  className={CHECKBOX}
                />
                <div className="flex min-w-0 flex-col gap-1">
                  <Label htmlFor={`application-protocole-${protocol}`} className="cursor-pointer">
                    {t(`applications.protocol.${protocol}`)}
                  </Label>
                  <p id={`application-protocole-${protocol}-hint`} className="text-xs text-muted-foreground">
                    {t(`applications.protocol.${protocol}Hint`)}
                  </p>
                </div>
              </div>
            ))}
          </div>
          <FieldMessages id="application-protocole" errors={protocolErrors} />
        </fieldset>
        <SamlFields field={fields.saml} saml={saml} shown={shown} hidden={hydrated && chosen !== 'SAML'} />
        <fieldset
          id={CLIENT}
          aria-describedby={`${CLIENT}-intro`}
          hidden={hydrated && chosen !== 'OIDC'}
          className="flex min-w-0 flex-col gap-4 rounded-md border p-4"
        >
          <legend className="px-1 text-sm font-medium">{t('applications.oidc.legend')}</legend>
          <p id={`${CLIENT}-intro`} className="text-sm text-muted-foreground">
            {t('applications.oidc.intro')}
          </p>
          <div className="flex flex-col gap-1.5">
            <div className="flex items-start gap-2">
              <input
                {...getInputProps(client.public, { type: 'checkbox' })}
                id={publicId}
                aria-describedby={`${publicId}-hint`}
                className={CHECKBOX}
              />
              <Label htmlFor={publicId}>{t('applications.oidc.public')}</Label>
            </div>
            <p id={`${publicId}-hint`} className="text-xs text-muted-foreground">
              {t('applications.oidc.publicHint')}
            </p>
          </div>
          <LinesField
            id="application-redirect-uris"
            field={client.redirectUris}
            label={t('applications.oidc.redirectUris')}
            hint={t('applications.oidc.redirectUrisHint')}
            errors={linesErrors(client.redirectUris)}
          />
          <LinesField
            id="application-post-logout-uris"
            field={client.postLogoutRedirectUris}
            label={t('applications.oidc.postLogoutRedirectUris')}
            hint={t('applications.oidc.postLogoutRedirectUrisHint')}
            errors={linesErrors(client.postLogoutRedirectUris)}
          />
          <UriField
            id="application-initiate-login-uri"
            field={client.initiateLoginUri}
            label={t('applications.oidc.initiateLoginUri')}
            hint={t('applications.oidc.initiateLoginUriHint')}
            errors={shown.errors(client.initiateLoginUri)}
          />
          <UriField
            id="application-backchannel-logout-uri"
            field={client.backchannelLogoutUri}
            label={t('applications.oidc.backchannelLogoutUri')}
            hint={t('applications.oidc.backchannelLogoutUriHint')}
            errors={shown.errors(client.backchannelLogoutUri)}
          />
          <div className="flex flex-col gap-1.5">
            <div className="flex items-start gap-2">
              <input
                {...getInputProps(client.deviceGrant, { type: 'checkbox' })}
                id={deviceId}
                aria-describedby={`${deviceId}-hint`}
                className={CHECKBOX}
              />
              <Label htmlFor={deviceId}>{t('applications.oidc.deviceGrant')}</Label>
            </div>
            <p id={`${deviceId}-hint`} className="text-xs text-muted-foreground">
              {t('applications.oidc.deviceGrantHint')}
            </p>
          </div>
        </fieldset>
      </CardContent>
    </Card>
  )
}

type TextField = FieldMetadata<string | undefined, ApplicationForm, string[]>

/** A list of addresses, one a line, its format said under it. */
function LinesField({
  id,
  field,
  label,
  hint,
  errors,
}: {
  id: string
  field: TextField
  label: string
  hint: string
  errors: string[] | undefined
}) {
  const messages = fieldMessages(id, hint, errors)
  return (
    <div className="flex flex-col gap-1.5">
      <Label htmlFor={id}>{label}</Label>
      <Textarea
        {...getTextareaProps(field)}
        id={id}
        rows={3}
        autoComplete="off"
        autoCapitalize="off"
        spellCheck={false}
        aria-invalid={messages.invalid || undefined}
        aria-describedby={messages.describedBy}
      />
      <FieldMessages id={id} hint={hint} errors={errors} />
    </div>
  )
}

/** One optional address, its format said under it. */
function UriField({
  id,
  field,
  label,
  hint,
  errors,
}: {
  id: string
  field: TextField
  label: string
  hint: string
  errors: string[] | undefined
}) {
  return (
    <Field
      label={label}
      hint={hint}
      errors={errors}
      inputProps={{
        ...getInputProps(field, { type: 'text' }),
        id,
        inputMode: 'url',
        autoComplete: 'off',
        autoCapitalize: 'off',
        spellCheck: false,
      }}
    />
  )
}
