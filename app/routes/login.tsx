import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import {
  type ActionFunctionArgs,
  type AppLoadContext,
  data,
  type LoaderFunctionArgs,
  redirect,
} from '@remix-run/cloudflare'
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from '@remix-run/react'
import { ArrowRight, LogIn, LogOut } from 'lucide-react'
import { useEffect, useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { z } from 'zod'
import { CenteredCard } from '~/components/centered-card'
import { Field } from '~/components/field'
import { FormError } from '~/components/form-error'
import { LanguageSwitch } from '~/components/language-switch'
import { SubmitButton } from '~/components/submit-button'
import { Alert } from '~/components/ui/alert'
import { Button } from '~/components/ui/button'
import { CAPTCHA_REQUIRED, Captcha, captchaMessage, captchaPayload, useCaptchaGate } from '~/features/sign-in/captcha'
import { captchaSetup } from '~/features/sign-in/captcha.server'
import type { CaptchaConfig, CaptchaQuestion } from '~/features/sign-in/captcha-config'
import { LoginSecondStep, type MfaStep } from '~/features/sign-in/login-second-step'
import { PasskeyButton, usePasskeyAutofill } from '~/features/sign-in/passkey-sign-in'
import { webauthnAnswer } from '~/features/sign-in/second-factor.server'
import { publicApi, read } from '~/lib/api.server'
import { type Failure, loginMessage, type Message } from '~/lib/api-errors'
import { endSession, hasSession, liveSessionUser } from '~/lib/auth.server'
import { formReply, intentOf, readForm, replyTo, textField } from '~/lib/form.server'
import { i18nServer } from '~/lib/i18n.server'
import { afterLogin } from '~/lib/safe-redirect'
import { getSession, LOGIN_END_PARAM } from '~/lib/session.server'
import { pageTitle, titleMeta } from '~/lib/title'
import { toastHeaders } from '~/lib/toast.server'
import { type LoginForm as LoginFields, loginFormSchema, type SessionEndReason } from '../../worker-api/contract/auth'
import { MFA_METHODS, type MfaChallenge, type MfaMethod } from '../../worker-api/contract/mfa'
import type { PasskeyLogin } from '../../worker-api/contract/passkeys'

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
  const { question, captcha } = await captchaSetup(request, context)
  // The form is checked on the server only: its rules stay out of the page's JavaScript.
  const form = {
    question,
    captcha,
    constraint: getZodConstraint(loginFormSchema),
    ended,
    endedElsewhere: endedElsewhere(new URL(request.url).searchParams.get('fin')),
  }
  return data({ signedInAs: null, form, title }, { headers: setCookie ? { 'Set-Cookie': setCookie } : undefined })
}

/** A step of a sign-in as its forms carry it back: its challenge, the identifier, the methods offered. */
const stepFields = {
  challenge: textField(100),
  identifiant: textField(100),
  methodes: textField(100).transform((value) =>
    value.split(',').filter((method): method is MfaMethod => (MFA_METHODS as readonly string[]).includes(method)),
  ),
}

/**
 * The page's forms: the password (the main one, no `intent`), "continue as …" (the loader's offer),
 * the second step's code, and a passkey's answer (passwordless, or as the second step).
 */
