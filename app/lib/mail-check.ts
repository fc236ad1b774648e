import { useFetcher } from '@remix-run/react'
import { useEffect, useRef, useState } from 'react'
import type { useTranslation } from 'react-i18next'
import { mailProblem } from '../../worker-api/contract/mail-rules'

type MailStatus = 'short' | 'typing' | 'malformed' | 'checking' | 'free' | 'used' | 'inactive' | 'unknown'
type MailAnswer = { mail: string | null; actif: boolean | null; asked: string; failed: boolean }

/**
 * Spec §4, §5: whether the typed address has an account (used, inactive, free), checked after a pause from 3
 * characters. An address malformed or too long (spec §9) is `malformed` and never asked about; a check that failed is
 * `unknown` and blocks nothing, since the save checks again.
 */
export function useMailCheck(url: string, inputId: string) {
  const fetcher = useFetcher<MailAnswer>()
  const timer = useRef<ReturnType<typeof setTimeout>>()
  const [asked, setAsked] = useState('')
  // The malformed address the pause has passed on: its problem is said.
  const [judged, setJudged] = useState<string | null>(null)
  const problem = asked.length < 3 ? null : mailProblem(asked)
  const answer = fetcher.data && fetcher.data.asked === asked ? fetcher.data : undefined
  const status: MailStatus =
    asked.length < 3
      ? 'short'
      : problem
        ? judged === asked
          ? 'malformed'
          : 'typing'
        : !answer
          ? 'checking'
          : answer.failed
            ? 'unknown'
            : answer.mail === null
              ? 'free'
              : answer.actif
                ? 'used'
                : 'inactive'
  // The latest `load` for the timer; `check` itself stays the same function for the page's life.
  const load = useRef(fetcher.load)
  load.current = fetcher.load
  const [check] = useState(() => (value: string, wait = 350) => {
    const mail = value.trim()
    setAsked(mail)
    clearTimeout(timer.current)
    if (mail.length < 3) return
    timer.current = setTimeout(() => {
      if (mailProblem(mail)) setJudged(mail)
      else load.current(`${url}?mail=${encodeURIComponent(mail)}`)
    }, wait)
  })
  useEffect(() => () => clearTimeout(timer.current), [])
  // The address typed before the page was live (or kept by the browser) is checked once it is.
  useEffect(() => {
    const input = document.getElementById(inputId)
    if (input instanceof HTMLInputElement && input.value) check(input.value, 0)
  }, [inputId, check])
  type T = ReturnType<typeof useTranslation>['t']
  /** What the check says under the field: the address malformed, used, or held by an inactive account. */
  const errors = (t: T) =>
    status === 'malformed' && problem
      ? [t(problem)]
      : status === 'used'
        ? [t('errors.MAIL_ALREADY_USED')]
        : status === 'inactive'
          ? [t('userCreate.mailInactive')]
          : undefined
  /** And while it runs, or once the address is found free. */
  const hint = (t: T) =>
    status === 'free' ? t('userCreate.mailFree') : status === 'checking' ? t('userCreate.mailChecking') : undefined
  return { status, check, errors, hint }
}

export type MailCheck = ReturnType<typeof useMailCheck>
