import { Form, Link, useLocation, useNavigation, useSearchParams } from '@remix-run/react'
import { ArrowLeft, KeyRound, LogIn } from 'lucide-react'
import { useEffect, useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { CenteredCard } from '~/components/centered-card'
import { Field } from '~/components/field'
import { FormError } from '~/components/form-error'
import { LanguageSwitch } from '~/components/language-switch'
import { SubmitButton } from '~/components/submit-button'
import type { Message } from '~/lib/api-errors'
import type { MfaMethod } from '../../../worker-api/contract/sign-in/mfa'
import { PasskeyButton } from './passkey-sign-in'

/** What the second step of a sign-in carries: its challenge, the methods the user has, the identifier. */
export type MfaStep = { challenge: string; methodes: MfaMethod[]; identifiant: string }

/**
 * The second step of a sign-in, after the right password of a user with a second factor: a code of
 * their authenticator app or one of their recovery codes. A plain form (the challenge travels with
 * it), so it works without JavaScript.
 */
export function LoginSecondStep({ step, error }: { step: MfaStep; error: Message | null }) {
  const { t } = useTranslation()
  const [searchParams] = useSearchParams()
  const { search } = useLocation()
  const navigation = useNavigation()
  const pending = navigation.state !== 'idle' && navigation.formData?.get('intent') === 'mfa'
  const input = useRef<HTMLInputElement>(null)
  // A refused code: the field is emptied and takes the focus again.
  useEffect(() => {
    if (!error || !input.current) return
    input.current.value = ''
    input.current.focus()
  }, [step, error])
  const hint = step.methodes.includes('totp')
    ? step.methodes.includes('codeSecours')
      ? t('mfa.login.hintBoth')
      : t('mfa.login.hintTotp')
    : t('mfa.login.hintRecovery')
  // A refused code is said on its field; the form's top says where to look.
  const codeError = error && error.key !== 'errors.PASSKEY_INVALID' ? t(error.key, error.values) : null
  const formError = error
    ? codeError
      ? t('form.checkFields', { fields: t('mfa.login.code') })
      : t(error.key, error.values)
    : null
  return (
    <CenteredCard
      eyebrow={t('app.tagline')}
      title={t('mfa.login.title')}
      description={t('mfa.login.intro')}
      after={<LanguageSwitch />}
    >
      {step.methodes.includes('passkey') ? (
        <PasskeyButton
          label={t('mfa.passkeys.useOne')}
          fields={{
            challenge: step.challenge,
            identifiant: step.identifiant,
            methodes: step.methodes.join(','),
            redirect: searchParams.get('redirect') ?? '',
          }}
        />
      ) : null}
      <Form method="post" replace noValidate className="flex flex-col gap-4">
        <input type="hidden" name="intent" value="mfa" />
        <input type="hidden" name="challenge" value={step.challenge} />
        <input type="hidden" name="identifiant" value={step.identifiant} />
        <input type="hidden" name="methodes" value={step.methodes.join(',')} />
        <input type="hidden" name="redirect" value={searchParams.get('redirect') ?? ''} />
        <FormError message={formError} />
        <Field
          label={t('mfa.login.code')}
          hint={hint}
          errors={codeError ? [codeError] : undefined}
          inputProps={{
            id: 'login-code',
            name: 'code',
            type: 'text',
            ref: input,
            required: true,
            maxLength: 40,
            autoComplete: 'one-time-code',
            autoCapitalize: 'none',
            spellCheck: false,
            autoFocus: true,
          }}
        />
        <SubmitButton icon={LogIn} pending={pending} pendingLabel={t('login.submitting')}>
          {t('mfa.login.submit')}
        </SubmitButton>
      </Form>
      <p className="mt-2 flex items-start gap-2 text-sm text-muted-foreground">
        <KeyRound aria-hidden className="mt-0.5 size-4 shrink-0" />
        {t('mfa.login.lost')}
      </p>
      {/* Back to the first step, the page asked for kept: the same sign-in page, asked for anew. */}
      <Link
        to={`/login${search}`}
        className="inline-flex items-center gap-2 self-start text-sm text-primary underline-offset-4 hover:underline"
      >
        <ArrowLeft aria-hidden className="size-4" />
        {t('mfa.login.switchAccount')}
      </Link>
    </CenteredCard>
  )
}
