// `npm run bench [-- --large] [-- --duration 10] [-- --connections 50] [-- --write]`
//
// Builds the portal, serves it and the reference Worker (scripts/bench/reference.js) with `wrangler
// dev`, drives every scenario with autocannon and prints one table: req/s, p50, p99, errors, D1
// statements per request (from the Server-Timing header) and the ratios to the two references, the
// bare Worker and the one-statement floor, measured in the same run. Sign-in is compared with the raw
// PBKDF2 rate of the same runtime. Then the history's export, timed once for a month and a year, the
// JavaScript and CSS each page ships and the Worker's size.
// `--large` runs on the organisation of `npm run seed:large`; `--write` keeps the table in
// BENCHMARKS.md. Loopback only; numbers, never assertions.
import { execFileSync, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { gzipSync } from 'node:zlib'
import { solveChallenge } from 'altcha-lib'
import autocannon from 'autocannon'
import { build, ensureDevVars, LARGE_PERSIST_DIR, migrate, quietEnv, root, seed, serve } from './local.mjs'

const { values: options } = parseArgs({
  options: {
    large: { type: 'boolean', default: false },
    write: { type: 'boolean', default: false },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    'skip-build': { type: 'boolean', default: false },
    /** Only the scenarios whose name matches (the references always run). */
    only: { type: 'string' },
  },
})
const duration = Number(options.duration)
const connections = Number(options.connections)
const port = Number(process.env.BENCH_PORT ?? 8799)
const referencePort = port + 1
const base = `http://127.0.0.1:${port}`
const api = `${base}/portail-backend/rest`
const reference = `http://127.0.0.1:${referencePort}`
const bin = (name) => path.join(root, 'node_modules', '.bin', name)

// ---------------------------------------------------------------------------------------------
// Servers

const vars = ensureDevVars()
if (!options['skip-build'] && !process.env.BENCH_SKIP_BUILD) build()
const scratch = mkdtempSync(path.join(os.tmpdir(), 'portail-bench-'))
let persistTo
if (options.large) {
  if (!existsSync(LARGE_PERSIST_DIR)) throw new Error('No large organisation yet: run `npm run seed:large` first.')
  persistTo = LARGE_PERSIST_DIR
  // The large organisation was made by an earlier version: the migrations since come first.
  migrate(persistTo)
} else {
  persistTo = path.join(scratch, 'portail')
  migrate(persistTo)
  await seed(persistTo, vars.PASSWORD_PEPPER)
}
/**
 * Sign-in attempts of one account count against it while they run (DESIGN §3), so 50 concurrent
 * sign-ins need 50 accounts: copies of the demo agent (same password hash, same posts).
 */
function benchAccounts(count) {
  const sql = `
    INSERT INTO utilisateur (login, nom, prenom, mail, password_hash, domain, langue)
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})
      SELECT 'bench' || i, nom, prenom, 'bench' || i || '@bench.example', password_hash, domain, langue
      FROM n, utilisateur WHERE login = 'agent'
        AND NOT EXISTS (SELECT 1 FROM utilisateur b WHERE b.login = 'bench' || i);
    INSERT INTO poste (utilisateur_id, structure_id, fonction_id, date_debut, date_fin)
      SELECT b.id, p.structure_id, p.fonction_id, p.date_debut, p.date_fin
      FROM utilisateur b, utilisateur a JOIN poste p ON p.utilisateur_id = a.id
      WHERE a.login = 'agent' AND b.login LIKE 'bench%'
        AND NOT EXISTS (SELECT 1 FROM poste q WHERE q.utilisateur_id = b.id);`
  execFileSync(bin('wrangler'), ['d1', 'execute', 'DB', '--local', '--persist-to', persistTo, '--command', sql], {
    cwd: root,
    env: quietEnv,
    stdio: 'ignore',
  })
  return Array.from({ length: count }, (_, i) => `bench${i + 1}`)
}
const benchLogins = benchAccounts(connections)

const portalLog = openSync(path.join(scratch, 'portal.log'), 'w')
const referenceLog = openSync(path.join(scratch, 'reference.log'), 'w')

/** The portal under `wrangler dev`: the benchmark signs in far more often than a person may. */
function startPortal() {
  return serve({
    port,
    persistTo,
    stdio: portalLog,
    vars: {
      LOGIN_RATE_PER_MINUTE: '1000000',
      QUESTION_RATE_PER_MINUTE: '1000000',
      FORGOT_RATE_PER_MINUTE: '1000000',
      REGISTRATION_RATE_PER_MINUTE: '1000000',
      OIDC_TOKEN_RATE_PER_MINUTE: '1000000',
      SERVER_TIMING: 'on',
      // The server checks a solved challenge with one hash whatever its work factor: a small one
      // lets the client solve hundreds beforehand in seconds.
      CAPTCHA_MAX_NUMBER: '1000',
    },
  })
}

async function startReference() {
  const child = spawn(
    bin('wrangler'),
    [
      'dev',
      '--config',
      path.join(root, 'scripts', 'bench', 'wrangler.reference.toml'),
      '--ip',
      '127.0.0.1',
      '--port',
      String(referencePort),
      '--persist-to',
      path.join(scratch, 'reference'),
      '--show-interactive-dev-session=false',
    ],
    { cwd: root, env: quietEnv, stdio: ['ignore', referenceLog, referenceLog] },
  )
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`reference wrangler dev exited with ${child.exitCode}`)
    try {
      if ((await fetch(`${reference}/json`)).ok) return { child }
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  child.kill()
  throw new Error('the reference Worker did not start within 60 s')
}

/** Resident memory of a wrangler dev process tree (workerd holds the D1 data), in MiB. */
function memoryMiB(pid) {
  try {
    const tree = execFileSync('ps', ['-e', '-o', 'pid=,ppid=,rss='], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((line) => line.trim().split(/\s+/).map(Number))
    const ids = new Set([pid])
    for (let grew = true; grew; ) {
      grew = false
      for (const [id, parent] of tree) {
        if (ids.has(parent) && !ids.has(id)) {
          ids.add(id)
          grew = true
        }
      }
    }
    return Math.round(tree.filter(([id]) => ids.has(id)).reduce((sum, [, , rss]) => sum + rss, 0) / 1024)
  } catch {
    return Number.NaN
  }
}

const stop = (child) =>
  new Promise((resolve) => {
    if (child.exitCode !== null) return resolve()
    child.once('exit', resolve)
    child.kill('SIGTERM')
  })

// ---------------------------------------------------------------------------------------------
// Clients

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

/** D1 statements of one request, from its Server-Timing header. */
async function statementsOf(url, init) {
  const response = await fetch(url, init)
  await response.arrayBuffer()
  const timing = response.headers.get('Server-Timing') ?? ''
  const match = /d1;dur=[\d.]+;desc="(\d+) statements/.exec(timing)
  return match ? Number(match[1]) : null
}

/** Drives `url` with autocannon; `requests` (autocannon's form) for bodies that change per request. */
async function load(url, { method = 'GET', headers = {}, body, requests, seconds = duration } = {}) {
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
    duration: seconds,
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

// ---------------------------------------------------------------------------------------------
// The run

const rows = []
const referenceServer = await startReference()
const bare = await load(`${reference}/json`)
const floor = await load(`${reference}/d1`)
const hash = await load(`${reference}/pbkdf2`)
const referenceMemory = memoryMiB(referenceServer.child.pid)
await stop(referenceServer.child)
rows.push({ name: 'reference: bare Worker (JSON)', ...bare, statements: 0, kind: 'reference' })
rows.push({ name: 'reference: one D1 statement', ...floor, statements: 1, kind: 'reference' })
rows.push({ name: 'reference: raw PBKDF2-SHA512 100k', ...hash, statements: 0, kind: 'reference' })

/** One scenario on a freshly started portal (local D1 keeps ~20 KiB per statement: restart each time). */
async function scenario(name, kind, prepare) {
  if (options.only && !new RegExp(options.only, 'i').test(name)) return
  const { child } = await startPortal()
  try {
    const { url, init = {}, run } = await prepare()
    const statements = url ? await statementsOf(url, init) : null
    const result = run ? await run() : await load(url, init)
    rows.push({ name, kind, statements, ...result, memory: memoryMiB(child.pid) })
    process.stderr.write(`${name}: ${result.rps.toFixed(0)} req/s\n`)
  } finally {
    await stop(child)
  }
}

const agent = { login: 'agent', password: 'Agent1234' }
const admin = { login: 'admin', password: 'Admin1234' }
/** u050002 of `npm run seed:large`: an agent on a site, five levels below the admin's root post. */
const LARGE_SAMPLE_USER = 150002

await scenario('GET rest/public/health', 'read', async () => ({ url: `${api}/public/health` }))
await scenario('GET rest/bd/acces/utilisateur/{id}', 'read', async () => {
  const session = await login(agent.login, agent.password)
  const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
  return { url: `${api}/bd/acces/utilisateur/${session.user.id}`, init: { headers } }
})
await scenario('GET rest/bd/utilisateur/{id}', 'read', async () => {
  const session = await login(agent.login, agent.password)
  const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
  return { url: `${api}/bd/utilisateur/${session.user.id}`, init: { headers } }
})
// The list of one's sessions: the agent's every sign-in of the run, each with what it launched.
await scenario('GET rest/bd/session/liste', 'read', async () => {
  const session = await login(agent.login, agent.password)
  const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
  return { url: `${api}/bd/session/liste`, init: { headers } }
})
// The account security page's read: the caller's factors (TOTP, passkeys, recovery codes left).
await scenario('GET rest/bd/mfa', 'read', async () => {
  const session = await login(agent.login, agent.password)
  const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
  return { url: `${api}/bd/mfa`, init: { headers } }
})
await scenario('GET rest/bd/utilisateur/{id} (admin, a user in scope)', 'read', async () => {
  const session = await login(admin.login, admin.password)
  const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
  // In the large organisation, one of its 100 000 users (with a current post on a site).
  const target = options.large ? LARGE_SAMPLE_USER : (await login(agent.login, agent.password)).user.id
  return { url: `${api}/bd/utilisateur/${target}`, init: { headers } }
})
/** An administrator of a leaf: a site of the large organisation (adminsite), else the demo's southern direction. */
const leafAdmin = options.large
  ? { login: 'adminsite', password: admin.password }
  : { login: 'adminsud', password: 'Adminsud1' }
for (const [who, account] of [
  ['admin of the root', admin],
  ['admin of a leaf', leafAdmin],
]) {
  await scenario(`GET rest/bd/structure/user/me?users=true&page=1 (${who})`, 'read', async () => {
    const session = await login(account.login, account.password)
    const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
    return { url: `${api}/bd/structure/user/me?users=true&page=1`, init: { headers } }
  })
}
for (const [who, account] of [
  ['admin of the root', admin],
  ['admin of a leaf', leafAdmin],
]) {
  for (const [what, query] of [
    ['first page', 'page=1'],
    ['filtered page', 'page=2&q=ma&actif=true&poste=true&tri=-prenom'],
  ]) {
    await scenario(`GET rest/bd/utilisateur/liste?${query} (${who}, ${what})`, 'read', async () => {
      const session = await login(account.login, account.password)
      const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
      return { url: `${api}/bd/utilisateur/liste?${query}`, init: { headers } }
    })
  }
}
// The administration home: the user lists' totals (kept after the first count of the day), the queue,
// the posts ending within 30 days, and a month of sign-ins and launches counted from the history.
for (const [who, account] of [
  ['admin of the root', admin],
  ['admin of a leaf', leafAdmin],
]) {
  await scenario(`GET rest/bd/accueil (${who})`, 'read', async () => {
    const session = await login(account.login, account.password)
    const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
    return { url: `${api}/bd/accueil`, init: { headers } }
  })
}
await scenario('GET rest/bd/utilisateur/structure/{id}?page=1 (admin of the root, a site)', 'read', async () => {
  const session = await login(admin.login, admin.password)
  const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
  return { url: `${api}/bd/utilisateur/structure/${options.large ? 2000 : 4}?page=1`, init: { headers } }
})
await scenario('GET rest/public/bd/transporteur/structures (anonymous)', 'read', async () => ({
  url: `${api}/public/bd/transporteur/structures`,
}))
for (const query of ['', '?page=1&tri=nom']) {
  // The authorisation queue: 300 pending registrations in the large organisation, 3 in the demo.
  await scenario(`GET rest/bd/authorize/get/user/all${query} (admin of the root)`, 'read', async () => {
    const session = await login(admin.login, admin.password)
    const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
    return { url: `${api}/bd/authorize/get/user/all${query}`, init: { headers } }
  })
}

// The catalogue as a root administrator reads it: each application with its grants and how many users
// may launch it today (a count over the posts of its granting functions).
for (const query of ['?page=1', '?page=1&tri=-nbUtilisateurs']) {
  await scenario(`GET rest/bd/application${query} (admin of the root)`, 'read', async () => {
    const session = await login(admin.login, admin.password)
    const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
    return { url: `${api}/bd/application${query}`, init: { headers } }
  })
}
// The templates screen: every structure type's template and the catalogue to choose grants from.
await scenario('GET rest/bd/typestructure/fonctions (admin of the root)', 'read', async () => {
  const session = await login(admin.login, admin.password)
  const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
  return { url: `${api}/bd/typestructure/fonctions`, init: { headers } }
})

/**
 * A day of the Paris calendar (the history's, DESIGN §8) `daysBefore` the day the benchmark runs, as
 * the history's filters write it (yyyyMMdd): the large organisation's entries are dated from the day
 * it was seeded, so fixed dates would soon read an empty range.
 */
function parisDay(daysBefore = 0) {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en', { timeZone: 'Europe/Paris', year: 'numeric', month: '2-digit', day: '2-digit' })
      .formatToParts(new Date())
      .map(({ type, value }) => [type, value]),
  )
  const day = new Date(Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day) - daysBefore))
  return day.toISOString().slice(0, 10).replaceAll('-', '')
}
/** The history's query with its days: the names keep `{today}` and `{today-N}`, so that runs compare row by row. */
const historyQuery = (template) =>
  template.replace(/\{today(?:-(\d+))?\}/g, (_, daysBefore) => parisDay(Number(daysBefore ?? 0)))
