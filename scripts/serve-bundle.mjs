// `node scripts/serve-bundle.mjs` (through `serveBundle` in local.mjs): serves the built Worker as it is
// deployed, bundled by wrangler (`deploy --dry-run`) and run by Miniflare alone — one workerd with the
// bindings of wrangler.toml, .dev.vars and the overrides given, and no `wrangler dev` proxy in front.
// The browser tests use it: under the load of a 2-core machine, that proxy (a second workerd that
// streams every answer on to the browser) has now and then held an answer it had logged as sent until
// the browser gave up, and it costs each request a second hop.
// Its input is one JSON value in SERVE_BUNDLE ({ host, port, persistTo, vars }); it prints its requests
// and the Worker's console, and stops on SIGTERM.
import { spawnSync } from 'node:child_process'
import { mkdirSync, rmSync } from 'node:fs'
import path from 'node:path'
import { Log, LogLevel, Miniflare } from 'miniflare'
import { unstable_getMiniflareWorkerOptions } from 'wrangler'
import { quietEnv, root } from './local.mjs'

const { host, port, persistTo, vars } = JSON.parse(process.env.SERVE_BUNDLE ?? '{}')

const outDir = path.join(root, '.wrangler', 'bundle')
rmSync(outDir, { recursive: true, force: true })
mkdirSync(outDir, { recursive: true })
// The Worker as it is deployed: wrangler's own bundle of server.ts (production builds of the libraries).
const bundled = spawnSync(
  path.join(root, 'node_modules', '.bin', 'wrangler'),
  ['deploy', '--dry-run', '--outdir', outDir],
  { cwd: root, env: { ...quietEnv, NODE_ENV: 'production' }, encoding: 'utf8' },
)
if (bundled.status !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${bundled.stdout}${bundled.stderr}`)

// The bindings as `wrangler dev` reads them: wrangler.toml's, then .dev.vars over its [vars].
const { workerOptions } = unstable_getMiniflareWorkerOptions(path.join(root, 'wrangler.toml'))
const miniflare = new Miniflare({
  ...workerOptions,
  name: 'portail',
  // The bundle is one module (its dynamic imports name none Miniflare could follow).
  modules: [{ type: 'ESModule', path: path.join(outDir, 'server.js') }],
  bindings: { ...workerOptions.bindings, ...vars },
  host,
  port,
  // Where `wrangler d1 execute --local --persist-to` writes: the same database file.
  d1Persist: path.join(persistTo, 'v3', 'd1'),
  log: new Log(LogLevel.INFO),
  handleRuntimeStdio(stdout, stderr) {
    stdout.pipe(process.stdout)
    stderr.pipe(process.stderr)
  },
})
await miniflare.ready
console.log(`ready on http://${host}:${port}`)

const stop = () => {
  miniflare.dispose().finally(() => process.exit(0))
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
