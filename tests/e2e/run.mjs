// Browser tests: one fresh local D1 (migrations + demo data + fixtures) and the built Worker on a free
// port for the whole run (bundled as deployed and run by Miniflare alone: scripts/serve-bundle.mjs),
// then node's test runner over tests/e2e/*.test.mjs.
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { ensureDevVars, migrate, quietEnv, root, seed, serveBundle } from '../../scripts/local.mjs'

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

const persistTo = mkdtempSync(path.join(tmpdir(), 'portail-e2e-'))
const vars = ensureDevVars()
const port = await freePort()
migrate(persistTo)
// The demo OpenID Connect client's addresses are on the port the suite serves on.
await seed(persistTo, vars.PASSWORD_PEPPER, `http://localhost:${port}`)
// The fixtures' dates count from the day they are loaded (`date('now', …)`): the tests count from it too.
const fixturesDay = new Date().toISOString().slice(0, 10)
const fixtures = spawnSync(
  path.join(root, 'node_modules', '.bin', 'wrangler'),
  [
    'd1',
    'execute',
    'DB',
    '--local',
    '--persist-to',
    persistTo,
    '--file',
    path.join(root, 'tests', 'e2e', 'fixtures.sql'),
  ],
  { cwd: root, env: quietEnv, encoding: 'utf8' },
)
if (fixtures.status !== 0) throw new Error(`fixtures failed: ${fixtures.stderr}`)

const files = readdirSync(path.join(root, 'tests', 'e2e'))
  .filter((name) => name.endsWith('.test.mjs') && new RegExp(process.env.E2E_ONLY ?? '').test(name))
  .map((name) => path.join('tests', 'e2e', name))
// With no file, `node --test` would look for tests everywhere: a filter that matches none says so.
if (files.length === 0) throw new Error(`E2E_ONLY=${process.env.E2E_ONLY} matches no tests/e2e/*.test.mjs`)

const log = openSync(path.join(root, '.wrangler', 'e2e-server.log'), 'w')
// A lighter proof of work keeps the many sign-ins of the suite quick (the widget and checks are the
// real ones), and the whole suite signs in from one address, far more often than a person would.
const { child } = await serveBundle({
  port,
  persistTo,
  stdio: log,
  vars: {
    CAPTCHA_MAX_NUMBER: '5000',
    LOGIN_RATE_PER_MINUTE: '1000',
    QUESTION_RATE_PER_MINUTE: '1000',
    FORGOT_RATE_PER_MINUTE: '1000',
  },
})

// No time limit per file: a file takes what its cases take (the accessibility one goes through every
// screen in two languages). What bounds a run is each browser step's own limit (support.mjs), so a
// stuck page still fails at the step that waits for it.
// One file at a time. A file that fails is run once more, and the run says so; a file that fails twice
// fails the run. (Under `wrangler dev`, whose proxy now and then held an answer it had logged as sent
// until the browser gave up on a loaded 2-core machine, that second run was often needed; the Worker
// now runs without that proxy, and a file run twice is a defect to look into.)
const runFile = (file) =>
  new Promise((resolve) => {
    const runner = spawn(process.execPath, ['--test', file], {
      cwd: root,
      stdio: 'inherit',
      env: {
        ...process.env,
        E2E_BASE_URL: `http://localhost:${port}`,
        E2E_PORT: String(port),
        E2E_FIXTURES_DAY: fixturesDay,
      },
    })
    runner.on('exit', (exitCode) => resolve(exitCode ?? 1))
  })
const retried = []
const failed = []
for (const file of files) {
  if ((await runFile(file)) === 0) continue
  console.log(`# ${file} failed: run once more`)
  retried.push(file)
  if ((await runFile(file)) !== 0) failed.push(file)
}
if (retried.length > 0) {
  console.log(
    `# files run twice: ${retried.join(', ')}; failed twice: ${failed.length > 0 ? failed.join(', ') : 'none'}`,
  )
}
const code = failed.length > 0 ? 1 : 0
child.kill('SIGTERM')
if (code !== 0) {
  // What the server said near the end: evidence for a failure the test's own message cannot explain.
  const lines = readFileSync(path.join(root, '.wrangler', 'e2e-server.log'), 'utf8')
    .trimEnd()
    .split('\n')
  console.log(
    `# the server's last ${Math.min(60, lines.length)} lines:\n${lines
      .slice(-60)
      .map((line) => `#   ${line}`)
      .join('\n')}`,
  )
}
rmSync(persistTo, { recursive: true, force: true })
process.exit(code)