const loginIntents = z.discriminatedUnion('intent', [
  z.object({ intent: z.literal('login') }),
  z.object({ intent: z.literal('continue') }),
  z.object({ intent: z.literal('mfa'), ...stepFields, code: textField(40) }),
  z.object({ intent: z.literal('passkey'), ...stepFields }),
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

/** What 403 MFA_REQUIRED asks for: the second step's form. */
function secondStepOf(result: Failure, identifiant: string): MfaStep | null {
  if (result.error.businessCode !== 'MFA_REQUIRED') return null
  const attribute = result.error.attributs[0] as Partial<MfaChallenge> | undefined
  if (!attribute?.challenge) return null
  return { challenge: attribute.challenge, methodes: attribute.methodes ?? [], identifiant }
}

/** The second step again, saying why (its challenge still alive). */
const stepAgain = (formData: FormData, { challenge, methodes, identifiant }: MfaStep, error: Message) =>
  replyTo('mfa', formData, { shown: { challenge, methodes, identifiant }, error, hideFields: ['code', 'reponse'] })

/**
 * The second step sent: a right code signs in; a wrong one shows the step again, its challenge still
 * alive; a dead challenge (expired, used, or ended by the lockout) goes back to the password.
 */
async function secondStep(
  request: Request,
  context: AppLoadContext,
  formData: FormData,
  step: MfaStep & { code: string },
) {
  const { challenge, code } = step
  if (code.trim() === '') return stepAgain(formData, step, { key: 'validation.required' })
  const result = await read(publicApi(request, context).rest.public.bd.login.mfa.$post({ json: { challenge, code } }))
  if (result.ok) return signedIn(request, context, result.data, formData)
  if (result.error.businessCode === 'MFA_CODE_INVALID' || result.error.businessCode === 'VALIDATION_FAILED') {
    return stepAgain(formData, step, { key: 'errors.MFA_CODE_INVALID' })
  }
  return backToPassword(step.identifiant, loginMessage(result))
}

/** The sign-in form again, the identifier kept, saying why. */
function backToPassword(identifiant: string, message: Message) {
  const form = new FormData()
  form.set('identifiant', identifiant)
  form.set('motDePasse', '-')
  const submission = parseWithZod(form, { schema: loginFormSchema })
  return formReply('login', submission.reply({ hideFields: ['motDePasse'] }), message)
}

/**
 * A passkey's answer (the page's script: app/features/sign-in/passkeys.ts), passwordless or as the
 * second step (`challenge`): a verified one signs in; a refused one says so where it was asked — the
 * second step again while its challenge lives, else the sign-in form.
 */
async function passkeyStep(request: Request, context: AppLoadContext, formData: FormData, step: MfaStep) {
  const reponse = webauthnAnswer<PasskeyLogin['reponse']>(formData)
  const invalid: Message = { key: 'errors.PASSKEY_INVALID' }
  if (!reponse) return step.challenge ? stepAgain(formData, step, invalid) : backToPassword(step.identifiant, invalid)
  const json = step.challenge ? { reponse, challenge: step.challenge } : { reponse }
  const result = await read(publicApi(request, context).rest.public.bd.login.passkey.$post({ json }))
  if (result.ok) return signedIn(request, context, result.data, formData)
  const refused = result.error.businessCode === 'PASSKEY_INVALID' || result.error.businessCode === 'VALIDATION_FAILED'
  if (step.challenge && refused) return stepAgain(formData, step, invalid)
  return backToPassword(step.identifiant, refused ? invalid : loginMessage(result))
}

/** A sign-in the API accepted: the session's cookie, and on to the page wanted. */
async function signedIn(
  request: Request,
  context: AppLoadContext,
  signed: {
    user: { id: number; login: string; nom: string; prenom: string; admin: boolean }
    jwt: { accessToken: string; refreshToken: string }
  },
  formData: FormData,
) {
  const { session, commit } = await getSession(request, context)
  const { user, jwt } = signed
  // Whose session this sign-in replaces: one still open (another tab's), or the one the page ended.
  const before = session.get('user')
  const previous = before ? `${before.prenom} ${before.nom}` : String(formData.get('ended') ?? '').slice(0, 101)
  const name = `${user.prenom} ${user.nom}`
  session.set('accessToken', jwt.accessToken)
  session.set('refreshToken', jwt.refreshToken)
  session.set('user', { id: user.id, login: user.login, nom: user.nom, prenom: user.prenom, admin: user.admin })
  const headers = new Headers({ 'Set-Cookie': await commit() })
  // Another account than the one before: the next page says who is signed in now.
  if (previous && previous !== name) {
    const toast = new Headers(
      await toastHeaders(request, context, { type: 'info', key: 'login.switched', values: { name, previous } }),
    )
    for (const cookie of toast.getSetCookie()) headers.append('Set-Cookie', cookie)
  }
  return redirect(afterLogin(formData.get('redirect')), { headers })
}

export default function Login() {
  const loaderData = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  if (loaderData.signedInAs) return <SignedInAlready user={loaderData.signedInAs} />
  if (actionData?.intent === 'mfa' && actionData.shown)
    return <LoginSecondStep step={actionData.shown} error={actionData.error} />
  return <LoginForm {...loaderData.form} />
}

/**
 * The login page reached while a session is open, from a visit the person did not make themselves
 * (another site's link): the session is kept until they choose. Two plain forms.
 */
function SignedInAlready({ user }: { user: { login: string; nom: string; prenom: string } }) {
  const { t } = useTranslation()
  const [searchParams] = useSearchParams()
  return (
    <CenteredCard eyebrow={t('app.tagline')} title={t('login.alreadyTitle')} after={<LanguageSwitch />}>
      <p>{t('login.alreadySignedIn', { name: `${user.prenom} ${user.nom}`, login: user.login })}</p>
      <div className="flex flex-wrap gap-3">
        <Form method="post" replace>
          <input type="hidden" name="intent" value="continue" />
          <input type="hidden" name="redirect" value={searchParams.get('redirect') ?? ''} />
          <Button type="submit">
            <ArrowRight aria-hidden />
            {t('login.continue')}
          </Button>
        </Form>
        <Form method="post" action="/logout">
          <Button type="submit" variant="outline">
            <LogOut aria-hidden />
            {t('login.signOut')}
          </Button>
        </Form>
      </div>
    </CenteredCard>
  )
}

/** Why the session this page follows was ended (its `fin` parameter), if it says one. */
function endedElsewhere(fin: string | null): SessionEndReason | null {
  return (Object.keys(LOGIN_END_PARAM) as SessionEndReason[]).find((reason) => LOGIN_END_PARAM[reason] === fin) ?? null
}

type LoginFormSetup = {
  /** Whose session opening this page ended (said, never silent). */
  ended: string | null
  /** Why the session the browser had was ended elsewhere: from another device, by an administrator. */
  endedElsewhere: SessionEndReason | null
  question: CaptchaQuestion
  captcha: CaptchaConfig
  constraint: ReturnType<typeof getZodConstraint>
}

/**
 * The sign-in form. The server checks it (conform's reply, read here): on the most visited page the
 * form library's client half is not worth its weight, since a browser check would add nothing.
 */
function LoginForm({ question, captcha, constraint, ended, endedElsewhere }: LoginFormSetup) {
  const answered = useActionData<typeof action>()
  const actionData = answered?.intent === 'login' ? answered : undefined
  const [searchParams] = useSearchParams()
  const navigation = useNavigation()
  const { t } = useTranslation()
  const gate = useCaptchaGate(actionData)
  const pending = navigation.state !== 'idle' && navigation.formAction?.startsWith('/login') === true
  const form = useRef<HTMLFormElement>(null)
  const reply = actionData?.result
  const redirectTo = searchParams.get('redirect') ?? ''
  // The person's passkeys in the identifier's suggestions, where the browser offers them.
  usePasskeyAutofill({ redirect: redirectTo }, answered)

  useEffect(() => {
    const element = form.current
    if (!actionData || !element) return
    // Like the page without JavaScript, a failed attempt leaves the password field empty…
    const password = element.elements.namedItem('motDePasse')
    if (password instanceof HTMLInputElement) password.value = ''
    // …and the first field the server refused takes the focus.
    element.querySelector<HTMLInputElement>('input[aria-invalid="true"]')?.focus()
  }, [actionData])
  const serverError = actionData?.error ? t(actionData.error.key, actionData.error.values) : null
  const error = gate.shown(actionData?.error) ? serverError : null
  const fieldErrors = (name: keyof LoginFields) => reply?.error?.[name]?.map((key) => t(key))
  const limits = (name: keyof LoginFields) => ({
    required: constraint[name]?.required,
    maxLength: constraint[name]?.maxLength,
  })

  return (
    <CenteredCard
      eyebrow={t('app.tagline')}
      title={t('login.title')}
      description={t('login.intro')}
      after={<LanguageSwitch />}
    >
      <Form
        method="post"
        id="login"
        ref={form}
        replace
        noValidate
        onSubmit={gate.onSubmit}
        className="flex flex-col gap-4"
      >
        <input type="hidden" name="redirect" value={searchParams.get('redirect') ?? ''} />
        {/* Until the first attempt: a failed one's page, as the page opened again, has ended nothing. */}
        {ended && !actionData ? (
          <>
            <input type="hidden" name="ended" value={ended} />
            <Alert role="status">{t('login.sessionEnded', { name: ended })}</Alert>
          </>
        ) : null}
        {endedElsewhere && !ended && !actionData ? (
          <Alert role="status">
            {endedElsewhere === 'ADMINISTRATEUR' ? t('login.endedByAdministrator') : t('login.endedFromAnotherDevice')}
          </Alert>
        ) : null}
        <FormError message={error} />
        <Field
          label={t('login.identifiant')}
          hint={t('login.identifiantHint')}
          errors={fieldErrors('identifiant')}
          inputProps={{
            id: 'login-identifiant',
            name: 'identifiant',
            type: 'text',
            defaultValue: typeof reply?.initialValue?.identifiant === 'string' ? reply.initialValue.identifiant : '',
            ...limits('identifiant'),
            // `webauthn`: the browser may offer the person's passkeys among the suggestions.
            autoComplete: 'username webauthn',
            autoFocus: true,
          }}
        />
        <Field
          label={t('login.motDePasse')}
          errors={fieldErrors('motDePasse')}
          inputProps={{
            id: 'login-motDePasse',
            name: 'motDePasse',
            type: 'password',
            ...limits('motDePasse'),
            autoComplete: 'current-password',
          }}
        />
        {/* A new widget after each answer: a solved challenge is single use (spec §8). */}
        <Captcha key={gate.key} question={question} config={captcha} onState={gate.onState} />
        <SubmitButton
          icon={LogIn}
          pending={pending}
          pendingLabel={gate.solving ? t('captcha.verifying') : t('login.submitting')}
        >
          {gate.solving ? t('captcha.verifying') : t('login.submit')}
        </SubmitButton>
      </Form>
      <PasskeyButton label={t('mfa.passkeys.signIn')} fields={{ redirect: redirectTo }} />
      <nav className="mt-2 flex flex-col gap-2 text-sm">
        <Link className="text-primary underline-offset-4 hover:underline" to="/forgotPassword">
          {t('login.forgotPassword')}
        </Link>
        <Link className="text-primary underline-offset-4 hover:underline" to="/createAccount">
          {t('login.createAccount')}
        </Link>
      </nav>
    </CenteredCard>
  )
}
