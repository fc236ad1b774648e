import type { RowProblem } from '../../contract/bulk/bulk'
import { fromWireDate } from '../../contract/dates'
import { mailSchema, nameSchema } from '../../contract/organisation/user'
import { formulaRestored } from '../../lib/csv'

/**
 * A row's cells read as values, each with the problem that keeps it from being one. A cell the export neutralised
 * against spreadsheet formulas (a leading `'`, lib/csv.ts) reads as it was written.
 */

/**
 * A cell as written: the export's neutralising quote removed by the export's own rule, then blanks around it dropped
 * (a cell of blanks the export neutralised reads as blank, as it would have without its quote).
 */
export function cellText(raw: string | undefined): string {
  return formulaRestored((raw ?? '').trimStart()).trim()
}

type Read<T> = { value: T } | { problem: RowProblem }

export const isRead = <T>(read: Read<T>): read is { value: T } => 'value' in read

/** A last or first name: 3 to 50 characters. */
export function nameCell(text: string, column: string): Read<string> {
  const result = nameSchema.safeParse(text)
  if (result.success) return { value: result.data }
  return text === ''
    ? { problem: { code: 'REQUIS', colonne: column, valeurs: { colonne: column } } }
    : { problem: { code: 'LONGUEUR', colonne: column, valeurs: { colonne: column, longueur: text.length } } }
}

export function mailCell(text: string, column: string): Read<string> {
  if (text === '') return { problem: { code: 'REQUIS', colonne: column, valeurs: { colonne: column } } }
  const result = mailSchema.safeParse(text)
  return result.success
    ? { value: result.data }
    : { problem: { code: 'MAIL', colonne: column, valeurs: { valeur: text } } }
}

const YES = new Set(['oui', 'o', 'yes', 'y', 'vrai', 'true', '1', 'x'])
const NO = new Set(['non', 'n', 'no', 'faux', 'false', '0'])

/** Yes or no in either language (empty: not given). */
export function flagCell(text: string, column: string): Read<boolean | undefined> {
  const key = text.toLowerCase()
  if (key === '') return { value: undefined }
  if (YES.has(key)) return { value: true }
  if (NO.has(key)) return { value: false }
  return { problem: { code: 'BOOLEEN', colonne: column, valeurs: { colonne: column, valeur: text } } }
}

/** A date as dd/MM/yyyy (single-digit day and month taken too), as 'YYYY-MM-DD'. */
export function dateCell(text: string, column: string): Read<string> {
  const match = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(text)
  const iso = match ? fromWireDate(`${match[1]?.padStart(2, '0')}/${match[2]?.padStart(2, '0')}/${match[3]}`) : null
  return iso ? { value: iso } : { problem: { code: 'DATE', colonne: column, valeurs: { valeur: text } } }
}
