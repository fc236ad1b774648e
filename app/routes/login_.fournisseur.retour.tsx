import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { Link, useActionData, useLoaderData } from '@remix-run/react'
import { ArrowLeft } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { z } from 'zod'
import { CenteredCard } from '~/components/centered-card'
import { LanguageSwitch } from '~/components/language-switch'
import { Alert } from '~/components/ui/alert'
import { bindingOf, spentBinding } from '~/features/federation/binding.server'
import { LoginSecondStep, type MfaStep } from '~/features/sign-in/login-second-step'
import {
  mfaStepIntent,
  passkeyStep,
  passkeyStepIntent,
  secondStep,
  secondStepOf,
  signedIn,
} from '~/features/sign-in/sign-in-steps.server'
import { publicApi, read } from '~/lib/api.server'
import { loginMessage, type Message } from '~/lib/api-errors'
import { intentOf, readForm } from '~/lib/form.server'
import { i18nServer } from '~/lib/i18n.server'
import { pageTitle, titleMeta } from '~/lib/title'

export const meta = titleMeta

/**
 * Where a partner's identity provider sends the browser back (README, "Identity providers"): the answer goes to the
 * API with the browser's binding (its cookie, spent here), and a sign-in the API accepts opens the session and goes on
 * to the page the sign-in started from. A user with a second factor here gets the portal's second step; a refusal is
 * said on this page (a registration waiting for approval, a provider that does not open accounts…).
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const t = await i18nServer.getFixedT(request)
  const title = pageTitle(t, t('login.federation.title'))
  const url = new URL(request.url)
  const binding = await bindingOf(request)
  const state = url.searchParams.get('state')
  const headers = new Headers({ 'Cache-Control': 'no-store', 'Set-Cookie': await spentBinding(request) })
  const refused = (refusal: Message) => data({ title, refusal, step: null as MfaStep | null }, { headers })
  if (!binding || !state) return refused({ key: 'errors.IDP_SIGN_IN_FAILED' })
  const param = (name: string) => {
    const value = url.searchParams.get(name)
    return value === null ? {} : { [name === 'error' ? 'erreur' : name]: value.slice(0, name === 'code' ? 2000 : 200) }
  }
  const result = await read(
    publicApi(request, context).rest.public.bd.fournisseur.retour.$post({
      json: { navigateur: binding, etat: state.slice(0, 200), ...param('code'), ...param('error'), ...param('iss') },
    }),
  )
  if (result.ok) {
    const form = new FormData()
    form.set('redirect', result.data.redirection ?? '')
    const response = await signedIn(request, context, result.data, form, { federated: true })
    response.headers.append('Set-Cookie', await spentBinding(request))
    return response
  }
  const step = secondStepOf(result, '')
  if (step) return data({ title, refusal: null as Message | null, step }, { headers })
  return refused(loginMessage(result))
}

/** The portal's second step after the provider (a code, or a passkey), as on the sign-in page. */
const stepIntents = z.discriminatedUnion('intent', [mfaStepIntent, passkeyStepIntent])

export async function action({ request, context }: ActionFunctionArgs) {
  const formData = await readForm(request)
  const sent = intentOf(formData, stepIntents, 'mfa')
  if (!sent) throw new Response('Malformed form', { status: 400 })
  // The session the step opens is the provider's: its sign-out follows the portal's.
  if (sent.intent === 'mfa') return secondStep(request, context, formData, sent, { federated: true })
  return passkeyStep(request, context, formData, sent, { federated: true })
}

export default function FederationReturn() {
  const loaded = useLoaderData<typeof loader>()
  const answer = useActionData<typeof action>()
  const { t } = useTranslation()
  if (answer?.intent === 'mfa' && answer.shown) return <LoginSecondStep step={answer.shown} error={answer.error} />
  if (loaded.step && !answer) return <LoginSecondStep step={loaded.step} error={null} />
  const refusal = loaded.refusal ??
    (answer?.error as Message | null | undefined) ?? { key: 'errors.IDP_SIGN_IN_FAILED' }
  const waiting = refusal.key === 'errors.IDP_REGISTRATION_PENDING'
  return (
    <CenteredCard
      eyebrow={t('app.tagline')}
      title={waiting ? t('login.federation.waitingTitle') : t('login.federation.title')}
      after={<LanguageSwitch />}
    >
      <Alert role={waiting ? 'status' : 'alert'} variant={waiting ? 'default' : 'destructive'}>
        {t(refusal.key, refusal.values)}
      </Alert>
      <Link
        to="/login"
        className="inline-flex items-center gap-2 self-start text-sm text-primary underline-offset-4 hover:underline"
      >
        <ArrowLeft aria-hidden className="size-4" />
        {t('login.federation.back')}
      </Link>
    </CenteredCard>
  )
}
