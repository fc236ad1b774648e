import type { Language } from './i18n'
import { resources } from './i18n.server'

const versions = new Map<Language, string>()

/** A fingerprint of a language's words (FNV-1a): their address changes with them, so browsers may keep them. */
function version(language: Language) {
  let known = versions.get(language)
  if (!known) {
    let hash = 0x811c9dc5
    for (const char of JSON.stringify(resources[language].translation)) {
      hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0
    }
    known = hash.toString(36)
    versions.set(language, known)
  }
  return known
}

/** Where a browser fetches a language's words (app/routes/locales.$language.ts). */
export const wordsHref = (language: Language) => `/locales/${language}?v=${version(language)}`

/** A language's words as JSON; the current version's address is cached for a year, any other not at all. */
export function wordsResponse(language: Language, asked: string | null) {
  const lasting = asked === version(language)
  return Response.json(resources[language].translation, {
    headers: { 'Cache-Control': lasting ? 'public, max-age=31536000, immutable' : 'no-cache' },
  })
}
