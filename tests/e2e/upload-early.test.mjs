// @ts-check
// An upload answered before it is read to its end (the import page's file posted without a session: a redirect to
// sign in) leaves the connection usable: the next request on it is answered as production answers it, not 503 by
// `wrangler dev`'s proxy. Plain HTTP on one kept-alive connection, as a browser sends a form and then the next.
import assert from 'node:assert/strict'
import http from 'node:http'
import { describe, it } from 'node:test'
import { BASE_URL, PORT } from './support.mjs'

/**
 * Sends `body` by POST on `agent`'s one connection; the status and the body of the answer.
 * @param {http.Agent} agent
 * @param {string} path
 * @param {string} body
 * @param {Record<string, string>} headers
 * @returns {Promise<{ status: number | undefined, text: string }>}
 */
function post(agent, path, body, headers) {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port: Number(PORT),
        path,
        method: 'POST',
        agent,
        headers: { Host: new URL(BASE_URL).host, 'Content-Length': Buffer.byteLength(body), ...headers },
      },
      (response) => {
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk) => {
          text += chunk
        })
        response.on('end', () => resolve({ status: response.statusCode, text }))
      },
    )
    request.on('error', reject)
    request.end(body)
  })
}

describe('an upload answered early', () => {
  it('leaves the connection to the next request, however large the unread rest', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    try {
      for (const size of [100_000, 5_000_000]) {
        const file = `--portail\r\nContent-Disposition: form-data; name="fichier"; filename="a.csv"\r\n\r\n${'x'.repeat(size)}`
        const upload = await post(agent, '/pages/admin/import', file, {
          Origin: BASE_URL,
          'Content-Type': 'multipart/form-data; boundary=portail',
        })
        assert.equal(upload.status, 302, `the upload of ${size} bytes`)
        const next = await post(agent, '/portail-backend/rest/public/bd/login', '{}', {
          'Content-Type': 'application/json',
        })
        assert.equal(next.status, 400, `after ${size} bytes: ${next.text.slice(0, 200)}`)
      }
    } finally {
      agent.destroy()
    }
  })
})
