// @ts-check
// Browser tests: the built Worker bundled once as deployed, then two servers (E2E_WORKERS), each with its
// own fresh local D1 (migrations + demo data + fixtures) on its own free port, run by Miniflare alone
// (scripts/serve-bundle.mjs); node's test runner goes through tests/e2e/*.test.mjs, each server taking the
// next file as it finishes one, so that two files run at once and none shares a database with another.
import { spawn, spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { availableParallelism, tmpdir } from 'node:os'
import path from 'node:path'
import {
  ACCESS_AS_TOLD_SQL,
  bundleWorker,
  ensureDevVars,
  migrate,
  quietEnv,
  root,
  seed,
  serveBundle,
} from '../../scripts/local.mjs'

/**
 * A port free on 127.0.0.1 now, as the system gives one.
 * @returns {Promise<number>}
 */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      // Listening on a TCP port: its address is one (a pipe's would be a string).
      const { port } = /** @type {import('node:net').AddressInfo} */ (server.address())
      server.close(() => resolve(port))
    })
  })
}

/** What a file's size misjudges: a short loop over every administration screen, in two languages (the longest file). */
const LONG_FOR_ITS_SIZE = new Set(['tests/e2e/accessibility-screens.test.mjs'])
/** @param {string} file */
const weight = (file) => (LONG_FOR_ITS_SIZE.has(file) ? Number.POSITIVE_INFINITY : statSync(path.join(root, file)).size)

const files = readdirSync(path.join(root, 'tests', 'e2e'))
  .filter((name) => name.endsWith('.test.mjs') && new RegExp(process.env.E2E_ONLY ?? '').test(name))
  .map((name) => path.join('tests', 'e2e', name))
  // The longest first (their size says roughly how long), so that no long file starts last and runs alone.
  .sort((a, b) => weight(b) - weight(a))
// With no file, `node --test` would look for tests everywhere: a filter that matches none says so.
if (files.length === 0) throw new Error(`E2E_ONLY=${process.env.E2E_ONLY} matches no tests/e2e/*.test.mjs`)

// Two at once on two cores: a file's time is partly the server's and the network's, and each file's
// browser waits on its pages; more would only queue for the processor.
const workers = Math.min(files.length, Number(process.env.E2E_WORKERS ?? Math.max(2, availableParallelism())))
// scripts/local.mjs has no JSDoc types: .dev.vars read as names and values.
const vars = /** @type {Record<string, string>} */ (await ensureDevVars())
// The fixtures' dates count from the day they are loaded (`date('now', …)`): the tests count from it too.
const fixturesDay = new Date().toISOString().slice(0, 10)
bundleWorker()
// The migrations are applied once (wrangler takes about 15 s of processor for them), each server's database a copy.
const migrated = mkdtempSync(path.join(tmpdir(), 'portail-e2e-migrated-'))
migrate(migrated)

/**
 * One server: its port, its fresh database loaded, the bundle served on it (log in .wrangler/e2e-server-<n>.log).
 * @param {number} index
 */
async function startServer(index) {
  const persistTo = mkdtempSync(path.join(tmpdir(), 'portail-e2e-'))
  const port = await freePort()
  cpSync(migrated, persistTo, { recursive: true })
  // The demo OpenID Connect client's addresses are on the port this server serves on.
  // (`seed`'s `domain` is typed by its default alone, `undefined`, in scripts/local.mjs, which has no JSDoc types.)
  await /** @type {(persistTo: string, pepper: string | undefined, domain?: string) => Promise<unknown>} */ (seed)(
    persistTo,
    vars.PASSWORD_PEPPER,
    `http://localhost:${port}`,
  )
  // The fixtures, then the access they grant recorded as told.
  const fixturesFile = path.join(persistTo, 'fixtures.sql')
  writeFileSync(
    fixturesFile,
    readFileSync(path.join(root, 'tests', 'e2e', 'fixtures.sql'), 'utf8') + ACCESS_AS_TOLD_SQL,
  )
  const fixtures = spawnSync(
    path.join(root, 'node_modules', '.bin', 'wrangler'),
    ['d1', 'execute', 'DB', '--local', '--persist-to', persistTo, '--file', fixturesFile],
    { cwd: root, env: quietEnv, encoding: 'utf8' },
  )
  if (fixtures.status !== 0) throw new Error(`fixtures failed: ${fixtures.stderr}`)
  const logFile = path.join(root, '.wrangler', `e2e-server-${index}.log`)
  // A lighter proof of work keeps the many sign-ins of the suite quick (the widget and checks are the
  // real ones), and the whole suite signs in from one address, far more often than a person would.
  const cronPort = await freePort()
  const { child } = await serveBundle({
    port,
    cronPort,
    persistTo,
    // A file descriptor, as spawn takes it (scripts/local.mjs, without JSDoc types, types `stdio` by its
    // default 'inherit' alone).
    stdio: /** @type {any} */ (openSync(logFile, 'w')),
    vars: {
      CAPTCHA_MAX_NUMBER: '5000',
      LOGIN_RATE_PER_MINUTE: '1000',
      QUESTION_RATE_PER_MINUTE: '1000',
      FORGOT_RATE_PER_MINUTE: '1000',
    },
  })
  return { index, port, cronPort, persistTo, child, logFile }
}

/** @typedef {Awaited<ReturnType<typeof startServer>>} Server */

