import Bowser from 'bowser'

/** Browser name and version for the audit log, parsed from the User-Agent on the server. */
export function browserOf(userAgent: string | undefined | null): { name: string | null; version: string | null } {
  if (!userAgent) return { name: null, version: null }
  const browser = Bowser.getParser(userAgent).getBrowser()
  return { name: browser.name ?? null, version: browser.version ?? null }
}
