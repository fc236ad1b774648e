import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import type { getZodConstraint } from '@conform-to/zod/v4'
import { Form, Link, useLocation, useNavigation } from '@remix-run/react'
import { Mail, Save } from 'lucide-react'
import { useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { EnterSubmits } from '~/components/enter-submits'
import { Field } from '~/components/field'
import { FormError, formProblem } from '~/components/form-error'
import { MailField } from '~/components/mail-field'
import { SubmitButton } from '~/components/submit-button'
import { buttonVariants } from '~/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '~/components/ui/card'
import { Label } from '~/components/ui/label'
import { type FormReply, useFieldErrors, useFormReply, usePendingIntent, useTyped } from '~/lib/form'
import { useHydrated } from '~/lib/hydrated'
import { useMailCheck } from '~/lib/mail-check'
import type { Fonction } from '../../../worker-api/contract/organisation/structure'
import type { CreateUserForm as Values } from '../../../worker-api/contract/organisation/user-admin'
import { PosteFields } from './poste-fields'
import { useStructureChange } from './structure-change'
import type { StructureChoices } from './structure-choice'
import type { UserFormValues } from './user-form.server'

const INTENT = 'user'

/** The fields Save depends on (spec §5 save-disabled rules). */
const WATCHED = ['mail', 'confirmation', 'nom', 'prenom', 'structure', 'fonction', 'dateDebut', 'dateFin'] as const

/** The create-user screen of both routes (spec §2): its title and the form. */
export function CreateUserScreen(props: Parameters<typeof UserCreateForm>[0]) {
  const { t } = useTranslation()
  return (
    <div className="flex flex-col gap-6">
      <h1 className="text-2xl font-semibold tracking-tight">{t('userCreate.title')}</h1>
      <UserCreateForm {...props} />
    </div>
  )
}

/**
 * The create-user form in logged mode (spec §2, §4, §5). The functions depend on the structure: picking one reloads
 * with `?structure=` with JavaScript; without, "show functions" posts the form (`intent=fonctions`), so that what is
 * typed stays out of the URL. The server checks the same conditions Save waits for with JavaScript.
 */
export function UserCreateForm({
  choices,
  structureId,
  fonctions,
  values,
  constraint,
  cancelTo,
}: {
  choices: StructureChoices
  structureId: number | null
  fonctions: Fonction[]
  values: UserFormValues
  constraint: ReturnType<typeof getZodConstraint>
  cancelTo: string
}) {
  const { t } = useTranslation()
  const reply = useFormReply(INTENT)
  const pending = usePendingIntent(INTENT)
  const hydrated = useHydrated()
  const formRef = useRef<HTMLFormElement>(null)
  const [form, fields] = useForm<Values>({
    id: 'user',
    lastResult: reply?.result,
    defaultValue: {
      ...values,
      admin: values.admin === 'on' ? 'on' : undefined,
      structure: structureId ? String(structureId) : '',
    },
    constraint,
    shouldValidate: 'onSubmit',
  })
  // A failed save's errors on a field go once it is changed (the address check then speaks).
  const shown = useFieldErrors(reply)
  const mailCheck = useMailCheck('/pages/admin/user/mail', fields.mail.id)
  const { typed, refresh } = useTyped(formRef, WATCHED, [structureId, fonctions])
  const structureChange = useStructureChange(formRef, fields.structure.id, structureId)
  const [confirmationLeft, setConfirmationLeft] = useState(false)
  const mismatch =
    typed !== null && typed.confirmation !== '' && typed.mail.toLowerCase() !== typed.confirmation.toLowerCase()

  // While another structure's functions are on their way, the function shown is the old one's.
  const navigation = useNavigation()
  const reloading = navigation.state === 'loading' && navigation.formMethod?.toLowerCase() === 'get'
  const { pathname } = useLocation()
  const blocked =
    hydrated &&
    (typed === null ||
      reloading ||
      !(mailCheck.status === 'free' || mailCheck.status === 'unknown') ||
      typed.nom === '' ||
      typed.prenom === '' ||
      typed.mail.toLowerCase() !== typed.confirmation.toLowerCase() ||
      structureId === null ||
      typed.structure !== String(structureId) ||
      typed.fonction === '' ||
      typed.dateDebut === '' ||
      typed.dateFin === '')

  const labels = {
    mail: t('userCreate.mail'),
    confirmation: t('userCreate.confirmation'),
    nom: t('userCreate.nom'),
    prenom: t('userCreate.prenom'),
    admin: t('userCreate.admin'),
    structure: t('userCreate.structure'),
    fonction: t('userCreate.fonction'),
    dateDebut: t('userCreate.dateDebut'),
    dateFin: t('userCreate.dateFin'),
  }

  return (
    <Form
      method="post"
      // Posted for the structure shown: a failed save comes back with its functions.
      action={structureId ? `${pathname}?structure=${structureId}` : undefined}
      {...getFormProps(form)}
      ref={formRef}
      className="flex flex-col gap-6"
      onChange={refresh}
      onInput={shown.onInput}
      onClick={structureChange.onClick}
      onKeyDown={structureChange.onKeyDown}
      onBlur={structureChange.onBlur}
    >
      <EnterSubmits intent={INTENT} disabled={pending || blocked}>
        {t('userCreate.save')}
      </EnterSubmits>
      <FormError message={formMessage(t, reply, labels)} />
      <div className="grid gap-6 lg:grid-cols-2">
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>{t('userCreate.identity')}</CardTitle>
          </CardHeader>
          <CardContent className="flex flex-col gap-4">
            {/* The check's outcome (hint or error) is said as it comes, the field's messages being silent. */}
            <div aria-live="polite">
              <MailField
                label={labels.mail}
                field={fields.mail}
                errors={shown.errors(fields.mail)}
                check={mailCheck}
                autoComplete="off"
              />
            </div>
            <Field
              label={labels.confirmation}
              errors={
                shown.errors(fields.confirmation) ??
                (mismatch && confirmationLeft ? [t('userCreate.mailMismatch')] : undefined)
              }
              inputProps={{
                ...getInputProps(fields.confirmation, { type: 'email' }),
                id: fields.confirmation.id,
                autoComplete: 'off',
                spellCheck: false,
                onBlur: () => setConfirmationLeft(true),
              }}
            />
            <div className="grid gap-4 sm:grid-cols-2">
              <Field
                label={labels.nom}
                errors={shown.errors(fields.nom)}
                inputProps={{
                  ...getInputProps(fields.nom, { type: 'text' }),
                  id: fields.nom.id,
                  autoComplete: 'off',
                }}
              />
              <Field
                label={labels.prenom}
                errors={shown.errors(fields.prenom)}
                inputProps={{
                  ...getInputProps(fields.prenom, { type: 'text' }),
                  id: fields.prenom.id,
                  autoComplete: 'off',
                }}
              />
            </div>
            <div className="flex flex-col gap-1.5">
              <div className="flex items-start gap-2">
                <input
                  {...getInputProps(fields.admin, { type: 'checkbox' })}
                  id={fields.admin.id}
                  aria-describedby={`${fields.admin.id}-hint`}
                  className="mt-0.5 size-4 shrink-0 accent-primary focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring focus-visible:ring-offset-2"
                />
                <Label htmlFor={fields.admin.id}>{labels.admin}</Label>
              </div>
              <p id={`${fields.admin.id}-hint`} className="text-xs text-muted-foreground">
                {t('userCreate.adminHint')}
              </p>
            </div>
          </CardContent>
        </Card>
        <Card className="min-w-0">
          <CardHeader>
            <CardTitle>{t('userCreate.position')}</CardTitle>
            <CardDescription>{t('userCreate.positionIntro')}</CardDescription>
          </CardHeader>
          <CardContent className="flex flex-col gap-4">
            <PosteFields
              words="userCreate"
              fields={fields}
              choices={choices}
              structureId={structureId}
              fonctions={fonctions}
              errors={shown.errors}
            />
          </CardContent>
        </Card>
      </div>
      <p className="flex items-start gap-2 text-sm text-muted-foreground">
        <Mail aria-hidden className="mt-0.5 size-4 shrink-0" />
        {t('userCreate.invitationNote')}
      </p>
      <div className="flex flex-col gap-2">
        <div className="flex flex-wrap gap-2">
          <SubmitButton
            name="intent"
            value={INTENT}
            icon={Save}
            pending={pending}
            pendingLabel={t('userCreate.saving')}
            disabled={blocked}
            aria-disabled={pending || blocked}
            aria-describedby={blocked && !pending ? 'user-save-hint' : undefined}
          >
            {t('userCreate.save')}
          </SubmitButton>
          <Link to={cancelTo} className={buttonVariants({ variant: 'outline' })}>
            {t('userCreate.cancel')}
          </Link>
        </div>
        {blocked && !pending ? (
          <p id="user-save-hint" className="text-xs text-muted-foreground">
            {t('userCreate.saveHint')}
          </p>
        ) : null}
      </div>
    </Form>
  )
}

/**
 * The form's message (spec §8): in logged creation the business message is followed by its first
 * attribute (the address already used); else the fields to correct, else the generic failure.
 */
function formMessage(
  t: ReturnType<typeof useTranslation>['t'],
  reply: FormReply | undefined,
  labels: Record<string, string>,
): string | null {
  if (!reply) return null
  if (reply.error) {
    const { attribut, ...values } = reply.error.values ?? {}
    const message = t(reply.error.key, values)
    return attribut === undefined ? message : t('userCreate.withAttribute', { message, attribut: String(attribut) })
  }
  // A refusal on no field of this form (the site's domain, say) still says the save failed.
  return formProblem(t, reply, labels) ?? t('errors.saveFailed')
}
