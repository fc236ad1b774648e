import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { type ActionFunctionArgs, data, type LoaderFunctionArgs, redirect } from '@remix-run/cloudflare'
import { useActionData, useLoaderData } from '@remix-run/react'
import { z } from 'zod'
import { CAPTCHA_REQUIRED, captchaMessage, captchaPayload } from '~/features/sign-in/captcha'
import { captchaSetup } from '~/features/sign-in/captcha.server'
import { LoginForm, SignedInAlready } from '~/features/sign-in/login-form'
import { LoginSecondStep } from '~/features/sign-in/login-second-step'
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
import { endSession, hasSession, liveSessionUser } from '~/lib/auth.server'
import { formReply, intentOf, readForm, replyTo } from '~/lib/form.server'
import { i18nServer } from '~/lib/i18n.server'
import { afterLogin } from '~/lib/safe-redirect'
import { getSession, LOGIN_END_PARAM } from '~/lib/session.server'
import { pageTitle, titleMeta } from '~/lib/title'
import { loginFormSchema, type SessionEndReason } from '../../worker-api/contract/sign-in/auth'

export const meta = titleMeta

/**
 * Sec-Fetch-Site of a visit the person made themselves: a typed or bookmarked address (`none`), or a
 * link of the portal (`same-origin`). Anything else — another site, a sibling site of the same
 * domain, or a browser that does not say — was not necessarily their choice.
 */
const OWN_NAVIGATION = new Set(['same-origin', 'none'])

/**
 * Whether the person opened /login themselves, as a page (Sec-Fetch-Mode `navigate`). The portal's
 * own script reaching /login — the back button, "Retour" — asks for its data instead (`cors`): that
 * must not end a session either.
 */
function openedThemselves(request: Request) {
  const mode = request.headers.get('Sec-Fetch-Mode')
  return OWN_NAVIGATION.has(request.headers.get('Sec-Fetch-Site') ?? '') && (mode === null || mode === 'navigate')
}

export async function loader({ request, context }: LoaderFunctionArgs) {
  const t = await i18nServer.getFixedT(request)
  const title = pageTitle(t, t('login.title'))
  // Spec §2: the login page starts from a clean state, so a session still open here is ended
  // properly — when the person opened the page themselves, and saying so. A visit another site caused,
  // or the way back through history, must not sign anyone out: it offers to continue or to sign out.
  let setCookie: string | null = null
  let ended: string | null = null
  // An application asked for a new sign-in (OpenID Connect prompt=login, max_age): the form, the
  // session kept until the new sign-in replaces it.
  const reauth = new URL(request.url).searchParams.get('reauth') === '1'
  if (!reauth && (await hasSession(request, context))) {
    if (openedThemselves(request)) {
      const { session } = await getSession(request, context)
      const user = session.get('user')
      ended = user ? `${user.prenom} ${user.nom}` : null
      setCookie = await endSession(request, context)
    } else {
      const live = await liveSessionUser(request, context)
      const headers = live.setCookie ? { 'Set-Cookie': live.setCookie } : undefined
      if (live.user) return data({ signedInAs: live.user, form: null, title }, { headers })
      setCookie = live.setCookie
    }
  }
  // The captcha's question and the providers the page lists, side by side.
  const [{ question, captcha }, listed] = await Promise.all([
    captchaSetup(request, context),
    read(publicApi(request, context).rest.public.bd.fournisseur.$get({ query: {} })),
  ])
  // The form is checked on the server only: its rules stay out of the page's JavaScript.
  const form = {
    question,
    captcha,
    constraint: getZodConstraint(loginFormSchema),
    ended,
    endedElsewhere: endedElsewhere(new URL(request.url).searchParams.get('fin')),
    // A failure to read them leaves the page as it was: the password form.
    fournisseurs: listed.ok ? listed.data.affiches : [],
  }
  return data({ signedInAs: null, form, title }, { headers: setCookie ? { 'Set-Cookie': setCookie } : undefined })
}

/**
 * The page's forms: the password (the main one, no `intent`), "continue as …" (the loader's offer),
 * the second step's code, and a passkey's answer (passwordless, or as the second step).
 */
const loginIntents = z.discriminatedUnion('intent', [
  z.object({ intent: z.literal('login') }),
  z.object({ intent: z.literal('continue') }),
  mfaStepIntent,
  passkeyStepIntent,
])

export async function action({ request, context }: ActionFunctionArgs) {
  const formData = await readForm(request)
  const sent = intentOf(formData, loginIntents, 'login')
  if (!sent) throw new Response('Malformed form', { status: 400 })
  // "Already signed in as …: continue" (the loader's offer): on to the page wanted, if still signed in.
  if (sent.intent === 'continue') {
    const signedIn = await hasSession(request, context)
    throw redirect(signedIn ? afterLogin(formData.get('redirect')) : `/login${new URL(request.url).search}`)
  }
  if (sent.intent === 'mfa') return secondStep(request, context, formData, sent)
  if (sent.intent === 'passkey') return passkeyStep(request, context, formData, sent)
  const submission = parseWithZod(formData, { schema: loginFormSchema })
  const failure = (error: Message | null) =>
    formReply('login', submission.reply({ hideFields: ['motDePasse'] }), captchaMessage(formData, error))
  const captcha = captchaPayload(formData)
  // Every problem at once: the fields' and a missing verification.
  if (submission.status !== 'success') return failure(captcha ? null : CAPTCHA_REQUIRED)
  // Spec §4: without a passed verification the sign-in is not attempted.
  if (!captcha) return failure(CAPTCHA_REQUIRED)

  const result = await read(
    publicApi(request, context).rest.public.bd.login.$post({ json: { ...submission.value, captcha } }),
  )
  if (!result.ok) {
    // The right password of a user with a second factor: its step, with the challenge it needs.
    const step = secondStepOf(result, submission.value.identifiant)
    return step ? replyTo('mfa', null, { shown: step }) : failure(loginMessage(result))
  }
  return signedIn(request, context, result.data, formData)
}

export default function Login() {
  const loaderData = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  if (loaderData.signedInAs) return <SignedInAlready user={loaderData.signedInAs} />
  if (actionData?.intent === 'mfa' && actionData.shown)
    return <LoginSecondStep step={actionData.shown} error={actionData.error} />
  return <LoginForm {...loaderData.form} />
}

/** Why the session this page follows was ended (its `fin` parameter), if it says one. */
function endedElsewhere(fin: string | null): SessionEndReason | null {
  return (Object.keys(LOGIN_END_PARAM) as SessionEndReason[]).find((reason) => LOGIN_END_PARAM[reason] === fin) ?? null
}
