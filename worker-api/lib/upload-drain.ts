/**
 * The request with a body whose unread rest `drain` reads, for the answer to wait on. Under `wrangler dev`, an upload
 * answered before it was read to its end (a redirect to sign in, a refused file) leaves the local proxy's connection
 * to the Worker broken, and the next request on it answers 503 ("Your worker restarted mid-request"); reading the
 * rest after the answer, or cancelling it, does not prevent that. Production answers at once and closes or reads the
 * connection itself, so `wrangler dev` alone reads the rest first: its answer comes once the upload has ended.
 */
export function drainable(request: Request): { request: Request; drain: () => Promise<void> } {
  if (!request.body) return { request, drain: async () => {} }
  const reader = request.body.getReader()
  let ended = false
  let draining = false
  // The runtime's body takes one read at a time: `drain` waits for the reader's.
  let reading: Promise<unknown> = Promise.resolve()
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (draining) return
      const read = reader.read()
      reading = read.catch(() => {})
      const chunk = await read
      if (chunk.done) {
        ended = true
        controller.close()
      } else controller.enqueue(chunk.value)
    },
    // A reader that stops early leaves the rest to `drain`.
    cancel() {},
  })
  return {
    request: new Request(request, { body }),
    async drain() {
      draining = true
      try {
        await reading
        while (!ended) ended = (await reader.read()).done
      } catch {
        // The client went away: nothing left to read.
      }
    },
  }
}
