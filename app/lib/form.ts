import type { SubmissionResult } from '@conform-to/react'
import { useActionData, useNavigation } from '@remix-run/react'
import { type RefObject, useEffect, useRef, useState } from 'react'
import type { Message } from './api-errors'

/**
 * What every form action answers when it fails (the one convention of the portal's forms): which form
 * of the page it was (`intent`), conform's submission result with the field errors, and a message for
 * the form as a whole. With status 400; success redirects with a toast instead.
 */
export type FormReply<Intent extends string = string> = {
  intent: Intent
  result: SubmissionResult<string[]>
  error: Message | null
}

/** The failed reply of the form `intent` of this page, if that is what the last submission was. */
export function useFormReply<Intent extends string>(intent: Intent): FormReply<Intent> | undefined {
  const reply = useActionData() as FormReply | undefined
  return reply?.intent === intent ? (reply as FormReply<Intent>) : undefined
}

/** Whether the form `intent` of this page is being sent (its button says so and stays put). */
export function usePendingIntent(intent: string): boolean {
  const navigation = useNavigation()
  return navigation.state === 'submitting' && navigation.formData?.get('intent') === intent
}

/**
 * The text of some fields of a form as it is now (trimmed), for the rules that enable its button:
 * read after each change in it (`refresh`, the form's `onChange`), and when `deps` change (the
 * loader's choices came back). Null before the page is live.
 */
export function useTyped<Name extends string>(
  formRef: RefObject<HTMLFormElement>,
  names: readonly Name[],
  deps: unknown[] = [],
) {
  const [typed, setTyped] = useState<Record<Name, string> | null>(null)
  function refresh() {
    const form = formRef.current
    if (!form) return
    const data = new FormData(form)
    setTyped(
      Object.fromEntries(names.map((name) => [name, String(data.get(name) ?? '').trim()])) as Record<Name, string>,
    )
  }
  const latest = useRef(refresh)
  latest.current = refresh
  useEffect(() => latest.current(), deps)
  return { typed, refresh }
}
