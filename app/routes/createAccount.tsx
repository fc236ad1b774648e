import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { type ActionFunctionArgs, type LoaderFunctionArgs, redirect } from '@remix-run/cloudflare'
import { Form, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { Send } from 'lucide-react'
import { useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { Field } from '~/components/field'
import { FormError } from '~/components/form-error'
import { MailField } from '~/components/mail-field'
import { PublicPage } from '~/components/public-page'
import { SubmitButton } from '~/components/submit-button'
import { CAPTCHA_REQUIRED, Captcha, captchaMessage, captchaPayload, useCaptchaGate } from '~/features/sign-in/captcha'
import { captchaSetup } from '~/features/sign-in/captcha.server'
import { publicApi, read } from '~/lib/api.server'
import { apiMessage, encodeMessage, type Failure, fieldErrors, type Message, translateError } from '~/lib/api-errors'
import { useTyped } from '~/lib/form'
import { formReply, readForm } from '~/lib/form.server'
import { useHydrated } from '~/lib/hydrated'
import { i18nServer } from '~/lib/i18n.server'
import { useMailCheck } from '~/lib/mail-check'
import { pageTitle, titleMeta } from '~/lib/title'
import { toastHeaders } from '~/lib/toast.server'
import { type RegistrationForm, registrationFormSchema } from '../../worker-api/contract/organisation/registration'

export const meta = titleMeta

/** The carrier companies to choose from (none when the list cannot be read: a name can still be typed). */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const [setup, t, carriers] = await Promise.all([
    captchaSetup(request, context),
    i18nServer.getFixedT(request),
    read(publicApi(request, context).rest.public.bd.transporteur.structures.$get()),
  ])
  return {
    ...setup,
    carriers: carriers.ok ? carriers.data.map((carrier) => carrier.nom) : [],
    constraint: getZodConstraint(registrationFormSchema),
    title: pageTitle(t, t('register.title')),
  }
}

/** The fields Validate depends on. */
const WATCHED = ['structure', 'mail', 'confirmation', 'nom', 'prenom'] as const

/** The API's field names (`user.mail`, `structure.nom`) as the form's. */
const FORM_FIELD: Record<string, keyof RegistrationForm> = {
  'user.mail': 'mail',
  'user.nom': 'nom',
  'user.prenom': 'prenom',
  'structure.nom': 'structure',
  'structure.id': 'structure',
}

/** A refusal the form shows on a field: the API's field errors, a used address. */
function onFields(failure: Failure): Record<string, string[]> | null {
  const code = failure.error.businessCode
  if (code === 'MAIL_ALREADY_USED') return { mail: [encodeMessage(apiMessage(failure, 'errors.saveFailed'))] }
  const fields = fieldErrors(failure)
  if (!fields) return null
  return Object.fromEntries(Object.entries(fields).map(([field, errors]) => [FORM_FIELD[field] ?? field, errors]))
}

/**
 * Spec §2 /createAccount, §4 public registration flow: the fields, then the captcha, then
 * the registration — the company sent by its name, which the API matches to an existing carrier or
 * keeps for an administrator to create on accepting the request. Success → /login with a notice; any failure stays here with what was typed, and a new
 * verification (a solved one is single use).
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const formData = await readForm(request)
  const submission = parseWithZod(formData, { schema: registrationFormSchema })
  const failure = (error: Message | null, onFields?: Record<string, string[]>) =>
    formReply(
      'register',
      submission.reply(onFields ? { fieldErrors: onFields } : undefined),
      captchaMessage(formData, error),
    )
  const captcha = captchaPayload(formData)
  if (submission.status !== 'success') return failure(captcha ? null : CAPTCHA_REQUIRED)
  if (!captcha) return failure(CAPTCHA_REQUIRED)
  const { structure, mail, nom, prenom } = submission.value
  const result = await read(
    publicApi(request, context).rest.public.bd.transporteur.inscription.$post({
      json: { user: { mail, nom, prenom }, structure: { nom: structure }, captcha },
    }),
  )
  if (!result.ok) {
    const fields = onFields(result)
    return fields ? failure(null, fields) : failure(apiMessage(result, 'errors.saveFailed'))
  }
  return redirect('/login', {
    headers: await toastHeaders(request, context, { type: 'success', key: 'register.done' }),
  })
}

export default function CreateAccount() {
  const { question, captcha, carriers, constraint } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const navigation = useNavigation()
  const { t } = useTranslation()
  const hydrated = useHydrated()
  const gate = useCaptchaGate(actionData)
  const pending = navigation.state !== 'idle' && navigation.formAction?.startsWith('/createAccount') === true
  const [form, fields] = useForm<RegistrationForm>({
    id: 'register',
    lastResult: actionData?.result,
    constraint,
    shouldValidate: 'onSubmit',
    onSubmit: gate.onSubmit,
  })
  const translate = (errors: string[] | undefined) => errors?.map((error) => translateError(t, error))
  const serverError = actionData?.error ? t(actionData.error.key, actionData.error.values) : null
  const error = gate.shown(actionData?.error) ? serverError : null

  // What Validate depends on (spec §5 save-disabled rules).
  const formRef = useRef<HTMLFormElement>(null)
  const { typed, refresh } = useTyped(formRef, WATCHED)
  const mailCheck = useMailCheck('/createAccount/mail', fields.mail.id)

  const known = new Set(carriers.map((nom) => nom.toLowerCase()))
  const newCompany = typed !== null && typed.structure.length >= 3 && !known.has(typed.structure.toLowerCase())
  const blocked =
    hydrated &&
    (typed === null ||
      !(mailCheck.status === 'free' || mailCheck.status === 'unknown') ||
      typed.nom === '' ||
      typed.prenom === '' ||
      typed.mail.toLowerCase() !== typed.confirmation.toLowerCase() ||
      typed.structure === '')

  return (
    <PublicPage title={t('register.title')}>
      <p className="text-sm text-muted-foreground">{t('register.intro')}</p>
      <Form method="post" {...getFormProps(form)} ref={formRef} onChange={refresh} className="flex flex-col gap-4">
        <FormError message={error} />
        <Field
          label={t('register.structure')}
          errors={translate(fields.structure.errors)}
          hint={newCompany ? t('register.newStructure') : t('register.structureHint')}
          inputProps={{
            ...getInputProps(fields.structure, { type: 'text' }),
            id: fields.structure.id,
            list: 'register-carriers',
            autoComplete: 'organization',
            autoFocus: true,
          }}
        />
        {/* The browser's own suggestions, filtered as one types, a new name accepted (with or without JavaScript). */}
        <datalist id="register-carriers">
          {carriers.map((nom) => (
            <option key={nom} value={nom} />
          ))}
        </datalist>
        <div aria-live="polite">
          <MailField
            label={t('register.mail')}
            field={fields.mail}
            errors={translate(fields.mail.errors)}
            check={mailCheck}
            autoComplete="email"
          />
        </div>
        <Field
          label={t('register.confirmation')}
          errors={translate(fields.confirmation.errors)}
          inputProps={{
            ...getInputProps(fields.confirmation, { type: 'email' }),
            id: fields.confirmation.id,
            autoComplete: 'email',
            spellCheck: false,
          }}
        />
        <div className="grid gap-4 sm:grid-cols-2">
          <Field
            label={t('register.nom')}
            errors={translate(fields.nom.errors)}
            inputProps={{
              ...getInputProps(fields.nom, { type: 'text' }),
              id: fields.nom.id,
              autoComplete: 'family-name',
            }}
          />
          <Field
            label={t('register.prenom')}
            errors={translate(fields.prenom.errors)}
            inputProps={{
              ...getInputProps(fields.prenom, { type: 'text' }),
              id: fields.prenom.id,
              autoComplete: 'given-name',
            }}
          />
        </div>
        <Captcha key={gate.key} question={question} config={captcha} onState={gate.onState} />
        <div className="flex flex-col gap-2">
          <SubmitButton
            icon={Send}
            pending={pending}
            pendingLabel={gate.solving ? t('captcha.verifying') : t('register.submitting')}
            disabled={blocked}
            aria-disabled={pending || blocked}
            aria-describedby={blocked && !pending ? 'register-submit-hint' : undefined}
          >
            {gate.solving ? t('captcha.verifying') : t('register.submit')}
          </SubmitButton>
          {blocked && !pending ? (
            <p id="register-submit-hint" className="text-xs text-muted-foreground">
              {t('register.submitHint')}
            </p>
          ) : null}
        </div>
      </Form>
    </PublicPage>
  )
}
