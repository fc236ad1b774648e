import { useNavigation } from '@remix-run/react'
import { useEffect, useRef } from 'react'

/**
 * The hidden field of a form that names the element the focus goes back to once the page is back
 * after its action, without JavaScript: the action redirects to that element's fragment (`#retablir-7`),
 * and the browser focuses a control it names, or starts the keyboard's path at a row it names.
 */
export const FOCUS_FIELD = 'retour'

/** The id of a control or a row that a form can name in `FOCUS_FIELD`: `retablir-7`, `utilisateur-7`. */
export const anchorId = (prefix: string, key: string | number) => `${prefix}-${key}`

/** The row that takes a leaving row's place: the next one, else the one before; none when it was alone. */
export function neighbourOf<Row>(rows: readonly Row[], row: Row): Row | undefined {
  const index = rows.indexOf(row)
  return index < 0 ? undefined : (rows[index + 1] ?? rows[index - 1])
}

/**
 * Where focus goes when `row` leaves its list (`FOCUS_FIELD`): the id of the row that takes its place
 * (`neighbourOf`) under `prefix`, the list's `rowAnchor`; empty when the row was alone.
 */
export function neighbourAnchor<Row extends { id: number }>(rows: readonly Row[], row: Row, prefix: string): string {
  const neighbour = neighbourOf(rows, row)
  return neighbour ? anchorId(prefix, neighbour.id) : ''
}

/** What can take focus by keyboard, in document order. */
const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([type="hidden"]):not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])'

/** Where a submission left from: the control, the row it acts on, its place among the page's controls. */
type Origin = {
  control: HTMLElement
  id: string
  label: string | null
  row: string | null
  /** The control the form names as where focus goes back (`FOCUS_FIELD`), if any. */
  back: string | null
  index: number
}

const controlsOf = (root: Element) =>
  [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((element) => element.getClientRects().length > 0)

/** The row a form acts on: its hidden `id` (the lists' `rowAction`), if it has one. */
const rowOf = (form: HTMLFormElement) =>
  form.querySelector<HTMLInputElement>('input[type="hidden"][name="id"]')?.value ?? null

/** The controls of the page's main content that act on `row` (in a form carrying it). */
const rowControls = (main: HTMLElement, row: string) =>
  controlsOf(main).filter((control) => {
    const form = control.closest('form')
    return form !== null && rowOf(form) === row
  })

/**
 * The control a submission came from, as seen in the page's main content: the submitter (or the
 * focused control, for a form a script submits on change), or — for a dialog's button — the control
 * that opened the dialog.
 */
function originOf(from: Element | null, main: HTMLElement): Origin | null {
  if (!(from instanceof HTMLElement)) return null
  const form = from instanceof HTMLFormElement ? from : from.closest('form')
  let control: HTMLElement | null = from instanceof HTMLFormElement ? null : from
  const dialog = from.closest<HTMLElement>('[role="dialog"], [role="alertdialog"]')
  if (dialog?.id) {
    const opener = `[aria-controls="${CSS.escape(dialog.id)}"], [data-dialog="${CSS.escape(dialog.id)}"]`
    control = document.querySelector<HTMLElement>(opener) ?? control
  }
  if (!control || !main.contains(control)) return null
  return {
    control,
    id: control.id,
    label: control.getAttribute('aria-label') ?? control.textContent,
    row: form ? rowOf(form) : null,
    back: form
      ? (form.querySelector<HTMLInputElement>(`input[type="hidden"][name="${FOCUS_FIELD}"]`)?.value ?? null)
      : null,
    index: controlsOf(main).indexOf(control),
  }
}

/**
 * Where focus goes back once the page has settled: the control, its twin in the row, the control the form names, its
 * place, or the title.
 */
function focusTarget(origin: Origin, main: HTMLElement): HTMLElement | null {
  if (origin.control.isConnected && origin.control.matches(FOCUSABLE)) return origin.control
  if (origin.id) {
    const same = document.getElementById(origin.id)
    if (same?.matches(FOCUSABLE)) return same
  }
  if (origin.row !== null) {
    const row = rowControls(main, origin.row)
    const twin = row.find((control) => (control.getAttribute('aria-label') ?? control.textContent) === origin.label)
    if (twin ?? row[0]) return twin ?? row[0] ?? null
  }
  // A panel closed: the control it names (the row's link that opened it).
  if (origin.back) {
    const named = document.getElementById(origin.back)
    if (named && main.contains(named) && named.matches(FOCUSABLE)) return named
  }
  // The row is gone: its place is now the next row's (or the last control before it).
  const controls = controlsOf(main)
  if (origin.index >= 0 && controls.length > 0) return controls[Math.min(origin.index, controls.length - 1)] ?? null
  return main.querySelector<HTMLElement>('h1')
}

/**
 * Keeps keyboard focus where the user was after a form of the page is submitted with JavaScript
 * (WCAG 2.4.3): once the page has settled, focus returns to the control, to its twin in the same row
 * (a restore button become a delete button), or to the next row's control when the row is gone —
 * instead of falling to the document's body, where a second Space scrolls the page.
 */
export function useFocusAfterActions() {
  const navigation = useNavigation()
  const origin = useRef<Origin | null>(null)
  /** The control of the page that last had the focus. */
  const lastFocused = useRef<Element | null>(null)
  useEffect(() => {
    function remember(event: SubmitEvent) {
      const main = document.getElementById('main')
      if (!main) return
      origin.current = originOf(event.submitter ?? (event.target as Element | null), main)
    }
    const track = (event: FocusEvent) => {
      lastFocused.current = event.target as Element | null
    }
    document.addEventListener('submit', remember, true)
    document.addEventListener('focusin', track, true)
    return () => {
      document.removeEventListener('submit', remember, true)
      document.removeEventListener('focusin', track, true)
    }
  }, [])
  useEffect(() => {
    // A form a script submits (a switch that applies on change) fires no submit event: its control had the focus as
    // the submission started. It may have lost it since, disabled while the form is pending (a browser moves the focus
    // of a control it disables to the body): then it is the control that last had the focus.
    if (navigation.state === 'submitting' && !origin.current) {
      const main = document.getElementById('main')
      const active = document.activeElement
      const from = active && active !== document.body ? active : lastFocused.current
      if (main) origin.current = originOf(from, main)
    }
    // A link followed since (or a form that did not navigate here, such as one opening a new tab): not ours.
    if (navigation.state === 'loading' && !navigation.formMethod) origin.current = null
    if (navigation.state !== 'idle' || !origin.current) return
    const from = origin.current
    // After the page's own effects (a dialog handing focus back to a trigger that still exists).
    const frame = requestAnimationFrame(() => {
      origin.current = null
      const main = document.getElementById('main')
      const active = document.activeElement
      if (!main || (active && active !== document.body && active.isConnected)) return
      const target = focusTarget(from, main)
      if (!target) return
      if (target.tagName === 'H1' && !target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1')
      target.focus()
    })
    return () => cancelAnimationFrame(frame)
  }, [navigation.state, navigation.formMethod])
}
