import { IMPORT_MAX_HEADER_BYTES, type RowProblem } from '../../contract/bulk/bulk'
import type { BodyReader } from './body'

/**
 * A file's first line, read before its rows: whether the file is text at all, its separator, and the chunks read to
 * find them, which the rows' parser reads again. The line is looked for within its bound, each chunk searched once as
 * it comes, so that a file without a line break costs its bound and no more.
 */

export type FileHead = { head: Uint8Array[]; separator: string } | { problem: RowProblem }

const LF = 10
const CR = 13

/** Where the chunk's first line break is, or -1. */
function lineBreakIn(chunk: Uint8Array): number {
  const lf = chunk.indexOf(LF)
  const cr = chunk.indexOf(CR)
  return lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr)
}

/** The first `length` bytes of the chunks. */
function firstBytes(chunks: Uint8Array[], length: number): Uint8Array {
  const bytes = new Uint8Array(length)
  let at = 0
  for (const chunk of chunks) {
    if (at >= length) break
    const part = chunk.subarray(0, length - at)
    bytes.set(part, at)
    at += part.length
  }
  return bytes
}

/**
 * Text as a spreadsheet saves it as CSV: UTF-8 (a byte order mark or not) without control characters other than
 * blanks. A workbook (.xlsx is a ZIP, .xls an OLE file) or a UTF-16 text has NUL bytes or sequences UTF-8 refuses in
 * its first bytes; a Latin-1 file has an ASCII header and is told row by row (ENCODAGE).
 */
function isText(bytes: Uint8Array): boolean {
  for (const byte of bytes) if (byte < 0x20 && byte !== 0x09 && byte !== 0x0c) return false
  try {
    // `stream`: a character the line's bound cuts in two is not an error.
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true })
    return true
  } catch {
    return false
  }
}

/** The first line of the body `reader` reads, or the file's problem at line 1. */
export async function fileHead(reader: BodyReader): Promise<FileHead> {
  const head: Uint8Array[] = []
  let read = 0
  let lineEnd = -1
  while (lineEnd < 0 && read <= IMPORT_MAX_HEADER_BYTES) {
    const { done, value } = await reader.read()
    if (done) break
    head.push(value)
    const at = lineBreakIn(value)
    if (at >= 0) lineEnd = read + at
    read += value.length
  }
  const length = lineEnd < 0 ? read : lineEnd
  const line = firstBytes(head, Math.min(length, IMPORT_MAX_HEADER_BYTES))
  if (!isText(line)) return { problem: { code: 'PAS_DU_TEXTE', colonne: null } }
  if (length > IMPORT_MAX_HEADER_BYTES) {
    return { problem: { code: 'ENTETE_TROP_LONGUE', colonne: null, valeurs: { max: IMPORT_MAX_HEADER_BYTES / 1024 } } }
  }
  const header = new TextDecoder().decode(line)
  const count = (separator: string) => header.split(separator).length - 1
  return { head, separator: count(',') > count(';') ? ',' : ';' }
}
