import { unstable_parseMultipartFormData } from '@remix-run/cloudflare'

/** A text field before the file is a choice (a radio, an intent): a few bytes, and never more than this. */
const FIELD_BYTES = 256
/** As many text parts as a hand-made form may put before its file. */
const MAX_FIELDS = 16

/** What a form streamed to `send` gave: `send`'s answer; the form without its file; or a body that is no such form. */
export type Streamed<T> =
  | { kind: 'sent'; result: T }
  | { kind: 'noFile'; fields: ReadonlyMap<string, string> }
  | { kind: 'unreadable'; fields: ReadonlyMap<string, string> }

/** Thrown once the file is sent, to stop reading a form that has nothing more the page needs. */
const SENT = Symbol('sent')

/**
 * A multipart form whose file comes after its text fields (as a page's form orders them), its file handed to `send` as
 * the browser sends it: `send` passes the stream on (to the API), so the page never holds the file — Remix's
 * `request.formData()` would. The fields before the file are read, each cut at a few bytes (the first value of a name
 * is kept, as `FormData.get` answers); `noFile` when the form has no file, or an empty one; `unreadable` when the body
 * is no multipart form, holds more than a few parts before its file, or breaks off before the file begins. What `send`
 * throws (a sign-in redirect) is thrown on.
 */
export async function streamedFile<T>(
  request: Request,
  field: string,
  send: (fields: ReadonlyMap<string, string>, file: { name: string; body: ReadableStream<Uint8Array> }) => Promise<T>,
): Promise<Streamed<T>> {
  const fields = new Map<string, string>()
  let parts = 0
  let sent: { result: T } | { thrown: unknown } | undefined
  try {
    await unstable_parseMultipartFormData(request, async (part) => {
      if (++parts > MAX_FIELDS) throw new Error('Too many parts before the file')
      if (part.filename === undefined) {
        const value = await shortText(part.data)
        if (!fields.has(part.name)) fields.set(part.name, value)
        return undefined
      }
      if (part.name !== field) throw new Error('A file other than the one asked for')
      const chunks = part.data[Symbol.asyncIterator]()
      const first = await chunks.next()
      // A file input left empty sends its part with an empty file name and no bytes; an empty file is no file either.
      if (first.done || part.filename === '') throw SENT
      try {
        sent = { result: await send(fields, { name: part.filename, body: streamOf(first.value, chunks) }) }
      } catch (error) {
        sent = { thrown: error }
      }
      throw SENT
    })
  } catch (error) {
    if (error !== SENT) return { kind: 'unreadable', fields }
  }
  const outcome = sent as { result: T } | { thrown: unknown } | undefined
  if (outcome && 'thrown' in outcome) throw outcome.thrown
  return outcome ? { kind: 'sent', result: outcome.result } : { kind: 'noFile', fields }
}

/** A part's text, cut at `FIELD_BYTES`; a longer one is no field a page's form sends. */
async function shortText(data: AsyncIterable<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder()
  let text = ''
  let size = 0
  for await (const chunk of data) {
    size += chunk.byteLength
    if (size > FIELD_BYTES) throw new Error('A text field longer than a form sends')
    text += decoder.decode(chunk, { stream: true })
  }
  return text + decoder.decode()
}

/**
 * The part's bytes as a stream, pulled as its reader reads: one chunk at a time in memory. A reader that stops early
 * (the API refusing the file at its header) leaves the rest unread; a part that breaks off errors the stream.
 */
function streamOf(first: Uint8Array, rest: AsyncIterator<Uint8Array>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(first)
    },
    async pull(controller) {
      const next = await rest.next()
      if (next.done) controller.close()
      else controller.enqueue(next.value)
    },
  })
}
