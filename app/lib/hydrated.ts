import { type RefObject, useRef, useSyncExternalStore } from 'react'

const subscribe = () => () => {}

/**
 * False on the server and while the page hydrates, true once React owns it (and at once for anything
 * mounted later): the switch from a component's no-JavaScript form to its enhanced one. The server
 * snapshot keeps hydration free of mismatches.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  )
}

/**
 * What a visitor typed or chose in a component's no-JavaScript form before the script took the page
 * over, by field name: the enhanced form that replaces it starts from these instead of wiping them (a
 * slow connection leaves time to type). Put the ref on the element holding the no-JavaScript fields;
 * the values are read once, as the page becomes live, while those fields are still in the page.
 */
export function useTypedBeforeHydration<T extends HTMLElement>(): [RefObject<T>, Record<string, string>] {
  const hydrated = useHydrated()
  const section = useRef<T>(null)
  const typed = useRef<Record<string, string> | null>(null)
  if (hydrated && typed.current === null) typed.current = changedValues(section.current)
  return [section, typed.current ?? {}]
}

/** The named fields under `root` whose value is no longer the one the page was served with. */
export function changedValues(root: HTMLElement | null): Record<string, string> {
  const values: Record<string, string> = {}
  if (!root) return values
  for (const field of root.querySelectorAll<HTMLElement>('input[name], select[name], textarea[name]')) {
    if (field instanceof HTMLSelectElement) {
      const served = [...field.options].find((option) => option.defaultSelected) ?? field.options[0]
      if (field.value !== (served?.value ?? '')) values[field.name] = field.value
    } else if (field instanceof HTMLTextAreaElement || (field instanceof HTMLInputElement && TYPED.has(field.type))) {
      if (field.value !== field.defaultValue) values[field.name] = field.value
    }
  }
  return values
}

const TYPED = new Set(['text', 'search', 'email', 'tel', 'url', 'number', 'date', 'month', 'time'])
