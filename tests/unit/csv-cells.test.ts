import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { csvCell } from '../../worker-api/lib/csv'
import { cellText } from '../../worker-api/services/bulk/cells'

/**
 * The CSV cells the portal writes (lib/csv.ts) and the import reads back (services/bulk/cells.ts): no cell a spreadsheet
 * would run as a formula, and every cell read by the import as it was before it was written, so that an export imported
 * back changes nothing.
 */

/** A cell as a CSV reader gives it: its quotes undone. */
const unquoted = (cell: string) => (cell.startsWith('"') ? cell.slice(1, -1).replaceAll('""', '"') : cell)

const FORMULA = /^[\p{Cc}\p{Z}\s=+\-@\uFF1D\uFF0B\uFF0D\uFF20\uFE66\uFE62\uFE63\uFE6B]/u

/** Texts made of what starts a formula, quotes, separators and letters. */
const texts = fc.string({
  unit: fc.constantFrom(
    ...['=', '+', '-', '@', '\t', '\r', '\n', ' ', '\u00a0', '\u0001', '\u007f', '\uFF1D', '\uFE6B', '\uFEFF'],
    ...["'", '"', ';', ',', 'a', 'é'],
  ),
  maxLength: 8,
})

describe('a CSV cell', () => {
  it('never starts with what a spreadsheet runs', () => {
    for (const text of ['=SUM(A1)', '+33', '-1', '@cmd', '\t=1', '\r=1', ' =1', '\u0001=1', '＝1', '﹫x', "'=1"]) {
      expect(unquoted(csvCell(text)).startsWith("'")).toBe(true)
    }
    fc.assert(fc.property(texts, (text) => !FORMULA.test(unquoted(csvCell(text)))))
  })

  it('is read back by the import as it was, whatever it starts with', () => {
    const cases: [string, string][] = [
      ['=Dupont', "'=Dupont"],
      ['\uFF1DDupont', "'\uFF1DDupont"],
      ['\u0001Dupont', "'\u0001Dupont"],
      ["'=Dupont", "''=Dupont"],
      ["'Dupont", "'Dupont"],
    ]
    for (const [text, written] of cases) {
      expect(unquoted(csvCell(text))).toBe(written)
      expect(cellText(written)).toBe(text)
    }
    fc.assert(fc.property(texts, (text) => cellText(unquoted(csvCell(text))) === text.trim()))
  })
})