const HISTORY_MONTH = 'dateDebut={today-30}&dateFin={today}'
const HISTORY_YEAR = 'dateDebut={today-365}&dateFin={today}'
// The audit history (a million entries over two years in the large organisation, a few sign-ins in
// the demo). Its target: a month's first page within a p99 of 250 ms on the large organisation, for
// the root's administrator (every entry in scope) as for a leaf's (few of the range's entries in scope).
for (const [who, account] of [
  ['admin of the root', admin],
  ['admin of a leaf', leafAdmin],
]) {
  const template = `${HISTORY_MONTH}&page=1&taille=10`
  await scenario(`GET rest/bd/logs/?${template} (history: a month, page 1, ${who})`, 'read', async () => {
    const session = await login(account.login, account.password)
    const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
    return { url: `${api}/bd/logs/?${historyQuery(template)}`, init: { headers } }
  })
}
for (const [what, template] of [
  // Martin is the large organisation's most frequent last name: the search keeps many of the range's entries.
  ['a month, searched', `${HISTORY_MONTH}&q=martin&page=1&taille=10`],
  // Every entry in range: the page is read newest first, the total counts all of them.
  ['no range, page 3', 'page=3&taille=10'],
]) {
  await scenario(`GET rest/bd/logs/?${template} (history: ${what}, admin of the root)`, 'read', async () => {
    const session = await login(admin.login, admin.password)
    const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
    return { url: `${api}/bd/logs/?${historyQuery(template)}`, init: { headers } }
  })
}

