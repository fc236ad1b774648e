import altchaWorkerUrl from 'altcha/worker?url'
import 'altcha/altcha.css'

// JSX typing of <altcha-widget> comes with the altcha package.
import type {} from 'altcha'
import { useCallback, useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Input } from '~/components/ui/input'
import { Label } from '~/components/ui/label'
import type { CaptchaConfig, CaptchaQuestion } from './captcha-config'

export const CHALLENGE_URL = '/portail-backend/rest/public/bd/captcha/challenge'
/** What counts as touching a form: a field focused or filled (by hand or by a password manager), a click. */
const FIRST_TOUCH = ['focusin', 'pointerdown', 'keydown', 'input'] as const

/** Whether someone focused or typed in the form before the page's script took over (no event told us so). */
const touchedBeforeHydration = (form: HTMLFormElement) =>
  form.contains(document.activeElement) ||
  [...form.querySelectorAll('input')].some((input) => input.type !== 'hidden' && input.value !== '')

type Turnstile = {
  render(element: HTMLElement, options: Record<string, unknown>): string
  remove(widgetId: string): void
}
declare global {
  interface Window {
    turnstile?: Turnstile
  }
}

let turnstileScript: Promise<Turnstile> | null = null
function loadTurnstile(): Promise<Turnstile> {
  if (window.turnstile) return Promise.resolve(window.turnstile)
  turnstileScript ??= new Promise((resolve, reject) => {
    const script = document.createElement('script')
    script.src = 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit'
    script.async = true
    script.onload = () => (window.turnstile ? resolve(window.turnstile) : reject(new Error('turnstile missing')))
    script.onerror = reject
    document.head.appendChild(script)
  })
  return turnstileScript
}

/** Cloudflare Turnstile, rendered explicitly so that a new widget replaces a used one. */
function TurnstileWidget({ siteKey, onState }: { siteKey: string; onState?: ((state: string) => void) | undefined }) {
  const element = useRef<HTMLDivElement>(null)
  const { i18n } = useTranslation()
  useEffect(() => {
    let widgetId: string | undefined
    let cancelled = false
    loadTurnstile()
      .then((turnstile) => {
        if (cancelled || !element.current) return
        widgetId = turnstile.render(element.current, {
          sitekey: siteKey,
          'response-field-name': 'captcha',
          language: i18n.language,
          callback: () => onState?.('verified'),
        })
      })
      .catch((error: unknown) => console.error('Turnstile could not load', error))
    return () => {
      cancelled = true
      if (widgetId) window.turnstile?.remove(widgetId)
    }
  }, [siteKey, i18n.language, onState])
  return <div ref={element} className="min-h-[65px]" />
}

/**
 * Human verification (DESIGN §6): the ALTCHA proof-of-work checkbox (or Cloudflare Turnstile, when
 * the server is configured for it) posts its solved payload as `captcha`; without JavaScript a signed
 * arithmetic question is asked instead.
 */
