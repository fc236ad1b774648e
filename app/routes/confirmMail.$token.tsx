import { type ActionFunctionArgs, type LoaderFunctionArgs, redirect } from '@remix-run/cloudflare'
import { Form, useActionData, useLoaderData, useNavigation } from '@remix-run/react'
import { MailCheck } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { FormError } from '~/components/form-error'
import { PublicPage } from '~/components/public-page'
import { SubmitButton } from '~/components/submit-button'
import { publicApi, read } from '~/lib/api.server'
import { apiMessage, type Failure, type Message } from '~/lib/api-errors'
import { hasSession } from '~/lib/auth.server'
import { formReply, readForm, submitted } from '~/lib/form.server'
import { i18nServer } from '~/lib/i18n.server'
import { pageTitle, titleMeta } from '~/lib/title'
import { toastHeaders } from '~/lib/toast.server'

export const meta = titleMeta

/** What the link allows: confirming the address, or why not. */
type LinkState = { kind: 'form'; mail: string; login: string } | { kind: 'unusable'; message: Message }

const LINK_ERRORS = new Set(['TOKEN_EXPIRED', 'TOKEN_USED', 'TOKEN_NOT_FOUND'])

/** Why the link cannot work, when the API's refusal is the link's fault: in this page's words. */
function linkMessage(result: Failure): Message | null {
  const code = result.error.businessCode
  return LINK_ERRORS.has(code) ? { key: `confirmMail.${code}` } : null
}

const LINK_MESSAGES = new Set([...LINK_ERRORS].map((code) => `confirmMail.${code}`))

/** The link's state a refusal means, read from its message: the lookup's and a failed confirmation's alike. */
function failedLinkState(message: Message | null): LinkState | null {
  return message && LINK_MESSAGES.has(message.key) ? { kind: 'unusable', message } : null
}

/**
 * The link a user's new address received (security review, finding 2). Opening it only shows what it
 * would do; the change is a POST of its own, so that a mail scanner following links changes nothing.
 */
export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const [lookup, t] = await Promise.all([
    read(
      publicApi(request, context).rest.public.bd.utilisateur.mail.token[':token'].$get({
        param: { token: encodeURIComponent(params.token ?? '') },
      }),
    ),
    i18nServer.getFixedT(request),
  ])
  const title = pageTitle(t, t('confirmMail.title'))
  if (lookup.ok) return { state: { kind: 'form', ...lookup.data } as LinkState, title }
  // A token the API refuses as malformed (cut, padded, too long) is a link that cannot work.
  const state: LinkState | null =
    lookup.error.businessCode === 'VALIDATION_FAILED'
      ? { kind: 'unusable', message: { key: 'confirmMail.TOKEN_NOT_FOUND' } }
      : failedLinkState(linkMessage(lookup))
  if (!state) throw new Response(lookup.error.businessCode, { status: lookup.status >= 500 ? 503 : lookup.status })
  return { state, title }
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const submission = submitted(await readForm(request))
  const result = await read(
    publicApi(request, context).rest.public.bd.utilisateur.mail.confirm.index.$post({
      json: { token: params.token ?? '' },
    }),
  )
  if (result.ok) {
    const values = { mail: result.data.mail }
    const headers = await toastHeaders(request, context, { type: 'success', key: 'confirmMail.done', values })
    // Signed in here: back to the profile, which shows the new address; else to sign-in.
    return redirect((await hasSession(request, context)) ? '/pages/user/me' : '/login', { headers })
  }
  // The link stopped working meanwhile (used, expired): the page says why.
  return formReply('confirm', submission.reply(), linkMessage(result) ?? apiMessage(result, 'confirmMail.failed'))
}

export default function ConfirmMail() {
  const loaded = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const navigation = useNavigation()
  const { t } = useTranslation()
  const state = failedLinkState(actionData?.error ?? null) ?? loaded.state
  if (state.kind === 'unusable') {
    return (
      <PublicPage title={t('confirmMail.errorTitle')}>
        <FormError message={t(state.message.key, state.message.values)} />
      </PublicPage>
    )
  }
  const pending = navigation.state === 'submitting'
  const error = actionData?.error ? t(actionData.error.key, actionData.error.values) : null
  return (
    <PublicPage title={t('confirmMail.title')}>
      <p>{t('confirmMail.intro', { login: state.login, mail: state.mail })}</p>
      <Form method="post" className="flex flex-col gap-4">
        <FormError message={error} />
        <SubmitButton icon={MailCheck} pending={pending} pendingLabel={t('confirmMail.submitting')}>
          {t('confirmMail.submit')}
        </SubmitButton>
      </Form>
    </PublicPage>
  )
}
