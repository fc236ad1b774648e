import type { getZodConstraint } from '@conform-to/zod/v4'
import { Form, Link, useActionData, useNavigation, useSearchParams } from '@remix-run/react'
import { ArrowRight, LogIn, LogOut } from 'lucide-react'
import { useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { CenteredCard } from '~/components/centered-card'
import { Field } from '~/components/field'
import { FormError } from '~/components/form-error'
import { LanguageSwitch } from '~/components/language-switch'
import { SubmitButton } from '~/components/submit-button'
import { Alert } from '~/components/ui/alert'
import { Button } from '~/components/ui/button'
import { CompanySignIn } from '~/features/federation/company-sign-in'
import { useFormReply } from '~/lib/form'
import type { ProviderButton } from '../../../worker-api/contract/federation/sign-in'
import type { LoginForm as LoginFields, SessionEndReason } from '../../../worker-api/contract/sign-in/auth'
import { Captcha, useCaptchaGate } from './captcha'
import type { CaptchaConfig, CaptchaQuestion } from './captcha-config'
import { PasskeyButton, usePasskeyAutofill } from './passkey-sign-in'

/**
 * The login page reached while a session is open, from a visit the person did not make themselves
 * (another site's link): the session is kept until they choose. Two plain forms.
 */
export function SignedInAlready({ user }: { user: { login: string; nom: string; prenom: string } }) {
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

export type LoginFormSetup = {
  /** Whose session opening this page ended (said, never silent). */
  ended: string | null
  /** Why the session the browser had was ended elsewhere: from another device, by an administrator. */
  endedElsewhere: SessionEndReason | null
  question: CaptchaQuestion
  captcha: CaptchaConfig
  constraint: ReturnType<typeof getZodConstraint>
  /** The partners' identity providers the page lists (issue 63). */
  fournisseurs: ProviderButton[]
}

/**
 * The sign-in form. The server checks it (conform's reply, read here): on the most visited page the
 * form library's client half is not worth its weight, since a browser check would add nothing.
 */
export function LoginForm({ question, captcha, constraint, ended, endedElsewhere, fournisseurs }: LoginFormSetup) {
  // The page's last answer, whichever form it was (a passkey's refusal too): the autofill starts again after it.
  const answered = useActionData()
  const actionData = useFormReply('login')
  const [searchParams] = useSearchParams()
  const navigation = useNavigation()
  const { t } = useTranslation()
  const gate = useCaptchaGate(actionData)
  const pending = navigation.state !== 'idle' && navigation.formAction?.startsWith('/login') === true
  const form = useRef<HTMLFormElement>(null)
  const reply = actionData?.result
  const redirectTo = searchParams.get('redirect') ?? ''
  const initialIdentifier = typeof reply?.initialValue?.identifiant === 'string' ? reply.initialValue.identifiant : ''
  // What is typed as the identifier: an address of a provider's domain offers its button.
  const [typed, setTyped] = useState(initialIdentifier)
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
            defaultValue: initialIdentifier,
            onChange: (event) => setTyped(event.currentTarget.value),
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
      <CompanySignIn
        providers={fournisseurs}
        typed={typed}
        redirect={redirectTo}
        refusal={searchParams.get('fournisseur')}
        mail={searchParams.get('mail') ?? ''}
      />
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
