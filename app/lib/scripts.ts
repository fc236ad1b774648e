/**
 * A route's `handle` that ships its page without scripts: plain HTML that nothing on the client
 * changes (the root layout leaves out `<Scripts>` while such a route matches).
 */
export const WITHOUT_SCRIPTS = { scripts: false } as const

/** Whether a matched route's handle asks for its page to ship without scripts. */
export function shipsWithoutScripts(handle: unknown): boolean {
  return (handle as { scripts?: unknown } | undefined)?.scripts === false
}
