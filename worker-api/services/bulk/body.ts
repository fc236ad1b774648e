import { IMPORT_MAX_BYTES } from '../../contract/bulk/bulk'
import { BusinessError } from '../../lib/errors'

/**
 * An import's body as its reader takes it: counted against the file's limit, its failures told as the file's, and
 * handed to the CSV parser a few kilobytes at a time. No stream of ours stands between the body and the parser but the
 * one the parser pulls, so that a file refused before its end stops the reading cleanly.
 */

/**
 * A read of the body, its failure (a client gone, an upload cut) a 400 of the file rather than the server's error: what
 * the file had sent is discarded, and its sender may send it again. The file's own problems are rows in error, and its
 * limit a 413, before this.
 */
export async function bodyRead<T>(read: Promise<T>): Promise<T> {
  try {
    return await read
  } catch (error) {
    throw error instanceof BusinessError
      ? error
      : new BusinessError('VALIDATION_FAILED', 400, 'The file’s upload broke off before its end')
  }
}

/** A reader of the body's bytes, refused past the file's limit. */
export type BodyReader = {
  read(): Promise<ReadableStreamReadResult<Uint8Array>>
  cancel(reason?: unknown): Promise<void>
}

/** The body read, its bytes counted: no stream of its own, which a file refused early would have to cancel. */
export function boundedReader(body: ReadableStream<Uint8Array>): BodyReader {
  const reader = body.getReader()
  let size = 0
  return {
    async read() {
      const next = await reader.read()
      size += next.done ? 0 : next.value.byteLength
      if (size > IMPORT_MAX_BYTES) {
        throw new BusinessError(
          'REQUEST_TOO_LARGE',
          413,
          `The file is larger than ${IMPORT_MAX_BYTES / 1024 / 1024} MiB`,
          [IMPORT_MAX_BYTES],
        )
      }
      return next
    },
    cancel: (reason) => reader.cancel(reason),
  }
}

/**
 * The most bytes csv-parse is given at once. It reads a chunk whole before any of the chunk's records is seen, and a
 * blank line costs it a row's time: a body sent in one chunk of line feeds would be read to its end before the bound of
 * blank lines could stop it.
 */
const PARSED_BYTES = 4 * 1024

/**
 * Line breaks as LF: csv-parse 7.0.3 counts a CRLF inside a quoted cell as two lines, which would shift the line of
 * every later row (a cell's own line break reads as LF, which a spreadsheet shows the same).
 */
function lfLineBreaks() {
  const CR = 13
  const LF = 10
  let pendingCr = false
  return {
    convert(chunk: Uint8Array): Uint8Array {
      const out = new Uint8Array(chunk.length + 1)
      let length = 0
      for (let n = 0; n < chunk.length; n++) {
        const byte = chunk[n] as number
        if (pendingCr && byte !== LF) out[length++] = CR
        pendingCr = byte === CR
        if (!pendingCr) out[length++] = byte
      }
      return out.subarray(0, length)
    },
    end: (): Uint8Array => (pendingCr ? new Uint8Array([CR]) : new Uint8Array(0)),
  }
}

const STOPPED = new Error('The file is read no further')

/**
 * The body again for the parser, its first chunks (already read) first, its line breaks as LF, in pieces of at most
 * `PARSED_BYTES`. `stop`: the file read no further (refused before its end, or the records' reader gone), the body
 * cancelled. It errors this stream, which the parser's pipe carries down: cancelling the parser's own side instead
 * leaves a rejection nobody handles in workerd's TransformStream.
 */
export function parsedBody(head: Uint8Array[], reader: BodyReader) {
  const lines = lfLineBreaks()
  const pending = [...head]
  let ended = false
  let stopped = false
  let pulling = false
  let source: ReadableStreamDefaultController<Uint8Array> | null = null
  /** The next bytes for the parser (empty: none this time), or null at the body's end. */
  async function nextBytes(): Promise<Uint8Array | null> {
    const first = pending.shift()
    if (first) return lines.convert(first)
    if (ended) return null
    const next = await reader.read()
    if (!next.done) return lines.convert(next.value)
    ended = true
    return lines.end()
  }
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      source = controller
    },
    async pull(controller) {
      pulling = true
      try {
        let bytes = await nextBytes()
        while (bytes?.length === 0 && !stopped) bytes = await nextBytes()
        if (stopped) return await end(controller)
        if (!bytes) return controller.close()
        for (let start = 0; start < bytes.length; start += PARSED_BYTES) {
          controller.enqueue(bytes.subarray(start, start + PARSED_BYTES))
        }
      } catch (error) {
        controller.error(error)
      } finally {
        pulling = false
      }
    },
    cancel: (reason) => reader.cancel(reason),
  })
  /** The stream errored (the parser's pipe carries it down) and the body cancelled, no read of it under way. */
  async function end(controller: ReadableStreamDefaultController<Uint8Array>) {
    try {
      controller.error(STOPPED)
    } catch {
      // Already closed or errored.
    }
    await reader.cancel(STOPPED).catch(() => {})
  }
  return {
    stream,
    async stop() {
      stopped = true
      // A pull under way ends it once its read of the body returns: workerd leaves a rejection nobody handles when a
      // body is cancelled beneath a read.
      if (!pulling && source) await end(source)
    },
  }
}
