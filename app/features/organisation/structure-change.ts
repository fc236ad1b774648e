import { useSubmit } from '@remix-run/react'
import { type FormEvent, type KeyboardEvent, type MouseEvent, type RefObject, useEffect, useRef } from 'react'

/**
 * The structure combobox posts its choice by a hidden input, which fires no event: a pick (a click
 * on an option, Enter on one, leaving the field) is noticed here, and if the structure differs from
 * the one whose functions are shown, the page is asked for the new one's (`?structure=`, replacing
 * the history entry; what is typed stays in the form, which is not remounted).
 */
export function useStructureChange(formRef: RefObject<HTMLFormElement>, fieldId: string, loaded: number | null) {
  const submit = useSubmit()
  const requested = useRef<string | null>(null)
  useEffect(() => {
    requested.current = null
  }, [loaded])
  function afterPick() {
    setTimeout(() => {
      const form = formRef.current
      if (!form) return
      const value = String(new FormData(form).get('structure') ?? '')
      if (value === (loaded ? String(loaded) : '') || value === requested.current) return
      requested.current = value
      submit({ structure: value }, { method: 'get', replace: true, preventScrollReset: true })
    }, 0)
  }
  const isField = (target: EventTarget) => target instanceof HTMLElement && target.id === fieldId
  return {
    onClick(event: MouseEvent) {
      if (event.target instanceof Element && event.target.closest(`[id="${fieldId}-listbox"]`)) afterPick()
    },
    onKeyDown(event: KeyboardEvent) {
      // Enter on an open list picks (and is prevented); on a closed one it submits the form: no reload then.
      if (event.key === 'Enter' && event.defaultPrevented && isField(event.target)) afterPick()
    },
    onBlur(event: FormEvent) {
      if (isField(event.target)) afterPick()
    },
  }
}