/** Figures measured once each rather than under load, printed in their own table after the scenarios'. */
const exportRows = []
/**
 * The history's export: a file an administrator asks for now and then, not a request to put under
 * load (and each one writes an audit entry). Its time to the first byte of the body, its total time
 * and its size, for a month and a year, on a freshly started portal after the history's reads.
 */
async function exportFigures(name, ranges) {
  if (options.only && !new RegExp(options.only, 'i').test(name)) return
  const { child } = await startPortal()
  try {
    const session = await login(admin.login, admin.password)
    const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
    for (const [what, template] of ranges) {
      const started = performance.now()
      const response = await fetch(`${api}/bd/logs/export?${historyQuery(template)}`, { headers })
      if (!response.ok) throw new Error(`export ${response.status} ${await response.text()}`)
      // Counted as it streams: a year of the large organisation is tens of megabytes.
      let firstByte = null
      let bytes = 0
      let lines = 0
      for await (const chunk of response.body) {
        firstByte ??= performance.now() - started
        bytes += chunk.length
        for (const byte of chunk) if (byte === 0x0a) lines++
      }
      const total = performance.now() - started
      exportRows.push({ name: `${what} (${template})`, firstByte, total, bytes, entries: Math.max(lines - 1, 0) })
      process.stderr.write(`${name}, ${what}: ${bytes} bytes in ${total.toFixed(0)} ms\n`)
    }
  } finally {
    await stop(child)
  }
}
await exportFigures('GET rest/bd/logs/export (history: export, admin of the root)', [
  ['a month', HISTORY_MONTH],
  ['a year', HISTORY_YEAR],
])

