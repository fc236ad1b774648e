// `npm run profile -- /pages/user/me [--as admin] [--large] [--seconds 10] [--connections 10] [--within kysely]`
// (or an API path: `/portail-backend/rest/bd/utilisateur/{me}` is read with the account's bearer token)
// (`{review}` in a path: a campaign opened over the whole organisation first, e.g. `/pages/admin/revues/{review}`)
//
// Serves the built portal on the demo organisation with the Worker's inspector open, signs in as a
// browser would, drives the page with autocannon while the inspector samples the Worker's CPU, then
// prints where the time went: self time by origin (the portal's own folders, each library by package,
// through the bundle's source map) and the heaviest functions. The profile is kept
// (`.wrangler/profile/<page>.cpuprofile`) for the browser's DevTools.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { originalPositionFor, TraceMap } from '@jridgewell/trace-mapping'
import { benchClient } from './bench/client.mjs'
import { connect } from './bench/inspector.mjs'
import { stop } from './bench/servers.mjs'
import { build, ensureDevVars, LARGE_PERSIST_DIR, migrate, root, seed, serve } from './local.mjs'

const { values: options, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    as: { type: 'string', default: 'agent' },
    /** On the organisation of `npm run seed:large` instead of the demo's. */
    large: { type: 'boolean', default: false },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    'skip-build': { type: 'boolean', default: false },
    /** An origin (`kysely`, `worker-api/services`…) whose callers and own functions are listed too. */
    within: { type: 'string' },
  },
})
let page = positionals[0] ?? '/pages/user/acces'
const ACCOUNTS = { agent: ['agent', 'Agent1234'], admin: ['admin', 'Admin1234'], adminsud: ['adminsud', 'Adminsud1'] }
const account = ACCOUNTS[options.as]
if (!account) throw new Error(`--as is one of ${Object.keys(ACCOUNTS).join(', ')}`)

const port = Number(process.env.PROFILE_PORT ?? 8797)
const inspectorPort = port + 1
const base = `http://127.0.0.1:${port}`

const vars = await ensureDevVars()
if (!options['skip-build']) build()
const persistTo = options.large
  ? LARGE_PERSIST_DIR
  : path.join(mkdtempSync(path.join(os.tmpdir(), 'portail-profile-')), 'portail')
if (options.large && !existsSync(persistTo))
  throw new Error('No large organisation yet: run `npm run seed:large` first.')
migrate(persistTo)
if (!options.large) await seed(persistTo, vars.PASSWORD_PEPPER)
const started = Date.now()
const { child } = await serve({
  port,
  persistTo,
  stdio: 'ignore',
  vars: { LOGIN_RATE_PER_MINUTE: '1000000', QUESTION_RATE_PER_MINUTE: '1000000' },
  args: ['--inspector-port', String(inspectorPort)],
})

try {
  const client = benchClient({
    base,
    api: `${base}/portail-backend/rest`,
    connections: Number(options.connections),
    duration: Number(options.seconds),
  })
  // A page is read with the browser's cookie, the API's signed-in calls with a bearer token; `{me}` in
  // the path is the account's id.
  const session = page.includes('/rest/bd/') || page.includes('{review}') ? await client.login(...account) : null
  page = page.replace('{me}', session?.user.id ?? '')
  if (page.includes('{review}')) page = page.replace('{review}', await openedReview(session))
  const cookie = page.startsWith('/pages/') ? await client.browserCookie(...account) : ''
  const headers = cookie ? { Cookie: cookie } : session ? { Authorization: `Bearer ${session.jwt.accessToken}` } : {}
  const check = await fetch(`${base}${page}`, { headers, redirect: 'manual' })
  if (check.status !== 200) throw new Error(`${page} answered ${check.status}`)
  // Warmed up first: the profile is of a running Worker, not of its first requests.
  await client.load(`${base}${page}`, { headers, seconds: 2 })

  const inspector = await connect(inspectorPort)
  await inspector.send('Profiler.enable')
  await inspector.send('Profiler.setSamplingInterval', { interval: 200 })
  await inspector.send('Profiler.start')
  const run = await client.load(`${base}${page}`, { headers })
  const { profile } = await inspector.send('Profiler.stop')
  inspector.close()

  const folder = path.join(root, '.wrangler', 'profile')
  mkdirSync(folder, { recursive: true })
  const file = path.join(folder, `${page.replace(/\W+/g, '_').replace(/^_|_$/g, '')}.cpuprofile`)
  writeFileSync(file, JSON.stringify(profile))
  const map = bundleMap(started)
  // The bundle's map beside it: the profile's function names are the minified bundle's.
  if (map) writeFileSync(file.replace(/\.cpuprofile$/, '.js.map'), readFileSync(map.path, 'utf8'))
  report(profile, map?.trace ?? null, run)
  console.log(
    `\nProfile kept in ${path.relative(root, file)} (DevTools, Performance, "Load profile"), its bundle's map beside it.`,
  )
} finally {
  await stop(child)
}

/**
 * `{review}` in the path: a campaign the account opens over the root's sub-tree, once the queue has written its items
 * (every current post of the organisation).
 */
