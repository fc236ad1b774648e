import { parse } from 'csv-parse/stream'
import {
  IMPORT_COLUMNS,
  IMPORT_MAX_BYTES,
  IMPORT_MAX_ROWS,
  type ImportType,
  type RowProblem,
} from '../../contract/bulk'
import { BusinessError } from '../../lib/errors'
import { byteBounded } from '../../lib/security-headers'
import type { FileRow } from './plan'
import { repeatsCheck } from './repeats'

/**
 * A file as people make them, read as it arrives: UTF-8 with or without a byte order mark, `;` or `,` (the header line
 * decides), quoted cells holding separators, quotes and line breaks, any line ending. Each row comes with the line it
 * starts on and what keeps it from being read (characters that are not UTF-8, an unclosed quote, a wrong number of
 * cells, a repeat of an earlier row); the file's own problems (no header, a wrong one, too many rows) come at line 1
 * or where they arise. Parsed by csv-parse's WHATWG stream, so the body is never held whole.
 */

export type ChunkRow = FileRow & { problems: RowProblem[] }
export type FileChunk = { rows: ChunkRow[]; fileProblems: { line: number; problem: RowProblem }[] }

/** A record longer than this is a quote left open, not a row: it is refused rather than held. */
const MAX_RECORD_BYTES = 64 * 1024

/**
 * A read of the body, its failure (a client gone, an upload cut) a 400 of the file rather than the server's error: what
 * the file had sent is discarded, and its sender may send it again. The file's own problems are rows in error, and its
 * limit a 413, before this.
 */
async function bodyRead<T>(read: Promise<T>): Promise<T> {
  try {
    return await read
  } catch (error) {
    throw error instanceof BusinessError
      ? error
      : new BusinessError('VALIDATION_FAILED', 400, 'The file’s upload broke off before its end')
  }
}

/** The body's bytes, refused past the file's limit. */
const bounded = (body: ReadableStream<Uint8Array>) =>
  byteBounded(
    body,
    IMPORT_MAX_BYTES,
    () =>
      new BusinessError('REQUEST_TOO_LARGE', 413, `The file is larger than ${IMPORT_MAX_BYTES / 1024 / 1024} MiB`, [
        IMPORT_MAX_BYTES,
      ]),
  )

/**
 * Line breaks as LF: csv-parse 7.0.3 counts a CRLF inside a quoted cell as two lines, which would shift the line of
 * every later row (a cell's own line break reads as LF, which a spreadsheet shows the same).
 */
function lfLineBreaks(): TransformStream<Uint8Array, Uint8Array> {
  const CR = 13
  const LF = 10
  let pendingCr = false
  return new TransformStream({
    transform(chunk, controller) {
      const out = new Uint8Array(chunk.length + 1)
      let length = 0
      for (let n = 0; n < chunk.length; n++) {
        const byte = chunk[n] as number
        if (pendingCr && byte !== LF) out[length++] = CR
        pendingCr = byte === CR
        if (!pendingCr) out[length++] = byte
      }
      controller.enqueue(out.subarray(0, length))
    },
    flush(controller) {
      if (pendingCr) controller.enqueue(new Uint8Array([CR]))
    },
  })
}

/** The separator the header line uses: the one of `;` and `,` it holds more of (`;` when even). */
async function separatorOf(reader: ReadableStreamDefaultReader<Uint8Array>) {
  const head: Uint8Array[] = []
  let text = ''
  const decoder = new TextDecoder()
  while (!/[\r\n]/.test(text)) {
    const { done, value } = await reader.read()
    if (done) break
    head.push(value)
    text += decoder.decode(value, { stream: true })
  }
  const header = text.split(/[\r\n]/)[0] ?? ''
  const count = (separator: string) => header.split(separator).length - 1
  return { separator: count(',') > count(';') ? ',' : ';', head }
}

/** The body again, its first chunks (already read) first. */
function replayed(head: Uint8Array[], reader: ReadableStreamDefaultReader<Uint8Array>) {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of head) controller.enqueue(chunk)
    },
    async pull(controller) {
      const { done, value } = await reader.read()
      if (done) controller.close()
      else controller.enqueue(value)
    },
    cancel: (reason) => reader.cancel(reason),
  })
}

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
  const reader = bounded(body).getReader()
  const { separator, head } = await bodyRead(separatorOf(reader))
  // The last lines of the records a quote problem kept from being read: each becomes a row in error where it starts.
  const skipped: number[] = []
  const records = replayed(head, reader)
    .pipeThrough(lfLineBreaks())
    .pipeThrough(
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
            valeurs: { attendu: columns.join(separator), trouve: record.join(separator).replace(/^\uFEFF/, '') },
          }
          yield { rows: [], fileProblems: [{ line: 1, problem }] }
          return
        }
        continue
      }
      // Blank lines, and lines of empty cells a spreadsheet leaves below a table, are no rows.
      if (record.every((cell) => cell.trim() === '')) continue
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
    await iterator.cancel().catch(() => {})
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