await scenario('GET /pages/admin/listeStructures (SSR, admin of the root)', 'page', async () => ({
  url: `${base}/pages/admin/listeStructures`,
  init: { headers: { Cookie: await browserCookie(admin.login, admin.password) } },
}))
await scenario('GET /pages/admin (SSR, the administration home, admin of the root)', 'page', async () => ({
  url: `${base}/pages/admin`,
  init: { headers: { Cookie: await browserCookie(admin.login, admin.password) } },
}))
/** The other admin pages, as the root's administrator opens them (a site and one of its users in the large organisation). */
const SITE = options.large ? 2000 : 4
for (const [what, path] of [
  ['the users', () => '/pages/admin/listeUtilisateurs'],
  ['the registrations', () => '/pages/admin/autorisation'],
  ['the history', () => '/pages/admin/listeLogs'],
  ['a new structure', () => '/pages/admin/structure'],
  ['a structure', () => `/pages/admin/structure/detail/${SITE}`],
  ["a structure's users", () => `/pages/admin/user/structure/${SITE}`],
  ['a new user', () => '/pages/admin/user/new'],
  [
    'a user',
    async () =>
      `/pages/admin/user/detail/${options.large ? LARGE_SAMPLE_USER : (await login(agent.login, agent.password)).user.id}`,
  ],
  ['the applications', () => '/pages/admin/applications'],
  ['an application', () => '/pages/admin/applications/1'],
  ['the templates', () => '/pages/admin/modeles'],
  ['a template', () => '/pages/admin/modeles/2'],
]) {
  await scenario(`GET /pages/admin/… (SSR, ${what}, admin of the root)`, 'page', async () => ({
    url: `${base}${await path()}`,
    init: { headers: { Cookie: await browserCookie(admin.login, admin.password) } },
  }))
}
await scenario('GET /login (SSR, anonymous)', 'page', async () => ({ url: `${base}/login` }))
await scenario('GET /pages/user/acces (SSR)', 'page', async () => ({
  url: `${base}/pages/user/acces`,
  init: { headers: { Cookie: await browserCookie(agent.login, agent.password) } },
}))
await scenario('GET /pages/user/me (SSR)', 'page', async () => ({
  url: `${base}/pages/user/me`,
  init: { headers: { Cookie: await browserCookie(agent.login, agent.password) } },
}))
await scenario('GET /pages/user/securite (SSR)', 'page', async () => ({
  url: `${base}/pages/user/securite`,
  init: { headers: { Cookie: await browserCookie(agent.login, agent.password) } },
}))
/**
 * A link to confirm a new address, as the mail carries it (read from the development mailbox). Asked
 * by the first bench account still under its hourly cap of address changes (the large organisation's
 * D1 is kept from run to run).
 */