/**
 * Whether `server` answers its health check within 5 s.
 * @param {Server} server
 */
async function answers(server) {
  try {
    const response = await fetch(`http://127.0.0.1:${server.port}/portail-backend/rest/public/health`, {
      signal: AbortSignal.timeout(5_000),
    })
    return response.ok
  } catch {
    return false
  }
}

/**
 * Stops `server`: Miniflare kills its workerd (whether it answers or not).
 * @param {Server} server
 */
async function stop(server) {
  const stopped = new Promise((resolve) => server.child.once('exit', resolve))
  server.child.kill('SIGTERM')
  await Promise.race([stopped, new Promise((resolve) => setTimeout(resolve, 10_000))])
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL')
}

/** @type {Server[]} */
const servers = []
for (let index = 1; index <= workers; index++) servers.push(await startServer(index))

/**
 * The last 80 lines `server` logged since `from` (a byte offset): its requests, their status and time, and the Worker's
 * own messages while a file ran. Evidence for a failure the test's own message cannot explain.
 * @param {Server} server
 * @param {number} from
 */
function serverSaid(server, from) {
  const lines = readFileSync(server.logFile).subarray(from).toString('utf8').trimEnd().split('\n')
  const shown = lines.slice(-80)
  return `# server ${server.index} while it ran (the last ${shown.length} of ${lines.length} lines):\n${shown
    .map((line) => `#   ${line}`)
    .join('\n')}\n`
}

/**
 * Runs one file against `server`; its output is printed whole when it ends (two files' lines never mix).
 * No time limit per file: a file takes what its cases take. What bounds a run is each browser step's own
 * limit (support.mjs), so a stuck page still fails at the step that waits for it.
 * @param {string} file
 * @param {Server} server
 * @returns {Promise<number>} its exit code
 */
const runFile = (file, server) =>
  new Promise((resolve) => {
    /** @type {Buffer[]} */
    const chunks = []
    const runner = spawn(process.execPath, ['--test', file], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        E2E_BASE_URL: `http://localhost:${server.port}`,
        E2E_PORT: String(server.port),
        E2E_CRON_URL: `http://127.0.0.1:${server.cronPort}/`,
        E2E_FIXTURES_DAY: fixturesDay,
      },
    })
    runner.stdout.on('data', (chunk) => chunks.push(chunk))
    runner.stderr.on('data', (chunk) => chunks.push(chunk))
    // Where the server's log stands as the file starts: what it says during a failed file is printed with it.
    const logFrom = statSync(server.logFile).size
    // A server that has stopped answering (its health check unanswered twice, 10 s apart) ends the file at once: its
    // steps would otherwise wait out their limits one after the other, and every file after it on that server fail.
    let misses = 0
    let asking = false
    const watch = setInterval(async () => {
      if (asking) return
      asking = true
      misses = (await answers(server)) ? 0 : misses + 1
      asking = false
      if (misses < 2 || runner.exitCode !== null) return
      clearInterval(watch)
      chunks.push(Buffer.from(`# server ${server.index} stopped answering its health check: the file is ended\n`))
      runner.kill('SIGTERM')
    }, 10_000)
    runner.on('close', (exitCode) => {
      clearInterval(watch)
      process.stdout.write(`# ${file} (server ${server.index})\n${Buffer.concat(chunks).toString()}`)
      if (exitCode !== 0) process.stdout.write(serverSaid(server, logFrom))
      resolve(exitCode ?? 1)
    })
  })

// A file that fails is run once more, and the run says so; a file that fails twice fails the run.
// A file run twice is a defect to look into.
const queue = [...files]
/** @type {string[]} */
const retried = []
/** @type {{ file: string, server: Server }[]} */
const failed = []
/** @param {Server} server */
async function work(server) {
  for (let file = queue.shift(); file; file = queue.shift()) {
    if ((await runFile(file, server)) === 0) continue
    await renew(server)
    console.log(`# ${file} failed: run once more, on a fresh server`)
    retried.push(file)
    if ((await runFile(file, server)) !== 0) {
      failed.push({ file, server })
      await renew(server)
    }
  }
}

/**
 * Replaces `server`, after a failed file, by a fresh one: its own new database and port. The file's second run then
 * starts from the fixtures as its first did, not from what its first left (a recovery code already spent, an account
 * already made), and a server that stopped answering is gone. workerd (2026-04-26) has been seen to spin on one request for good, its main thread
 * pumping V8's garbage-collector sweeping tasks without end (`perf` and `gdb`: `IoContext::runImpl` →
 * `PumpMessageLoop` → `IncrementalSweepTask::Run`), after a dozen minutes of the suite's requests: no request was ever
 * answered again.
 * @param {Server} server
 */
async function renew(server) {
  await stop(server)
  rmSync(server.persistTo, { recursive: true, force: true })
  Object.assign(server, await startServer(server.index))
}
await Promise.all(servers.map(work))

if (retried.length > 0) {
  const twice = failed.length > 0 ? failed.map(({ file }) => file).join(', ') : 'none'
  console.log(`# files run twice: ${retried.join(', ')}; failed twice: ${twice}`)
}
for (const server of servers) server.child.kill('SIGTERM')
for (const server of servers) rmSync(server.persistTo, { recursive: true, force: true })
rmSync(migrated, { recursive: true, force: true })
process.exit(failed.length > 0 ? 1 : 0)
