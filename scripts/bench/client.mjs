// The benchmark's side of the wire: a client that solves captchas, signs in as an application or a
// browser would, counts a request's D1 statements and drives load with autocannon.
import { solveChallenge } from 'altcha-lib'
import autocannon from 'autocannon'

/** D1 statements of one request, from its Server-Timing header. */
async function statementsOf(url, init) {
  const response = await fetch(url, init)
  await response.arrayBuffer()
  const timing = response.headers.get('Server-Timing') ?? ''
  const match = /d1;dur=[\d.]+;desc="(\d+) statements/.exec(timing)
  return match ? Number(match[1]) : null
}

/** The client of the portal at `base`, loading with `connections` for `duration` seconds. */
export function benchClient({ base, api, connections, duration }) {
  async function solvedCaptcha() {
    const challenge = await (await fetch(`${api}/public/bd/captcha/challenge`)).json()
    const solution = await solveChallenge(challenge.challenge, challenge.salt, challenge.algorithm, challenge.maxnumber)
      .promise
    const { algorithm, salt, signature } = challenge
    return btoa(JSON.stringify({ algorithm, challenge: challenge.challenge, number: solution.number, salt, signature }))
  }

  async function login(identifiant, motDePasse) {
    const response = await fetch(`${api}/public/bd/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ identifiant, motDePasse, captcha: await solvedCaptcha() }),
    })
    if (!response.ok) throw new Error(`login ${response.status} ${await response.text()}`)
    return response.json()
  }

  /** A browser's cookie after the sign-in form (its no-JavaScript captcha). */
  async function browserCookie(identifiant, motDePasse) {
    const html = await (await fetch(`${base}/login`)).text()
    const question = /name="captchaQuestion" value="([^"]+)"/.exec(html)[1]
    const [a, b] = question.split('.')
    const form = new URLSearchParams({ identifiant, motDePasse, captchaQuestion: question })
    form.set('captchaAnswer', String(Number(a) + Number(b)))
    const signedIn = await fetch(`${base}/login`, {
      method: 'POST',
      body: form,
      redirect: 'manual',
      headers: { Origin: base },
    })
    if (signedIn.status !== 302) throw new Error(`form sign-in answered ${signedIn.status}`)
    return signedIn.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ')
  }

  /**
   * Drives `url` with autocannon; `requests` (autocannon's form) for bodies that change per request; `amount` requests
   * in all instead of `seconds` when each is prepared beforehand and spent once.
   */
  async function load(url, { method = 'GET', headers = {}, body, requests, seconds = duration, amount } = {}) {
    // The first refused answer, to say what the errors were.
    let firstRefusal = null
    const watched = (requests ?? [{}]).map((request) => ({
      ...request,
      onResponse(status, responseBody, context, responseHeaders) {
        if (firstRefusal === null && (status < 200 || status > 299)) {
          firstRefusal = `${status} ${String(responseBody).slice(0, 160)}`
        }
        request.onResponse?.(status, responseBody, context, responseHeaders)
      },
    }))
    const result = await autocannon({
      url,
      method,
      headers,
      body,
      requests: watched,
      connections,
      ...(amount ? { amount } : { duration: seconds }),
      timeout: 30,
    })
    const refused = Object.entries(result.statusCodeStats ?? {}).filter(([code]) => !code.startsWith('2'))
    if (refused.length > 0) {
      process.stderr.write(`  ${url}: ${JSON.stringify(Object.fromEntries(refused))}, the first: ${firstRefusal}\n`)
    }
    return {
      rps: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      errors: result.errors + result.timeouts + result.non2xx,
      total: result.requests.total,
    }
  }

  return { solvedCaptcha, login, browserCookie, statementsOf, load }
}