async function openedReview(session) {
  const headers = { Authorization: `Bearer ${session.jwt.accessToken}`, 'Content-Type': 'application/json' }
  const due = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10).split('-').reverse().join('/')
  const response = await fetch(`${base}/portail-backend/rest/bd/revue`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ nom: `Profil ${Date.now()}`, structure: { id: 1 }, echeance: due, siNonRevu: 'CONSERVER' }),
  })
  if (response.status !== 201) throw new Error(`campaign ${response.status} ${await response.text()}`)
  const { id } = await response.json()
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 200))
    const { etat } = await (await fetch(`${base}/portail-backend/rest/bd/revue/${id}`, { headers })).json()
    if (etat !== 'OUVERTURE') return String(id)
  }
}

/** The source map of the bundle wrangler dev made for this run (the newest under .wrangler/tmp). */
function bundleMap(since) {
  const tmp = path.join(root, '.wrangler', 'tmp')
  const maps = readdirSync(tmp, { recursive: true })
    .map(String)
    .filter((name) => name.endsWith('.js.map'))
    .map((name) => path.join(tmp, name))
    .filter((name) => statSync(name).mtimeMs >= since - 60_000)
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)
  return maps[0] ? { path: maps[0], trace: new TraceMap(readFileSync(maps[0], 'utf8')) } : null
}

/** Where a sample's function comes from: a library by its package, the portal's code by its folder. */
function originOf(map, frame) {
  if (!frame.url)
    return frame.functionName.startsWith('(') ? frame.functionName : `(${frame.functionName || 'runtime'})`
  // The runtime's own modules (`cloudflare-internal:d1-api`, the D1 binding's side in the isolate) are not
  // the bundle's: its source map would name whatever library sits at the same line and column.
  if (/^[a-z-]+-internal:/.test(frame.url)) return frame.url
  const source = map
    ? originalPositionFor(map, { line: frame.lineNumber + 1, column: frame.columnNumber }).source
    : null
  if (!source) return path.basename(frame.url)
  const modules = source.lastIndexOf('node_modules/')
  if (modules >= 0) {
    const [scope, name] = source.slice(modules + 'node_modules/'.length).split('/')
    return scope.startsWith('@') ? `${scope}/${name}` : scope
  }
  const own = (path.isAbsolute(source) ? path.relative(root, source) : source.replace(/^(\.\.\/)+/, '')).match(
    /^(app\/[^/]+|worker-api\/[^/]+(\/[^/.]+(?=\/))?|[^/]+)/,
  )
  return own ? own[0] : source
}

/** The `count` largest of `times` (name → microseconds), each with its share of the sampled time. */
function printTop(title, times, share, count = 25) {
  console.log(title)
  for (const [name, micros] of [...times].sort((a, b) => b[1] - a[1]).slice(0, count)) {
    console.log(`  ${share(micros)}  ${name}`)
  }
}

function report(profile, map, run) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  // Each node's origin once: a source map lookup per node, not per sample.
  const originById = new Map(profile.nodes.map((node) => [node.id, originOf(map, node.callFrame)]))
  const self = new Map()
  for (const [index, id] of profile.samples.entries()) {
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0))
  }
  const total = [...self.values()].reduce((sum, value) => sum + value, 0)
  const origins = new Map()
  const functions = new Map()
  for (const [id, micros] of self) {
    const origin = originById.get(id)
    origins.set(origin, (origins.get(origin) ?? 0) + micros)
    const name = `${byId.get(id).callFrame.functionName || '(anonymous)'} · ${origin}`
    functions.set(name, (functions.get(name) ?? 0) + micros)
  }
  const share = (micros) => `${((100 * micros) / total).toFixed(1).padStart(5)} %`
  const idle = (origins.get('(idle)') ?? 0) + (origins.get('(program)') ?? 0)
  console.log(`\n${page} as ${options.as}: ${run.rps.toFixed(0)} req/s at ${options.connections} connections`)
  console.log(`sampled ${(total / 1e6).toFixed(1)} s, of which idle or outside JavaScript ${share(idle)}\n`)
  printTop('Self time by origin', origins, share)
  printTop('\nHeaviest functions (self time)', functions, share)
  if (options.within) {
    const callers = callersInto(profile, map, byId, originById, self, options.within)
    printTop(`\nCalls into ${options.within}, by caller (time inside, callees included)`, callers, share)
  }
}

/** Where `origin`'s time comes from: the calls into it from outside (time spent inside, by caller). */
function callersInto(profile, map, byId, originById, self, origin) {
  const parentOf = new Map()
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id)
  const where = (frame) => {
    const position = frame.url
      ? originalPositionFor(map, { line: frame.lineNumber + 1, column: frame.columnNumber })
      : null
    const file = position?.source ? path.relative(root, path.resolve(root, position.source)) : frame.url
    return `${position?.name ?? (frame.functionName || '(anonymous)')} · ${file}:${position?.line ?? ''}`
  }
  const callers = new Map()
  for (const [id, micros] of self) {
    let outermost = null
    for (let at = id; at !== undefined; at = parentOf.get(at)) if (originById.get(at) === origin) outermost = at
    if (outermost === null) continue
    const caller = parentOf.get(outermost)
    const name = caller === undefined ? '(root)' : where(byId.get(caller).callFrame)
    callers.set(name, (callers.get(name) ?? 0) + micros)
  }
  return callers
}
