// The two Workers under load: the portal and the reference (scripts/bench/reference.js), each under
// `wrangler dev` with its output in the run's scratch directory.
import { execFileSync, spawn } from 'node:child_process'
import { openSync } from 'node:fs'
import path from 'node:path'
import { quietEnv, root, serve } from '../local.mjs'
import { bin } from './context.mjs'

/** Starts the portal and the reference Worker of the run: `persistTo` is the portal's D1. */
export function benchServers({ port, referencePort }, { persistTo, scratch }) {
  const portalLog = openSync(path.join(scratch, 'portal.log'), 'w')
  const referenceLog = openSync(path.join(scratch, 'reference.log'), 'w')

  /**
   * The portal under `wrangler dev`: the benchmark signs in far more often than a person may. `inspectorPort`: the
   * Worker's inspector open there (its heap read while it works). `scheduled`: its crons fired at `/__scheduled`.
   */
  function startPortal({ inspectorPort, scheduled = false } = {}) {
    return serve({
      port,
      persistTo,
      stdio: portalLog,
      args: [
        ...(inspectorPort ? ['--inspector-port', String(inspectorPort)] : []),
        ...(scheduled ? ['--test-scheduled'] : []),
      ],
      vars: {
        LOGIN_RATE_PER_MINUTE: '1000000',
        QUESTION_RATE_PER_MINUTE: '1000000',
        FORGOT_RATE_PER_MINUTE: '1000000',
        REGISTRATION_RATE_PER_MINUTE: '1000000',
        OIDC_TOKEN_RATE_PER_MINUTE: '1000000',
        SERVICE_ACCOUNT_RATE_PER_MINUTE: '1000000',
        SERVER_TIMING: 'on',
        // The server checks a solved challenge with one hash whatever its work factor: a small one
        // lets the client solve hundreds beforehand in seconds.
        CAPTCHA_MAX_NUMBER: '1000',
      },
    })
  }

  const startReference = () =>
    startReferenceWorker({
      config: 'wrangler.reference.toml',
      port: referencePort,
      persistTo: path.join(scratch, 'reference'),
      log: referenceLog,
      what: 'reference',
    })

  return { startPortal, startReference }
}

/**
 * The reference Worker (scripts/bench/reference.js) under `wrangler dev` with `config` (in scripts/bench) on `port`,
 * its D1 at `persistTo`, once it answers.
 */
export async function startReferenceWorker({ config, port, persistTo, log, what }) {
  const child = spawn(
    bin('wrangler'),
    [
      'dev',
      '--config',
      path.join(root, 'scripts', 'bench', config),
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--persist-to',
      persistTo,
      '--show-interactive-dev-session=false',
    ],
    // React and Remix in their production builds, as the portal's (local.mjs `serve`).
    { cwd: root, env: { ...quietEnv, NODE_ENV: 'production' }, stdio: ['ignore', log, log] },
  )
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} wrangler dev exited with ${child.exitCode}`)
    try {
      if ((await fetch(`http://127.0.0.1:${port}/json`)).ok) return { child }
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  child.kill()
  throw new Error(`the ${what} Worker did not start within 60 s`)
}

/** Resident memory of a wrangler dev process tree (workerd holds the D1 data), in MiB. */
export function memoryMiB(pid) {
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

export const stop = (child) =>
  new Promise((resolve) => {
    if (child.exitCode !== null) return resolve()
    child.once('exit', resolve)
    child.kill('SIGTERM')
  })
