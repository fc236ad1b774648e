import type { Language } from '../contract/language'

/**
 * The CSV files the portal writes (the history, the organisation's export): UTF-8 with a byte order mark so that
 * spreadsheets read the accents right, the separator of the reader's language, lines ended by CRLF, and no cell a
 * spreadsheet would run as a formula.
 */

/**
 * What a spreadsheet may read as the start of a formula (OWASP ASVS 5.0 1.2.10): `= + - @`, their
 * full-width and small forms, and any blank or control character before them, which spreadsheets
 * skip — so a cell starting with a blank or a control character is neutralised as well. Quotes
 * before such a start count with it: a text that already reads as a neutralised cell is neutralised
 * again, so that `formulaRestored` gives back every text as it was.
 */
const FORMULA_START = /^'*[\p{Cc}\p{Z}\s=+\-@\uFF1D\uFF0B\uFF0D\uFF20\uFE66\uFE62\uFE63\uFE6B]/u

/** A text a spreadsheet will not run: a `'` before any that could start a formula. */
export const formulaSafe = (text: string) => (FORMULA_START.test(text) ? `'${text}` : text)

/**
 * A cell as it was before `formulaSafe` (an import reading back an export): the `'` removed when what follows it would
 * have been neutralised, and only then. `formulaRestored(formulaSafe(text)) === text` for every text.
 */
export const formulaRestored = (text: string) =>
  text.startsWith("'") && FORMULA_START.test(text.slice(1)) ? text.slice(1) : text

/** A CSV cell: quoted when needed, and never read as a formula by a spreadsheet (CSV injection). */
export function csvCell(value: string | null | undefined): string {
  const text = formulaSafe(value ?? '')
  return /[",;\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

/** Spreadsheets in French read ';' as the separator, in English ','. */
export const CSV_SEPARATOR: Record<Language, string> = { fr: ';', en: ',' }

/** A line of cells, with its end. */
export const csvLine = (language: Language, cells: readonly (string | null | undefined)[]) =>
  `${cells.map(csvCell).join(CSV_SEPARATOR[language])}\r\n`

/** What starts every file: the byte order mark. */
export const CSV_START = '\uFEFF'

/** A CSV file read from D1 a chunk of rows at a time, each read resuming after the last row written. */
export type CsvFile<Row, Cursor> = {
  language: Language
  header: readonly string[]
  /** The first chunk, read with the call's checks (and its audit entry, in the same batch). */
  first: readonly Row[]
  /** A row's lines, ends included (`csvLine`). */
  lines: (row: Row) => string
  /** The rows after `after`, and what marks a chunk's last row; without them, `first` is the whole file. */
  next?: { chunk: number; read: (after: Cursor) => Promise<readonly Row[]>; cursor: (last: Row) => Cursor }
  /** Rows from elsewhere after those (the history's archived months): a chunk at each call, null once none is left. */
  more?: () => Promise<readonly Row[] | null>
  /**
   * The last line written when `more` fails (a file of the archive missing or altered), the file then ended: said in
   * the file itself, where its reader looks (an error of the stream would only cut the download short).
   */
  fault?: (error: unknown) => string
}

/**
 * A CSV file as the portal writes it (the byte order mark, the header in the reader's language, then the rows), streamed:
 * a chunk is read only when the reader has taken the last, and a chunk shorter than `next.chunk` is the end. A year of
 * history needs neither the memory nor one long statement.
 */
export function csvStream<Row, Cursor>(file: CsvFile<Row, Cursor>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  let text = `${CSV_START}${csvLine(file.language, file.header)}`
  let rows: readonly Row[] | null = file.first
  let after: Cursor | null = null
  let ownDone = false
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!ownDone) {
        const chunk = rows ?? (after !== null && file.next ? await file.next.read(after) : [])
        rows = null
        for (const row of chunk) text += file.lines(row)
        const last = chunk.at(-1)
        if (!file.next || chunk.length < file.next.chunk || last === undefined) ownDone = true
        else after = file.next.cursor(last)
        if (text || !ownDone || !file.more) {
          if (text) controller.enqueue(encoder.encode(text))
          text = ''
          if (ownDone && !file.more) controller.close()
          return
        }
      }
      // Past the file's own rows: the chunks of `more` until one has rows (a pull that enqueues nothing is not called
      // again), or until it has none left.
      let more: readonly Row[] | null = []
      while (!text && more !== null) {
        try {
          more = file.more ? await file.more() : null
        } catch (error) {
          if (!file.fault) throw error
          controller.enqueue(encoder.encode(`${text}${file.fault(error)}`))
          controller.close()
          return
        }
        for (const row of more ?? []) text += file.lines(row)
      }
      if (text) controller.enqueue(encoder.encode(text))
      text = ''
      if (more === null) controller.close()
    },
  })
}