async function mailChangeLink() {
  for (const benchLogin of benchLogins) {
    const session = await login(benchLogin, agent.password)
    const response = await fetch(`${api}/bd/utilisateur/${session.user.id}`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${session.jwt.accessToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        nom: session.user.nom,
        prenom: session.user.prenom,
        mail: `bench.${Date.now()}@bench.example`,
      }),
    })
    if (response.status === 429) continue
    if (!response.ok) throw new Error(`address change ${response.status}`)
    const mails = await (await fetch(`${api}/dev/mails`)).json()
    const confirmation = mails.find((mail) => mail.kind === 'MAIL_CHANGE_CONFIRM')
    const { links } = await (await fetch(`${api}/dev/mails/${confirmation.id}`)).json()
    return new URL(links[0]).pathname
  }
  throw new Error('every bench account is at its hourly cap of address changes')
}
await scenario('GET rest/public/bd/utilisateur/mail/token/{token}', 'read', async () => {
  const token = (await mailChangeLink()).split('/').pop()
  return { url: `${api}/public/bd/utilisateur/mail/token/${token}` }
})
await scenario('GET /confirmMail/{token} (SSR)', 'page', async () => ({ url: `${base}${await mailChangeLink()}` }))
await scenario('POST login/refreshToken (rotation)', 'read', async () => {
  // Each connection rotates its own session: every request spends the token the previous one got.
  const sessions = []
  for (let i = 0; i < connections; i++) sessions.push((await login(agent.login, agent.password)).jwt.refreshToken)
  let next = 0
  const requests = [
    {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      setupRequest(request, context) {
        context.token ??= sessions[next++ % sessions.length]
        return { ...request, body: JSON.stringify({ refreshToken: context.token }) }
      },
      onResponse(status, body, context) {
        if (status === 200) context.token = JSON.parse(body).refreshToken
      },
    },
  ]
  return { run: () => load(`${api}/public/bd/login/refreshToken`, { requests }) }
})
/**
 * OpenID Connect: a client of the benchmark's own (public, PKCE), granted to the agent's functions,
 * written between two scenarios (no portal running).
 */
