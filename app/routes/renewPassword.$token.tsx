import { getFormProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { type ActionFunctionArgs, type LoaderFunctionArgs, redirect } from '@remix-run/cloudflare'
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { KeyRound } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { FormError } from '~/components/form-error'
import { PublicPage } from '~/components/public-page'
import { SubmitButton } from '~/components/submit-button'
import { NewPasswordFields } from '~/features/sign-in/password-rules'
import { publicApi, read } from '~/lib/api.server'
import { apiMessage, type Message } from '~/lib/api-errors'
import { formFailure, formReply, readForm } from '~/lib/form.server'
import { i18nServer } from '~/lib/i18n.server'
import { pageTitle, titleMeta } from '~/lib/title'
import { toastHeaders } from '~/lib/toast.server'
import { type RenewForm as RenewFields, renewFormSchema } from '../../worker-api/contract/sign-in/password'

export const meta = titleMeta

/** What the link allows: the form, or why not (spec §2: expired token or disabled user). */
type LinkState = { kind: 'form'; mail: string } | { kind: 'disabled' } | { kind: 'unusable'; message: Message }

const LINK_ERRORS = new Set(['errors.TOKEN_EXPIRED', 'errors.TOKEN_USED', 'errors.TOKEN_NOT_FOUND'])

/**
 * The state a refusal means for the link, when it is the link's fault (or the user's), read from its
 * message: the lookup's and a failed renewal's reply alike.
 */
function failedLinkState(message: Message | null): LinkState | null {
  if (message && LINK_ERRORS.has(message.key)) return { kind: 'unusable', message }
  if (message?.key === 'errors.USER_DISABLED') return { kind: 'disabled' }
  return null
}

const UNKNOWN_LINK: LinkState = { kind: 'unusable', message: { key: 'errors.TOKEN_NOT_FOUND' } }

async function linkState(request: Request, context: LoaderFunctionArgs['context'], token: string): Promise<LinkState> {
  const result = await read(
    publicApi(request, context).rest.public.bd.password.token[':token'].$get({
      param: { token: encodeURIComponent(token) },
    }),
  )
  if (!result.ok) {
    // A token the API refuses as malformed (cut, padded, too long) is a link that cannot work.
    if (result.error.businessCode === 'VALIDATION_FAILED') return UNKNOWN_LINK
    const state = failedLinkState(apiMessage(result, ''))
    if (state) return state
    throw new Response(result.error.businessCode, { status: result.status >= 500 ? 503 : result.status })
  }
  // Spec §4: an inactive or deleted user gets the disabled error, not the form.
  if (!result.data.actif || result.data.supprime) return { kind: 'disabled' }
  return { kind: 'form', mail: result.data.mail }
}

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const [state, t] = await Promise.all([linkState(request, context, params.token ?? ''), i18nServer.getFixedT(request)])
  // The form is checked on the server only: its rules stay out of the page's JavaScript.
  return { state, constraint: getZodConstraint(renewFormSchema), title: pageTitle(t, t('renew.title')) }
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const formData = await readForm(request)
  const submission = parseWithZod(formData, { schema: renewFormSchema })
  const hide = { hideFields: ['password', 'confirmation'] }
  if (submission.status !== 'success') return formReply('renew', submission.reply(hide), null)

  const result = await read(
    publicApi(request, context).rest.public.bd.password.renew.index.$post({
      json: { token: params.token ?? '', password: submission.value.password },
    }),
  )
  if (result.ok) {
    return redirect('/login', { headers: await toastHeaders(request, context, { type: 'success', key: 'renew.done' }) })
  }
  // The link stopped working meanwhile (used in another tab, expired, user disabled): the page says why.
  return formFailure('renew', submission, { failure: result, fallback: 'renew.failed', ...hide })
}

function Unusable({ title, message }: { title: string; message: string }) {
  const { t } = useTranslation()
  return (
    <PublicPage title={title}>
      <FormError message={message} />
      <Link className="text-sm text-primary underline-offset-4 hover:underline" to="/forgotPassword">
        {t('renew.newLink')}
      </Link>
    </PublicPage>
  )
}

export default function RenewPassword() {
  const loaded = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const state = failedLinkState(actionData?.error ?? null) ?? loaded.state
  const { t } = useTranslation()
  if (state.kind === 'disabled')
    return <Unusable title={t('renew.disabledTitle')} message={t('errors.USER_DISABLED')} />
  if (state.kind === 'unusable') {
    return <Unusable title={t('renew.errorTitle')} message={t(state.message.key, state.message.values)} />
  }
  return <RenewForm mail={state.mail} constraint={loaded.constraint} />
}

function RenewForm({ mail, constraint }: { mail: string; constraint: ReturnType<typeof getZodConstraint> }) {
  const actionData = useActionData<typeof action>()
  const navigation = useNavigation()
  const { t } = useTranslation()
  const pending = navigation.state === 'submitting'
  const [form, fields] = useForm<RenewFields>({
    id: 'renew',
    lastResult: actionData?.result,
    constraint,
    shouldValidate: 'onSubmit',
  })
  const error = actionData?.error ? t(actionData.error.key, actionData.error.values) : null

  return (
    <PublicPage title={t('renew.title')}>
      <p className="text-sm text-muted-foreground">{t('renew.intro', { mail })}</p>
      <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
        <FormError message={error} />
        {/* Lets password managers file the new password under the right account. */}
        <input type="hidden" name="username" value={mail} autoComplete="username" />
        <NewPasswordFields
          password={fields.password}
          confirmation={fields.confirmation}
          labels={{ password: t('renew.password'), confirmation: t('renew.confirmation') }}
          autoFocus
        />
        <SubmitButton icon={KeyRound} pending={pending} pendingLabel={t('renew.submitting')}>
          {t('renew.submit')}
        </SubmitButton>
      </Form>
    </PublicPage>
  )
}
