// `npm run bench`: starts the built portal on a fresh local D1 with the demo data and prints latency
// and throughput figures for the hot paths. Loopback only, bounded in count; numbers, not assertions.
import { mkdtempSync, openSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { solveChallenge } from 'altcha-lib'
import { build, ensureDevVars, migrate, root, seed, serve } from './local.mjs'

const port = Number(process.env.BENCH_PORT ?? 8799)
const base = `http://127.0.0.1:${port}`
const api = `${base}/portail-backend/rest`

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
  return { p50: at(0.5), p95: at(0.95), max: sorted[sorted.length - 1] }
}

/** Runs `task` `count` times with `concurrency` in flight; returns per-request ms and requests/s. */
async function measure(count, concurrency, task) {
  const samples = []
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const index = next++
        const t0 = performance.now()
        await task(index)
        samples.push(performance.now() - t0)
      }
    }),
  )
  const seconds = (performance.now() - started) / 1000
  return { ...stats(samples), rps: count / seconds }
}

async function solvedCaptcha() {
  const challenge = await (await fetch(`${api}/public/bd/captcha/challenge`)).json()
  const solution = await solveChallenge(challenge.challenge, challenge.salt, challenge.algorithm, challenge.maxnumber)
    .promise
  const { algorithm, salt, signature } = challenge
  return btoa(JSON.stringify({ algorithm, challenge: challenge.challenge, number: solution.number, salt, signature }))
}

async function login(identifiant, motDePasse, captcha) {
  const response = await fetch(`${api}/public/bd/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ identifiant, motDePasse, captcha }),
  })
  if (!response.ok) throw new Error(`login ${response.status} ${await response.text()}`)
  return response.json()
}

async function ok(response) {
  if (!response.ok) throw new Error(`${response.url} ${response.status}`)
  await response.arrayBuffer()
}

const persistTo = mkdtempSync(path.join(tmpdir(), 'portail-bench-'))
const vars = ensureDevVars()
if (!process.env.BENCH_SKIP_BUILD) build()
migrate(persistTo)
await seed(persistTo, vars.PASSWORD_PEPPER)
const log = openSync(path.join(root, '.wrangler', 'bench-server.log'), 'w')
// The benchmark signs in from one address far more often than the per-client limit allows a person.
const { child } = await serve({
  port,
  persistTo,
  stdio: log,
  vars: { LOGIN_RATE_PER_MINUTE: '100000', QUESTION_RATE_PER_MINUTE: '100000', FORGOT_RATE_PER_MINUTE: '100000' },
})

const rows = []
const record = (name, result) => rows.push({ name, ...result })
try {
  record('GET health', await measure(300, 8, () => fetch(`${api}/public/health`).then(ok)))
  record('GET /login (SSR page)', await measure(200, 8, () => fetch(`${base}/login`).then(ok)))
  record('GET captcha challenge', await measure(200, 8, () => fetch(`${api}/public/bd/captcha/challenge`).then(ok)))

  const captchas = []
  const solveStart = performance.now()
  for (let i = 0; i < 40; i++) captchas.push(await solvedCaptcha())
  const solveMs = (performance.now() - solveStart) / 40
  record('POST login (PBKDF2 100k)', await measure(40, 4, (i) => login('agent', 'Agent1234', captchas[i])))

  const session = await login('agent', 'Agent1234', await solvedCaptcha())
  const bearer = { Authorization: `Bearer ${session.jwt.accessToken}` }
  record(
    'GET acces/utilisateur (API)',
    await measure(300, 8, () => fetch(`${api}/bd/acces/utilisateur/${session.user.id}`, { headers: bearer }).then(ok)),
  )
  record(
    'GET utilisateur/{id} (API)',
    await measure(300, 8, () => fetch(`${api}/bd/utilisateur/${session.user.id}`, { headers: bearer }).then(ok)),
  )

  // The access page as a browser gets it: sign in through the form (no-JS captcha), keep the cookie.
  const page = await fetch(`${base}/login`)
  const html = await page.text()
  const question = /name="captchaQuestion" value="([^"]+)"/.exec(html)[1]
  const [a, b] = question.split('.')
  const form = new URLSearchParams({ identifiant: 'agent', motDePasse: 'Agent1234', captchaQuestion: question })
  form.set('captchaAnswer', String(Number(a) + Number(b)))
  const signedIn = await fetch(`${base}/login`, {
    method: 'POST',
    body: form,
    redirect: 'manual',
    headers: { Origin: base },
  })
  const cookie = signedIn.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ')
  record(
    'GET /pages/user/acces (SSR)',
    await measure(200, 8, () => fetch(`${base}/pages/user/acces`, { headers: { Cookie: cookie } }).then(ok)),
  )

  record(
    'GET /pages/user/me (SSR)',
    await measure(200, 8, () => fetch(`${base}/pages/user/me`, { headers: { Cookie: cookie } }).then(ok)),
  )

  // The page a new address's confirmation link opens (the link's read, then the page around it).
  await fetch(`${api}/bd/utilisateur/${session.user.id}`, {
    method: 'PUT',
    headers: { ...bearer, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      nom: session.user.nom,
      prenom: session.user.prenom,
      mail: 'bench.nouvelle@portail.example',
    }),
  }).then(ok)
  const confirmation = (await (await fetch(`${api}/dev/mails`)).json()).find((m) => m.kind === 'MAIL_CHANGE_CONFIRM')
  const { links } = await (await fetch(`${api}/dev/mails/${confirmation.id}`)).json()
  const confirmPath = new URL(links[0]).pathname
  record(
    'GET mail/token (API)',
    await measure(300, 8, () =>
      fetch(`${api}/public/bd/utilisateur/mail/token/${confirmPath.split('/').pop()}`).then(ok),
    ),
  )
  record('GET /confirmMail (SSR)', await measure(200, 8, () => fetch(`${base}${confirmPath}`).then(ok)))

  // A forgotten-password request answers before the account is looked up: known and unknown
  // addresses should take the same time.
  const forgot = (mail, captcha) =>
    fetch(`${api}/public/bd/password/forgot/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ mail, domain: base, captcha }),
    }).then(ok)
  const forgotCaptchas = []
  for (let i = 0; i < 40; i++) forgotCaptchas.push(await solvedCaptcha())
  record(
    'POST forgot (known mail)',
    await measure(20, 4, (i) => forgot('thomas.lefebvre@portail.example', forgotCaptchas[i])),
  )
  record(
    'POST forgot (unknown mail)',
    await measure(20, 4, (i) => forgot(`personne${i}@nulle-part.example`, forgotCaptchas[20 + i])),
  )

  console.log(`\nPortail benchmark — wrangler dev (local workerd + SQLite D1), loopback, ${new Date().toISOString()}`)
  console.log(`captcha proof of work solved in Node: ${solveMs.toFixed(0)} ms on average (default work factor)\n`)
  console.log(
    `${'path'.padEnd(32)}${'p50 ms'.padStart(9)}${'p95 ms'.padStart(9)}${'max ms'.padStart(9)}${'req/s'.padStart(9)}`,
  )
  for (const row of rows) {
    console.log(
      `${row.name.padEnd(32)}${row.p50.toFixed(1).padStart(9)}${row.p95.toFixed(1).padStart(9)}${row.max.toFixed(1).padStart(9)}${row.rps.toFixed(0).padStart(9)}`,
    )
  }
  console.log('\nLocal workerd does not apply production CPU limits; compare runs with each other, not with the edge.')
} finally {
  child.kill('SIGTERM')
  rmSync(persistTo, { recursive: true, force: true })
}