const OIDC_REDIRECT = 'http://127.0.0.1/bench/callback'
const OIDC_VERIFIER = 'bench-pkce-verifier-0123456789abcdefghijklmnopqrstuvwxyz'
function benchOidcClient() {
  const sql = `
    INSERT OR IGNORE INTO application (libelle, icone, url, protocole) VALUES ('Bench OIDC', 'truck', 'http://127.0.0.1/', 'OIDC');
    INSERT OR IGNORE INTO oidc_client (application_id, client_id, secret_hash, redirect_uris)
      SELECT id, 'bench-oidc', NULL, '["${OIDC_REDIRECT}"]' FROM application WHERE libelle = 'Bench OIDC';
    INSERT OR IGNORE INTO fonction_application (fonction_id, application_id)
      SELECT p.fonction_id, a.id FROM poste p JOIN utilisateur u ON u.id = p.utilisateur_id, application a
      WHERE u.login = 'agent' AND a.libelle = 'Bench OIDC';`
  execFileSync(bin('wrangler'), ['d1', 'execute', 'DB', '--local', '--persist-to', persistTo, '--command', sql], {
    cwd: root,
    env: quietEnv,
    stdio: 'ignore',
  })
}
benchOidcClient()

/** `count` authorization codes of the agent (the portal's authorization, 20 at a time). */
async function oidcCodes(count) {
  const session = await login(agent.login, agent.password)
  const challenge = createHash('sha256').update(OIDC_VERIFIER).digest('base64url')
  const codes = []
  while (codes.length < count) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, count - codes.length) }, async () => {
        const response = await fetch(`${api}/bd/oidc/authorize`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${session.jwt.accessToken}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({
            client_id: 'bench-oidc',
            redirect_uri: OIDC_REDIRECT,
            response_type: 'code',
            scope: 'openid profile email postes',
            code_challenge: challenge,
            code_challenge_method: 'S256',
          }),
        })
        const { url } = await response.json()
        return new URL(url).searchParams.get('code')
      }),
    )
    codes.push(...batch)
  }
  return codes
}

const tokenForm = (fields) => new URLSearchParams({ client_id: 'bench-oidc', ...fields }).toString()

