import { parse } from 'csv-parse/stream'
import {
  IMPORT_COLUMNS,
  IMPORT_MAX_BLANK_LINES,
  IMPORT_MAX_ROWS,
  type ImportType,
  type RowProblem,
} from '../../contract/bulk/bulk'
import { bodyRead, boundedReader, parsedBody } from './body'
import { fileHead } from './head'
import type { FileRow } from './plan'
import { repeatsCheck } from './repeats'

/**
 * A file as people make them, read as it arrives: UTF-8 with or without a byte order mark, `;` or `,` (the header line
 * decides, head.ts), quoted cells holding separators, quotes and line breaks, any line ending. Each row comes with the
 * line it starts on and what keeps it from being read (characters that are not UTF-8, an unclosed quote, a wrong number
 * of cells, a repeat of an earlier row); the file's own problems (no text, no header, a wrong one, too many rows or
 * blank lines) come at line 1 or where they arise. Parsed by csv-parse's WHATWG stream, so the body is never held whole.
 */

export type ChunkRow = FileRow & { problems: RowProblem[] }
export type FileChunk = { rows: ChunkRow[]; fileProblems: { line: number; problem: RowProblem }[] }

/** A record longer than this is a quote left open, not a row: it is refused rather than held. */
const MAX_RECORD_BYTES = 64 * 1024

/** The header quoted in its error: enough to recognise it, never a page of it. */
const HEADER_QUOTED = 200
const shortened = (text: string) => (text.length > HEADER_QUOTED ? `${text.slice(0, HEADER_QUOTED)}…` : text)

const headerKey = (name: string) =>
  name
    .replace(/^\uFEFF/, '')
    .trim()
    .toLowerCase()

/** The rows of the file, `size` at a time. */
export async function* fileChunks(
  body: ReadableStream<Uint8Array> | null,
  type: ImportType,
  size: number,
): AsyncGenerator<FileChunk> {
  const columns: readonly string[] = IMPORT_COLUMNS[type]
  const empty: FileChunk = { rows: [], fileProblems: [{ line: 1, problem: { code: 'FICHIER_VIDE', colonne: null } }] }
  if (!body) {
    yield empty
    return
  }
  const reader = boundedReader(body)
  const first = await bodyRead(fileHead(reader))
  if ('problem' in first) {
    await reader.cancel().catch(() => {})
    yield { rows: [], fileProblems: [{ line: 1, problem: first.problem }] }
    return
  }
  const { separator, head } = first
  // The last lines of the records a quote problem kept from being read: each becomes a row in error where it starts.
  const skipped: number[] = []
  const parsed = parsedBody(head, reader)
  const records = parsed.stream.pipeThrough(
    parse({
      delimiter: separator,
      bom: true,
      info: true,
      record_delimiter: ['\n', '\r'],
      relax_column_count: true,
      // A quote inside a cell that does not start with one is a character of the cell (O"Neil).
      relax_quotes: true,
      skip_records_with_error: true,
      max_record_size: MAX_RECORD_BYTES,
      on_skip: (error) => {
        if (error) skipped.push(Number(error.lines) || 0)
      },
    }),
  ) as ReadableStream<{ record: string[]; info: { lines: number } }>

  const repeated = repeatsCheck(type)
  let chunk: FileChunk = { rows: [], fileProblems: [] }
  let lastLine = 0
  let rows = 0
  let blankLines = 0
  let headerRead = false
  /** The rows the records skipped before the line `before` stood for. */
  const flushSkipped = (before: number) => {
    while (skipped.length > 0 && (skipped[0] ?? 0) < before) {
      const end = skipped.shift() ?? 0
      chunk.rows.push({ line: lastLine + 1, cells: [], problems: [{ code: 'GUILLEMETS', colonne: null }] })
      rows++
      lastLine = Math.max(lastLine + 1, end)
    }
  }
  const iterator = records.getReader()
  try {
    for (;;) {
      const next = await bodyRead(iterator.read())
      flushSkipped(next.done ? Number.POSITIVE_INFINITY : next.value.info.lines)
      if (next.done) break
      const { record, info } = next.value
      const line = lastLine + 1
      lastLine = info.lines
      if (!headerRead) {
        headerRead = true
        const found = record.map(headerKey)
        while (found.length > columns.length && found.at(-1) === '') found.pop()
        if (found.join() !== columns.map((name) => name.toLowerCase()).join()) {
          const problem: RowProblem = {
            code: 'ENTETE',
            colonne: null,
            valeurs: {
              attendu: columns.join(separator),
              trouve: shortened(record.join(separator).replace(/^\uFEFF/, '')),
            },
          }
          yield { rows: [], fileProblems: [{ line: 1, problem }] }
          return
        }
        continue
      }
      // Blank lines, and lines of empty cells a spreadsheet leaves below a table, are no rows, but bounded all the same.
      if (record.every((cell) => cell.trim() === '')) {
        if (++blankLines <= IMPORT_MAX_BLANK_LINES) continue
        chunk.fileProblems.push({
          line,
          problem: { code: 'LIGNES_VIDES', colonne: null, valeurs: { max: IMPORT_MAX_BLANK_LINES } },
        })
        break
      }
      if (rows >= IMPORT_MAX_ROWS) {
        chunk.fileProblems.push({
          line,
          problem: { code: 'TROP_DE_LIGNES', colonne: null, valeurs: { max: IMPORT_MAX_ROWS } },
        })
        break
      }
      rows++
      chunk.rows.push(fileRow(line, record, columns, repeated))
      if (chunk.rows.length >= size) {
        yield chunk
        chunk = { rows: [], fileProblems: [] }
      }
    }
  } finally {
    iterator.releaseLock()
    await parsed.stop()
  }
  if (!headerRead && chunk.rows.length === 0) {
    yield empty
    return
  }
  if (chunk.rows.length > 0 || chunk.fileProblems.length > 0) yield chunk
}

/** A record as a row: its cells (trailing empty ones a spreadsheet adds dropped), or why it cannot be read. */
function fileRow(
  line: number,
  record: string[],
  columns: readonly string[],
  repeated: ReturnType<typeof repeatsCheck>,
): ChunkRow {
  const cells = [...record]
  while (cells.length > columns.length && cells.at(-1)?.trim() === '') cells.pop()
  const unreadable = cells.findIndex((cell) => cell.includes('\uFFFD'))
  if (unreadable >= 0) {
    return { line, cells, problems: [{ code: 'ENCODAGE', colonne: columns[unreadable] ?? null }] }
  }
  if (cells.length !== columns.length) {
    const valeurs = { trouve: cells.length, attendu: columns.length }
    return { line, cells, problems: [{ code: 'COLONNES', colonne: null, valeurs }] }
  }
  const row = { line, cells }
  const repeat = repeated(row)
  return { ...row, problems: repeat ? [repeat] : [] }
}
