import { useSyncExternalStore } from 'react'

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