/** Tokens for `count` OpenID Connect sessions of the agent. */
async function oidcSessions(count) {
  const sessions = []
  for (const code of await oidcCodes(count)) {
    const response = await fetch(`${base}/portail-backend/oidc/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: tokenForm({
        grant_type: 'authorization_code',
        code,
        redirect_uri: OIDC_REDIRECT,
        code_verifier: OIDC_VERIFIER,
      }),
    })
    if (!response.ok) throw new Error(`code exchange ${response.status} ${await response.text()}`)
    sessions.push(await response.json())
  }
  return sessions
}

await scenario('POST oidc/token (authorization_code with PKCE, a new code each)', 'read', async () => {
  // Codes live 60 s: made just before the run, enough for the floor's rate.
  const codes = await oidcCodes(Math.ceil(floor.rps * duration) + connections)
  let next = 0
  const requests = [
    {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      setupRequest(request) {
        const body = tokenForm({
          grant_type: 'authorization_code',
          code: codes[next++ % codes.length],
          redirect_uri: OIDC_REDIRECT,
          code_verifier: OIDC_VERIFIER,
        })
        return { ...request, body }
      },
    },
  ]
  return { run: () => load(`${base}/portail-backend/oidc/token`, { requests }) }
})
await scenario('POST oidc/token (refresh_token rotation)', 'read', async () => {
  // Each connection rotates its own session, as in the portal's own refresh.
  const sessions = (await oidcSessions(connections)).map((s) => s.refresh_token)
  let next = 0
  const requests = [
    {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      setupRequest(request, context) {
        context.token ??= sessions[next++ % sessions.length]
        return { ...request, body: tokenForm({ grant_type: 'refresh_token', refresh_token: context.token }) }
      },
      onResponse(status, body, context) {
        if (status === 200) context.token = JSON.parse(body).refresh_token
      },
    },
  ]
  return { run: () => load(`${base}/portail-backend/oidc/token`, { requests }) }
})
await scenario('GET oidc/userinfo (profile, email and current posts)', 'read', async () => {
  const [session] = await oidcSessions(1)
  return {
    url: `${base}/portail-backend/oidc/userinfo`,
    init: { headers: { Authorization: `Bearer ${session.access_token}` } },
  }
})

if (!options.large) {
  // Registrations pile up in the D1 they run on: only on the demo organisation, made for each run.
  await scenario('POST rest/public/bd/transporteur/inscription (a new company each)', 'write', async () => {
    const captchas = []
    for (let i = 0; i < Math.ceil(floor.rps * duration) + connections; i++) captchas.push(await solvedCaptcha())
    let next = 0
    const run = Date.now()
    const requests = [
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        setupRequest(request) {
          const n = next++
          const body = {
            user: { mail: `carrier${run}.${n}@bench.example`, nom: 'Transporteur', prenom: 'Banc' },
            structure: { nom: `Bench ${run % 100000} ${n}` },
            captcha: captchas[n],
          }
          return { ...request, body: JSON.stringify(body) }
        },
      },
    ]
    return { run: () => load(`${api}/public/bd/transporteur/inscription`, { requests }) }
  })
}
/**
 * Registrations waiting in the demo's Transports Martin, one for each authorisation the benchmark
 * makes; written between two scenarios (no portal running), after the reads of the queue.
 */
const BENCH_REGISTRATIONS = 5_000
function benchRegistrations() {
  const sql = `
    INSERT INTO utilisateur (login, nom, prenom, mail, actif, domain, registration_state, registration_structure_id)
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${BENCH_REGISTRATIONS})
      SELECT 'inscrit' || i || '@bench.example', 'Inscrit', 'Banc', 'inscrit' || i || '@bench.example', 0,
        'http://127.0.0.1:${port}', 'PENDING', 7
      FROM n;`
  execFileSync(bin('wrangler'), ['d1', 'execute', 'DB', '--local', '--persist-to', persistTo, '--command', sql], {
    cwd: root,
    env: quietEnv,
    stdio: 'ignore',
  })
}
if (
  !options.large &&
  (!options.only ||
    new RegExp(options.only, 'i').test('POST rest/bd/authorize/user (authorise, a different registration each)'))
) {
  benchRegistrations()
  await scenario('POST rest/bd/authorize/user (authorise, a different registration each)', 'write', async () => {
    const session = await login(admin.login, admin.password)
    const ids = await (
      await fetch(`${api}/bd/authorize/get/user/all?tri=mail`, {
        headers: { Authorization: `Bearer ${session.jwt.accessToken}` },
      })
    ).json()
    // Each once (a second authorisation would be a resend, five an hour at most).
    const pending = ids.filter((user) => user.mail.endsWith('@bench.example')).map((user) => user.id)
    let next = 0
    const requests = [
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${session.jwt.accessToken}` },
        setupRequest(request) {
          return {
            ...request,
            body: JSON.stringify({ user: { id: pending[next++ % pending.length] }, authorize: true }),
          }
        },
      },
    ]
    return { run: () => load(`${api}/bd/authorize/user`, { requests }) }
  })
}
await scenario('POST rest/public/bd/login (PBKDF2)', 'hash', async () => {
  // A solved captcha per sign-in (single use), solved beforehand so that the client costs nothing.
  const needed = Math.ceil(hash.rps * duration * 1.5) + connections
  const captchas = []
  for (let i = 0; i < needed; i++) captchas.push(await solvedCaptcha())
  let next = 0
  let accounts = 0
  const requests = [
    {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      // Each connection signs in as its own account, again and again.
      setupRequest(request, context) {
        context.login ??= benchLogins[accounts++ % benchLogins.length]
        const body = { identifiant: context.login, motDePasse: agent.password, captcha: captchas[next++] }
        return { ...request, body: JSON.stringify(body) }
      },
    },
  ]
  return { run: () => load(`${api}/public/bd/login`, { requests }) }
})

// ---------------------------------------------------------------------------------------------
// What each page ships, and the Worker

/** The client manifest Remix wrote (entry and routes, with the chunks each imports). */
function clientManifest() {
  const dir = path.join(root, 'build', 'client', 'assets')
  const file = readdirSync(dir).find((name) => /^manifest-.*\.js$/.test(name))
  const text = readFileSync(path.join(dir, file), 'utf8')
  return JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1))
}

const gzipKiB = (files) =>
  [...files].reduce((sum, file) => sum + gzipSync(readFileSync(path.join(root, 'build', 'client', file))).length, 0) /
  1024

