import Bowser from 'bowser'

/** Browser name and version for the audit log, parsed from the User-Agent on the server. */
export function browserOf(userAgent: string | undefined | null): { name: string | null; version: string | null } {
  if (!userAgent) return { name: null, version: null }
  const browser = Bowser.getParser(userAgent).getBrowser()
  return { name: browser.name ?? null, version: browser.version ?? null }
}

/**
 * The kind of device a User-Agent says it runs on, and its system (`mobile · Android`, `desktop · Windows`); null when
 * it says neither (a library's own User-Agent).
 */
export function deviceOf(userAgent: string | undefined | null): string | null {
  if (!userAgent) return null
  const parser = Bowser.getParser(userAgent)
  const parts = [parser.getPlatformType(true), parser.getOSName()].filter((part) => part !== '' && part !== undefined)
  return parts.length > 0 ? parts.join(' · ').slice(0, 60) : null
}

/** The kind of device a User-Agent says it runs on (`mobile`, `tablet`, `desktop`, `tv`); null when it does not say. */
export function platformOf(userAgent: string | undefined | null): string | null {
  if (!userAgent) return null
  return Bowser.getParser(userAgent).getPlatformType(true) || null
}
