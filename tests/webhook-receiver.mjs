import { createServer } from 'node:http'
import { Webhook } from 'standardwebhooks'

/**
 * A webhook receiver on a free port of this machine, as an integrator would run one: each delivery is verified with
 * the Standard Webhooks library (`standardwebhooks`, written by the standard's authors) against the secret a test
 * registered for its address, and kept for the test to read. The address says how to answer:
 *
 * - `POST /ok/<key>`: 204;
 * - `POST /fail-<n>/<key>`: 500 to the first n deliveries, then 204 (a receiver that is down for a while);
 * - `POST /slow-<ms>/<key>`: 204 after `ms` milliseconds (a receiver too slow for the portal's timeout);
 * - `POST /gone/<key>`: 410 Gone (a receiver retired: the portal stops the subscription);
 * - `POST /retry-after-<s>/<key>`: 503 with `Retry-After: s`;
 * - `POST /redirect/<key>`: 302 elsewhere (not an answer, by the standard);
 * - `POST /huge/<key>`: 500 with a body of 64 MiB, streamed (a receiver that answers far more than anyone reads).
 *
 * `PUT /__secret/<key>` (the secret as the body) registers the secret; `GET /__received/<key>` answers what arrived:
 * `[{ path, headers, body, answered, verified, payload, error }]`, in the order it came.
 */
export async function startWebhookReceiver({ unref = false } = {}) {
  const secrets = new Map()
  const received = new Map()
  const server = createServer(async (request, response) => {
    const chunks = []
    for await (const chunk of request) chunks.push(chunk)
    const body = Buffer.concat(chunks).toString('utf8')
    const [, scenario = '', key = ''] = (request.url ?? '').split('/')
    if (request.method === 'PUT' && scenario === '__secret') {
      secrets.set(key, body)
      response.writeHead(204).end()
      return
    }
    if (request.method === 'GET' && scenario === '__received') {
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(received.get(key) ?? []))
      return
    }
    const list = received.get(key) ?? []
    received.set(key, list)
    const entry = { path: request.url, headers: request.headers, body, answered: 0, verified: false, payload: null }
    const secret = secrets.get(key)
    try {
      if (!secret) throw new Error('No secret registered for this address')
      entry.payload = new Webhook(secret).verify(body, request.headers)
      entry.verified = true
    } catch (error) {
      entry.error = String(error)
    }
    list.push(entry)
    const answer = (status, headers = {}) => {
      entry.answered = status
      response.writeHead(status, headers).end(status >= 400 ? `answer ${status}` : undefined)
    }
    const failing = /^fail-(\d+)$/.exec(scenario)
    const slow = /^slow-(\d+)$/.exec(scenario)
    const retryAfter = /^retry-after-(\d+)$/.exec(scenario)
    if (failing) return answer(list.length <= Number(failing[1]) ? 500 : 204)
    if (slow) {
      await new Promise((resolve) => setTimeout(resolve, Number(slow[1])))
      return answer(204)
    }
    if (retryAfter) return answer(503, { 'Retry-After': retryAfter[1] })
    if (scenario === 'gone') return answer(410)
    if (scenario === 'huge') {
      entry.answered = 500
      response.writeHead(500, { 'Content-Type': 'text/plain' })
      const chunk = Buffer.alloc(1024 * 1024, 'x')
      for (let n = 0; n < 64 && !response.destroyed; n++) {
        if (!response.write(chunk))
          await new Promise((resolve) => response.once('drain', resolve).once('close', resolve))
      }
      response.end()
      return
    }
    if (scenario === 'redirect') return answer(302, { Location: 'http://127.0.0.1:9/elsewhere' })
    return answer(scenario === 'ok' ? 204 : 404)
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  if (unref) server.unref()
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  }
}