function shipped() {
  const manifest = clientManifest()
  const floorFiles = new Set([manifest.entry.module, ...manifest.entry.imports])
  const ancestry = (id) => {
    const chain = []
    for (let route = manifest.routes[id]; route; route = manifest.routes[route.parentId]) chain.unshift(route)
    return chain
  }
  // Pages, not resource routes: the route modules with a component.
  const source = (id) =>
    ['tsx', 'ts'].map((ext) => path.join(root, 'app', `${id}.${ext}`)).find((file) => existsSync(file))
  const pages = Object.values(manifest.routes).filter((route) =>
    /export default/.test(readFileSync(source(route.id) ?? path.join(root, 'app', 'root.tsx'), 'utf8')),
  )
  const floorKiB = gzipKiB(floorFiles)
  return {
    floorKiB,
    pages: pages
      .map((route) => {
        const js = new Set(floorFiles)
        const css = new Set()
        for (const r of ancestry(route.id)) {
          js.add(r.module)
          for (const file of r.imports ?? []) js.add(file)
          for (const file of r.css ?? []) css.add(file)
        }
        return { path: route.path ?? route.id, id: route.id, jsKiB: gzipKiB(js), cssKiB: gzipKiB(css) }
      })
      .sort((a, b) => b.jsKiB - a.jsKiB),
  }
}

function workerSize() {
  const outdir = path.join(scratch, 'worker')
  const output = execFileSync(bin('wrangler'), ['deploy', '--dry-run', '--outdir', outdir], {
    cwd: root,
    env: quietEnv,
    encoding: 'utf8',
  })
  const match = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(output)
  return match ? { raw: Number(match[1]), gzip: Number(match[2]) } : null
}

// ---------------------------------------------------------------------------------------------
// Report

const fixed = (value, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '—')
const ratio = (value, of) => (of > 0 ? (value / of).toFixed(2) : '—')
const lines = []
const print = (line = '') => lines.push(line)

const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU'
print(
  `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} × ${cpu}, Node ${process.version}, ` +
    `wrangler dev (local workerd + SQLite D1), ${connections} connections, ${duration} s per scenario, ` +
    `${options.large ? 'large organisation (`npm run seed:large`)' : 'demo organisation'}.`,
)
print()
print(
  '| scenario | req/s | p50 ms | p99 ms | errors | D1 statements | ÷ bare Worker | ÷ one-statement floor | ÷ raw hash | workerd MiB |',
)
print('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
for (const row of rows) {
  const hashRatio = row.kind === 'hash' || row.name.includes('PBKDF2') ? ratio(row.rps, hash.rps) : ''
  print(
    `| ${row.name} | ${fixed(row.rps)} | ${fixed(row.p50)} | ${fixed(row.p99)} | ${row.errors} | ` +
      `${row.statements ?? '—'} | ${ratio(row.rps, bare.rps)} | ${row.kind === 'hash' ? '' : ratio(row.rps, floor.rps)} | ` +
      `${hashRatio} | ${row.memory ?? referenceMemory} |`,
  )
}

if (exportRows.length > 0) {
  print()
  print('History export (GET rest/bd/logs/export, admin of the root), once each on a freshly started portal:')
  print()
  print('| range | first byte ms | total ms | bytes | CSV rows |')
  print('|---|---:|---:|---:|---:|')
  for (const row of exportRows) {
    print(`| ${row.name} | ${fixed(row.firstByte)} | ${fixed(row.total)} | ${row.bytes} | ${row.entries} |`)
  }
}

const { floorKiB, pages } = shipped()
print()
print(
  `JavaScript and CSS each page ships (gzip, KiB). Framework floor (entry: react-dom, Remix): ${fixed(floorKiB, 1)}.`,
)
print()
print('| route | JS | JS over floor | CSS |')
print('|---|---:|---:|---:|')
for (const page of pages) {
  print(`| ${page.id} | ${fixed(page.jsKiB, 1)} | ${fixed(page.jsKiB - floorKiB, 1)} | ${fixed(page.cssKiB, 1)} |`)
}
const worker = workerSize()
print()
print(
  worker
    ? `Worker bundle: ${worker.raw} KiB, ${worker.gzip} KiB gzip.`
    : 'Worker bundle: size not reported by wrangler.',
)

const report = lines.join('\n')
console.log(`\n${report}\n`)

if (options.write) {
  const file = path.join(root, 'BENCHMARKS.md')
  const section = options.large ? 'large' : 'demo'
  const begin = `<!-- bench:${section} -->`
  const end = `<!-- /bench:${section} -->`
  let text = existsSync(file) ? readFileSync(file, 'utf8') : ''
  const block = `${begin}\n${report}\n${end}`
  text = text.includes(begin)
    ? text.replace(new RegExp(`${begin}[\\s\\S]*?${end}`), block)
    : `${text.trimEnd()}\n\n${block}\n`
  writeFileSync(file, text)
  console.log(`Kept in BENCHMARKS.md (${section}).`)
}

if (process.env.BENCH_KEEP_SCRATCH) console.log(`Logs kept in ${scratch}.`)
else rmSync(scratch, { recursive: true, force: true })
