import altchaWorkerUrl from 'altcha/worker?url'
import 'altcha/altcha.css'

// JSX typing of <altcha-widget> comes with the altcha package.
import type {} from 'altcha'
import { useEffect, useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { Input } from './ui/input'
import { Label } from './ui/label'

export const CHALLENGE_URL = '/portail-backend/rest/public/bd/captcha/challenge'
export type CaptchaQuestion = { a: number; b: number; question: string }

/**
 * Human verification (DESIGN §6): the ALTCHA proof-of-work checkbox posts its solved payload as
 * `captcha`; without JavaScript a signed arithmetic question is asked instead.
 */
export function Captcha({ question, onVerified }: { question: CaptchaQuestion; onVerified?: () => void }) {
  const { t } = useTranslation()
  const widget = useRef<HTMLElement>(null)
  useEffect(() => {
    // The widget registers a custom element: browser only.
    import('altcha/external')
  }, [])
  useEffect(() => {
    const element = widget.current
    if (!element || !onVerified) return
    const listener = (event: Event) => {
      if ((event as CustomEvent<{ state: string }>).detail?.state === 'verified') onVerified()
    }
    element.addEventListener('statechange', listener)
    return () => element.removeEventListener('statechange', listener)
  }, [onVerified])
  const strings = JSON.stringify({
    label: t('captcha.label'),
    verifying: t('captcha.verifying'),
    verified: t('captcha.verified'),
    error: t('captcha.error'),
    expired: t('captcha.expired'),
    waitAlert: t('captcha.waitAlert'),
  })
  return (
    <div className="flex flex-col gap-1.5">
      <altcha-widget
        ref={widget}
        challengeurl={CHALLENGE_URL}
        name="captcha"
        strings={strings}
        workerurl={altchaWorkerUrl}
        hidelogo
        hidefooter
      />
      <noscript>
        <div className="flex flex-col gap-1.5">
          <Label htmlFor="captchaAnswer">{t('captcha.question', { a: question.a, b: question.b })}</Label>
          <input type="hidden" name="captchaQuestion" value={question.question} />
          <Input id="captchaAnswer" name="captchaAnswer" inputMode="numeric" autoComplete="off" className="w-24" />
        </div>
      </noscript>
    </div>
  )
}

/** The payload to send as `captcha`: the widget's, else the no-JavaScript answer; null if none. */
export function captchaPayload(form: FormData): string | null {
  const widget = form.get('captcha')
  if (typeof widget === 'string' && widget) return widget
  const question = form.get('captchaQuestion')
  const answer = form.get('captchaAnswer')
  if (typeof question === 'string' && typeof answer === 'string' && answer.trim()) {
    return btoa(JSON.stringify({ question, answer: answer.trim() }))
  }
  return null
}
