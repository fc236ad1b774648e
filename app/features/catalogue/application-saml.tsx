import { type FieldMetadata, getInputProps, getTextareaProps } from '@conform-to/react'
import { type ChangeEvent, useId, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Field, FieldMessages, fieldMessages } from '~/components/field'
import { CHECKBOX } from '~/components/ui/checkbox'
import { Label } from '~/components/ui/label'
import { Textarea } from '~/components/ui/textarea'
import type { FieldErrors } from '~/lib/form'
import { useHydrated } from '~/lib/hydrated'
import type { ApplicationForm } from '../../../worker-api/contract/catalogue/catalogue'
import {
  NAME_ID_FORMATS,
  SAML_ATTRIBUTE_SOURCES,
  type SamlServiceProvider,
  SP_METADATA_MAX_BYTES,
} from '../../../worker-api/contract/saml/saml'

/** The id of the service provider's fieldset, which the SAML choice controls. */
export const SAML_FIELDSET = 'application-saml-fields'

type SamlField = FieldMetadata<ApplicationForm['saml'], ApplicationForm, string[]>

/**
 * A SAML application's service provider: its metadata pasted (or read from a file, with JavaScript), shown as
 * registered when editing (new metadata replaces it; none keeps it), then what the portal sends it: the name
 * identifier, what is signed, the attributes under the names the application expects.
 */
export function SamlFields({
  field,
  saml,
  shown,
  hidden,
}: {
  field: SamlField
  /** The service provider as registered (editing), or null (a new one, or an application moving to SAML). */
  saml: SamlServiceProvider | null
  shown: FieldErrors
  hidden: boolean
}) {
  const { t } = useTranslation()
  const fields = field.getFieldset()
  const attributes = fields.attributes.getFieldset()
  const metadataId = 'application-saml-metadata'
  const metadataHint = t(saml ? 'applications.saml.metadataKeepHint' : 'applications.saml.metadataHint')
  const metadataErrors = shown.errors(fields.metadata)
  const metadataMessages = fieldMessages(metadataId, metadataHint, metadataErrors)
  const signErrors = shown.errors(fields.signAssertion)
  const signMessages = fieldMessages('application-saml-signed', t('applications.saml.signedHint'), signErrors)
  const attributeErrors = shown.errors(fields.attributes)
  const attributeMessages = fieldMessages(
    'application-saml-attributes',
    t('applications.saml.attributesHint'),
    attributeErrors,
  )
  const formatErrors = shown.errors(fields.nameIdFormat)
  return (
    <fieldset
      id={SAML_FIELDSET}
      aria-describedby={`${SAML_FIELDSET}-intro`}
      hidden={hidden}
      className="flex min-w-0 flex-col gap-4 rounded-md border p-4"
    >
      <legend className="px-1 text-sm font-medium">{t('applications.saml.legend')}</legend>
      <p id={`${SAML_FIELDSET}-intro`} className="text-sm text-muted-foreground">
        {t('applications.saml.intro')}
      </p>
      {saml ? <SamlSummary saml={saml} /> : null}
      <div className="flex flex-col gap-1.5">
        <Label htmlFor={metadataId}>{t('applications.saml.metadata')}</Label>
        <Textarea
          {...getTextareaProps(fields.metadata)}
          id={metadataId}
          rows={6}
          autoComplete="off"
          autoCapitalize="off"
          spellCheck={false}
          className="font-mono text-xs"
          aria-invalid={metadataMessages.invalid || undefined}
          aria-describedby={metadataMessages.describedBy}
        />
        <MetadataFile target={metadataId} />
        <FieldMessages id={metadataId} hint={metadataHint} errors={metadataErrors} />
      </div>
      <fieldset
        id="application-saml-format"
        aria-invalid={formatErrors?.length ? true : undefined}
        aria-describedby={formatErrors?.length ? 'application-saml-format-error' : undefined}
      >
        <legend className="mb-2 text-sm font-medium">{t('applications.saml.nameIdFormat')}</legend>
        <div className="flex flex-col gap-2">
          {NAME_ID_FORMATS.map((format) => (
            <div key={format} className="flex items-start gap-2">
              <input
                type="radio"
                id={`application-saml-format-${format}`}
                name={fields.nameIdFormat.name}
                value={format}
                defaultChecked={String(fields.nameIdFormat.initialValue ?? 'email') === format}
                className={CHECKBOX}
              />
              <Label htmlFor={`application-saml-format-${format}`} className="font-normal">
                {t(`applications.saml.format.${format}`)}
              </Label>
            </div>
          ))}
        </div>
        <FieldMessages id="application-saml-format" errors={formatErrors} />
      </fieldset>
      <fieldset
        id="application-saml-signed"
        aria-invalid={signMessages.invalid || undefined}
        aria-describedby={signMessages.describedBy}
      >
        <legend className="mb-2 text-sm font-medium">{t('applications.saml.signed')}</legend>
        <div className="flex flex-col gap-2">
          {(
            [
              [fields.signAssertion, 'signAssertion'],
              [fields.signResponse, 'signResponse'],
            ] as const
          ).map(([control, key]) => (
            <div key={key} className="flex items-start gap-2">
              <input
                {...getInputProps(control, { type: 'checkbox' })}
                id={`application-saml-${key}`}
                className={CHECKBOX}
              />
              <Label htmlFor={`application-saml-${key}`} className="font-normal">
                {t(`applications.saml.${key}`)}
              </Label>
            </div>
          ))}
        </div>
        <FieldMessages id="application-saml-signed" hint={t('applications.saml.signedHint')} errors={signErrors} />
      </fieldset>
      <fieldset
        id="application-saml-attributes"
        aria-invalid={attributeMessages.invalid || undefined}
        aria-describedby={attributeMessages.describedBy}
        className="flex min-w-0 flex-col gap-3"
      >
        <legend className="mb-1 text-sm font-medium">{t('applications.saml.attributes')}</legend>
        {SAML_ATTRIBUTE_SOURCES.map((source) => (
          <Field
            key={source}
            label={t('applications.saml.attributeFor', { source: t(`applications.saml.source.${source}`) })}
            inputProps={{
              ...getInputProps(attributes[source], { type: 'text' }),
              id: `application-saml-attribute-${source}`,
              autoComplete: 'off',
              autoCapitalize: 'off',
              spellCheck: false,
            }}
          />
        ))}
        <FieldMessages
          id="application-saml-attributes"
          hint={t('applications.saml.attributesHint')}
          errors={attributeErrors}
        />
      </fieldset>
    </fieldset>
  )
}

