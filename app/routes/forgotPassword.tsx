import { getFormProps, getInputProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { type ActionFunctionArgs, type LoaderFunctionArgs, redirect } from '@remix-run/cloudflare'
import { Form, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { Send } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { Field } from '~/components/field'
import { FormError } from '~/components/form-error'
import { PublicPage } from '~/components/public-page'
import { SubmitButton } from '~/components/submit-button'
import { CAPTCHA_REQUIRED, Captcha, captchaMessage, captchaPayload, useCaptchaGate } from '~/features/sign-in/captcha'
import { captchaSetup } from '~/features/sign-in/captcha.server'
import { publicApi, read } from '~/lib/api.server'
import { apiMessage, type Message } from '~/lib/api-errors'
import { formReply, readForm } from '~/lib/form.server'
import { i18nServer } from '~/lib/i18n.server'
import { pageTitle, titleMeta } from '~/lib/title'
import { toastHeaders } from '~/lib/toast.server'
import { type ForgotForm, forgotFormSchema } from '../../worker-api/contract/sign-in/password'

export const meta = titleMeta

export async function loader({ request, context }: LoaderFunctionArgs) {
  const [setup, t] = await Promise.all([captchaSetup(request, context), i18nServer.getFixedT(request)])
  // The form is checked on the server only: its rules stay out of the page's JavaScript.
  return { ...setup, constraint: getZodConstraint(forgotFormSchema), title: pageTitle(t, t('forgot.title')) }
}

/**
 * Spec §2 /forgotPassword: the API answers the same for any address (it reveals nothing), so success
 * is a notice and back to /login; a failure (verification, too many requests, an outage) stays here
 * with the typed address.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const formData = await readForm(request)
  const submission = parseWithZod(formData, { schema: forgotFormSchema })
  const failure = (error: Message | null) => formReply('forgot', submission.reply(), captchaMessage(formData, error))
  const captcha = captchaPayload(formData)
  // Every problem at once: the fields' and a missing verification.
  if (submission.status !== 'success') return failure(captcha ? null : CAPTCHA_REQUIRED)
  if (!captcha) return failure(CAPTCHA_REQUIRED)
  const result = await read(
    publicApi(request, context).rest.public.bd.password.forgot.index.$post({
      json: { mail: submission.value.mail, domain: new URL(request.url).origin, captcha },
    }),
  )
  if (!result.ok) return failure(apiMessage(result, 'forgot.failed'))
  return redirect('/login', { headers: await toastHeaders(request, context, { type: 'success', key: 'forgot.sent' }) })
}

export default function ForgotPassword() {
  const { question, captcha, constraint } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const navigation = useNavigation()
  const { t } = useTranslation()
  const gate = useCaptchaGate(actionData)
  const pending = navigation.state !== 'idle' && navigation.formAction?.startsWith('/forgotPassword') === true

  const [form, fields] = useForm<ForgotForm>({
    id: 'forgot',
    lastResult: actionData?.result,
    constraint,
    shouldValidate: 'onSubmit',
    onSubmit: gate.onSubmit,
  })
  const serverError = actionData?.error ? t(actionData.error.key, actionData.error.values) : null
  const error = gate.shown(actionData?.error) ? serverError : null

  return (
    <PublicPage title={t('forgot.title')}>
      <p className="text-sm text-muted-foreground">{t('forgot.intro')}</p>
      <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
        <FormError message={error} />
        <Field
          label={t('forgot.mail')}
          errors={fields.mail.errors?.map((key) => t(key))}
          inputProps={{
            ...getInputProps(fields.mail, { type: 'email' }),
            id: fields.mail.id,
            autoComplete: 'email',
            autoFocus: true,
          }}
        />
        <Captcha key={gate.key} question={question} config={captcha} onState={gate.onState} />
        <SubmitButton
          icon={Send}
          pending={pending}
          pendingLabel={gate.solving ? t('captcha.verifying') : t('forgot.submitting')}
        >
          {gate.solving ? t('captcha.verifying') : t('forgot.submit')}
        </SubmitButton>
      </Form>
    </PublicPage>
  )
}
