import { type Language, languages } from '../../worker-api/contract/language'

export { type Language, languageFromAcceptLanguage, languages } from '../../worker-api/contract/language'

/** Shared i18next options of the server and the browser. */
export const i18nConfig = {
  supportedLngs: [...languages],
  fallbackLng: 'fr',
  defaultNS: 'translation',
  interpolation: { escapeValue: false },
}

/** A page's language from what names it (`<html lang>`, i18next's, the server's locale): English, else French. */
export const pageLanguage = (value: string | null | undefined): Language => (value === 'en' ? 'en' : 'fr')

/**
 * A count as the page's language writes it ("2 900" in French, "2,900" in English), the same on the server and in the
 * browser: never the runtime's own locale, which is English on the server whatever the page.
 */
export const formatCount = (value: number, language: string | undefined) =>
  value.toLocaleString(pageLanguage(language) === 'en' ? 'en-GB' : 'fr-FR')

/** A size in bytes as the page's language writes it, in kB, MB or GB (powers of 1 000, as D1's limit is stated). */
export function formatBytes(bytes: number, language: string | undefined) {
  const [unit, size] =
    bytes >= 1e9
      ? (['gigabyte', 1e9] as const)
      : bytes >= 1e6
        ? (['megabyte', 1e6] as const)
        : (['kilobyte', 1e3] as const)
  return (bytes / size).toLocaleString(pageLanguage(language) === 'en' ? 'en-GB' : 'fr-FR', {
    style: 'unit',
    unit,
    maximumFractionDigits: bytes >= 1e9 ? 2 : 1,
  })
}

/** What marks a value's place in a translation read once for many rows (never found in a translation itself). */
const SLOT = '\u0000'

/**
 * A translation with values that change from row to row, read from i18next once and filled for each row: a page of
 * many rows asks i18next for a label once, not once a row. Plain interpolations only (no plural, no nesting).
 */
export function rowText<Name extends string>(
  t: (key: string, values: Record<string, string>) => string,
  key: string,
  names: readonly Name[],
): (values: Record<Name, string | number>) => string {
  const slots = Object.fromEntries(names.map((name, index) => [name, `${SLOT}${index}${SLOT}`]))
  // Text and value indexes alternate: "Confirmer le poste de \u00000\u0000" splits into ["Confirmer…", "0", ""].
  const parts = t(key, slots).split(SLOT)
  return (values) =>
    parts.map((part, index) => (index % 2 === 1 ? String(values[names[Number(part)] as Name]) : part)).join('')
}