/**
 * With JavaScript, a metadata file read into the metadata's field (without it, the metadata is pasted): nothing is
 * sent but what the field then holds.
 */
function MetadataFile({ target }: { target: string }) {
  const { t } = useTranslation()
  const hydrated = useHydrated()
  const id = useId()
  const [failed, setFailed] = useState(false)
  if (!hydrated) return null
  const read = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.currentTarget.files?.[0]
    const field = document.getElementById(target)
    if (!file || !(field instanceof HTMLTextAreaElement)) return
    try {
      if (file.size > SP_METADATA_MAX_BYTES) throw new Error('too large')
      field.value = await file.text()
      field.dispatchEvent(new Event('input', { bubbles: true }))
      setFailed(false)
    } catch {
      setFailed(true)
    }
  }
  return (
    <div className="flex flex-col gap-1">
      <Label htmlFor={id} className="text-sm font-normal">
        {t('applications.saml.metadataFile')}
      </Label>
      {/* No name: the file itself is not posted, only the text it put in the field. */}
      <input
        id={id}
        type="file"
        accept=".xml,application/xml,text/xml"
        onChange={read}
        className="max-w-full text-sm"
      />
      {failed ? (
        <p role="alert" className="text-sm text-destructive">
          {t('applications.saml.metadataFileFailed')}
        </p>
      ) : null}
    </div>
  )
}

/** A SAML application's service provider as registered: what its metadata said. */
function SamlSummary({ saml }: { saml: SamlServiceProvider }) {
  const { t } = useTranslation()
  const rows: [string, string[]][] = [
    [t('applications.saml.entityId'), [saml.entityId]],
    [t('applications.saml.acs'), saml.assertionConsumerServices],
    [t('applications.saml.slo'), [saml.singleLogoutService ?? t('applications.saml.none')]],
    [
      t('applications.saml.certificates'),
      saml.certificates.length > 0
        ? saml.certificates.map((c) =>
            c.expire ? t('applications.saml.certificate', { sujet: c.sujet, expire: c.expire.slice(0, 10) }) : c.sujet,
          )
        : [t('applications.saml.none')],
    ],
  ]
  return (
    <section
      id="application-saml"
      aria-labelledby="application-saml-title"
      className="flex min-w-0 flex-col gap-3 rounded-md bg-muted/50 p-3"
    >
      <h3 id="application-saml-title" className="text-sm font-medium">
        {t('applications.saml.registered')}
      </h3>
      <p className="text-sm text-muted-foreground">{t('applications.saml.registeredIntro')}</p>
      <dl className="flex flex-col gap-3 text-sm">
        {rows.map(([term, values]) => (
          <div key={term} className="min-w-0">
            <dt className="font-medium">{term}</dt>
            <dd className="min-w-0 break-words text-muted-foreground">
              {values.map((value) => (
                <span key={value} className="block">
                  {value}
                </span>
              ))}
            </dd>
          </div>
        ))}
      </dl>
    </section>
  )
}
