import { useEffect } from 'react'

/**
 * The events on which React hydrates a page synchronously when they reach it before it has hydrated (React 18's
 * discrete events that require hydration).
 */
const DISCRETE_EVENTS = [
  'mousedown',
  'mouseup',
  'touchcancel',
  'touchend',
  'touchstart',
  'auxclick',
  'dblclick',
  'pointercancel',
  'pointerdown',
  'pointerup',
  'dragend',
  'dragstart',
  'drop',
  'compositionend',
  'compositionstart',
  'keydown',
  'keypress',
  'keyup',
  'input',
  'textInput',
  'copy',
  'cut',
  'paste',
  'click',
  'change',
  'contextmenu',
  'reset',
  'submit',
] as const

const hold = (event: Event) => event.stopImmediatePropagation()

/**
 * Keeps the page's events from React from the moment it starts hydrating until it has. Remix's single fetch decodes the
 * page's data before its first render can finish, so that render always waits once; an event React handles then (a
 * key typed, a click) would make it hydrate at once, synchronously, and a synchronous render that waits fails the
 * whole page (React's error #345). Held, the event still does what the browser does without scripts: a key types, a
 * link leads, a form posts. React takes the page over with what was typed.
 */
export function holdEventsWhileHydrating(): void {
  for (const type of DISCRETE_EVENTS) window.addEventListener(type, hold, true)
}

/** Rendered beside the app: once the page has hydrated, its events reach React again. */
export function ReleaseHeldEvents(): null {
  useEffect(() => {
    for (const type of DISCRETE_EVENTS) window.removeEventListener(type, hold, true)
  }, [])
  return null
}