export function Captcha({
  question,
  config,
  onState,
}: {
  question: CaptchaQuestion
  config: CaptchaConfig
  /** The widget's state as it changes: `verifying` while it solves, then `verified` (or `error`, `expired`). */
  onState?: (state: string) => void
}) {
  const { t } = useTranslation()
  const widget = useRef<HTMLElement>(null)
  useEffect(() => {
    // The widget (a custom element, 22 kB) loads when its form is first touched, not with the page.
    if (config.provider !== 'altcha') return
    const form = widget.current?.closest('form')
    const load = () => {
      stop()
      import('altcha/external').catch((error: unknown) => console.error('The verification could not load', error))
    }
    const stop = () => {
      for (const name of FIRST_TOUCH) form?.removeEventListener(name, load)
    }
    if (!form || touchedBeforeHydration(form)) return load()
    for (const name of FIRST_TOUCH) form.addEventListener(name, load, { passive: true })
    return stop
  }, [config.provider])
  useEffect(() => {
    const element = widget.current
    if (!element || !onState) return
    const listener = (event: Event) => {
      const state = (event as CustomEvent<{ state?: string }>).detail?.state
      if (state) onState(state)
    }
    element.addEventListener('statechange', listener)
    return () => element.removeEventListener('statechange', listener)
  }, [onState])
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
      {config.provider === 'turnstile' && config.siteKey ? (
        <TurnstileWidget siteKey={config.siteKey} onState={onState} />
      ) : (
        <altcha-widget
          ref={widget}
          data-placeholder={t('captcha.label')}
          challengeurl={CHALLENGE_URL}
          name="captcha"
          strings={strings}
          workerurl={altchaWorkerUrl}
          hidelogo
          hidefooter
        />
      )}
      <noscript>
        {config.provider === 'turnstile' ? (
          <p className="text-sm text-destructive">{t('captcha.javascriptRequired')}</p>
        ) : (
          <div className="flex flex-col gap-1.5">
            <Label htmlFor="captchaAnswer">{t('captcha.question', { a: question.a, b: question.b })}</Label>
            <input type="hidden" name="captchaQuestion" value={question.question} />
            <Input id="captchaAnswer" name="captchaAnswer" inputMode="numeric" autoComplete="off" className="w-24" />
          </div>
        )}
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

/** What the server answers to a public form sent without a passed verification (spec §4). */
export const CAPTCHA_REQUIRED = { key: 'errors.captchaRequired' } as const

/** The spec's captcha messages speak of a box to tick: the no-JavaScript sum gets its own words. */
const SUM_MESSAGES: Record<string, string> = {
  [CAPTCHA_REQUIRED.key]: 'errors.captchaAnswerRequired',
  'errors.CAPTCHA_VALIDATE_FAILED': 'errors.captchaAnswerWrong',
  'errors.CAPTCHA_CHAR_INVALID': 'errors.captchaAnswerWrong',
}

/** A form's failure message as its verification was shown: the widget's box, or the sum without JavaScript. */
export function captchaMessage<M extends { key: string } | null>(form: FormData, message: M): M {
  if (!message || form.get('captcha') || !form.has('captchaQuestion')) return message
  const key = SUM_MESSAGES[message.key]
  return key ? { ...message, key } : message
}

/**
 * The human-verification gate of a public form (spec §4). A form sent while the widget is solving waits for the
 * solution (`solving`); each answer of the server (`answered`) brings a new widget, since a solved challenge is single
 * use.
 */
export function useCaptchaGate(answered: unknown) {
  const [key, setKey] = useState(0)
  const [state, setState] = useState('unverified')
  // Read by the submit handler, which may run before React renders the new state.
  const current = useRef('unverified')
  const waiting = useRef<{ form: HTMLFormElement; submitter: HTMLElement | null } | null>(null)
  useEffect(() => {
    if (!answered) return
    setKey((previous) => previous + 1)
    current.current = 'unverified'
    setState('unverified')
  }, [answered])
  const onState = useCallback((next: string) => {
    current.current = next
    setState(next)
    const sent = waiting.current
    if (next === 'verifying' || !sent) return
    waiting.current = null
    // Once the widget has written its solution into the form.
    if (next === 'verified') setTimeout(() => sent.form.requestSubmit(sent.submitter), 0)
  }, [])
  /** Holds a submission made while the widget solves; it goes once solved. */
  function onSubmit(event: { preventDefault(): void; currentTarget: EventTarget | null; nativeEvent?: Event }) {
    if (current.current !== 'verifying' || !(event.currentTarget instanceof HTMLFormElement)) return
    event.preventDefault()
    const submitter = (event.nativeEvent as SubmitEvent | undefined)?.submitter ?? null
    waiting.current = { form: event.currentTarget, submitter }
  }
  /** Whether the server's message still holds: not "tick the box" once it is ticked. */
  const shown = (error: { key: string } | null | undefined) =>
    !(state === 'verified' && error?.key === CAPTCHA_REQUIRED.key)
  return { key, onState, onSubmit, solving: state === 'verifying', shown }
}
