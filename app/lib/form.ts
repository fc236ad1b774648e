import type { SubmissionResult } from '@conform-to/react'
import { useActionData, useNavigation } from '@remix-run/react'
import { type FormEvent, type RefObject, useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { type Message, translateError } from './api-errors'

/**
 * What every form action answers when it stays on its page: which form (`intent`), conform's submission result, a
 * message for the whole form, and what to show once (`shown`: a secret, recovery codes, a sign-in's second step).
 */
export type FormReply<Intent extends string = string, Shown = never> = {
  intent: Intent
  result: SubmissionResult<string[]>
  error: Message | null
  shown?: Shown
}

/** The failed reply of the form `intent` of this page, if that is what the last submission was. */
export function useFormReply<Intent extends string, Shown = never>(
  intent: Intent,
): FormReply<Intent, Shown> | undefined {
  const reply = useActionData() as FormReply<string, Shown> | undefined
  return reply?.intent === intent ? (reply as FormReply<Intent, Shown>) : undefined
}

/** A field as the failed form posted it (`reply.result.initialValue`), '' when it sent none. */
export function posted(reply: Pick<FormReply, 'result'> | undefined, name: string): string {
  const value = reply?.result.initialValue?.[name]
  return typeof value === 'string' ? value : ''
}

/** Whether the form `intent` of this page (for the row `id`, if given) is being sent (its button says so and stays put). */
export function usePendingIntent(intent: string, id?: string): boolean {
  const navigation = useNavigation()
  const form = navigation.formData
  return (
    navigation.state === 'submitting' && form?.get('intent') === intent && (id === undefined || form.get('id') === id)
  )
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

const NONE: ReadonlySet<string> = new Set()

/**
 * A failed save's field errors follow what is typed: once a field is changed, the errors `reply`
 * gave it are gone (its live check, if any, speaks instead) until the next reply. The form's
 * `onInput` notes the field changed (a select's change is an input event too); `current(field)` is
 * what the field (conform's metadata) shows.
 */
export function useErrorsFollowInput(reply: unknown) {
  const [edited, setEdited] = useState<{ reply: unknown; names: ReadonlySet<string> }>({ reply, names: NONE })
  const names = edited.reply === reply ? edited.names : NONE
  return {
    onInput(event: FormEvent<HTMLFormElement>) {
      const target = event.target
      const name =
        target instanceof HTMLInputElement ||
        target instanceof HTMLSelectElement ||
        target instanceof HTMLTextAreaElement
          ? target.name
          : ''
      if (name && !names.has(name)) setEdited({ reply, names: new Set(names).add(name) })
    },
    current(field: { name: string; errors?: string[] | undefined }) {
      return names.has(field.name) ? undefined : field.errors
    },
  }
}

/**
 * `useErrorsFollowInput`, and what a field shows of them in the page's language: `errors(field)` for conform's
 * metadata, `of(name)` for a field of a form written without it, straight from the reply.
 */
export function useFieldErrors(reply: Pick<FormReply, 'result'> | undefined) {
  const { t } = useTranslation()
  const shown = useErrorsFollowInput(reply)
  const errors = (field: { name: string; errors?: string[] | undefined }) =>
    shown.current(field)?.map((error) => translateError(t, error))
  return {
    ...shown,
    errors,
    of: (name: string) => errors({ name, errors: reply?.result.error?.[name] ?? undefined }),
  }
}

export type FieldErrors = ReturnType<typeof useFieldErrors>
