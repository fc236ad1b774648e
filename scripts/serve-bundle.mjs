// `node scripts/serve-bundle.mjs` (through `serveBundle` in local.mjs): serves the built Worker as it is
// deployed, bundled by wrangler (`deploy --dry-run`, `bundleWorker`) and run by Miniflare alone — one workerd with the
// bindings of wrangler.toml, .dev.vars and the overrides given, and no `wrangler dev` proxy in front.
// The browser tests use it: under the load of a 2-core machine, that proxy (a second workerd that
// streams every answer on to the browser) has now and then held an answer it had logged as sent until
// the browser gave up, and it costs each request a second hop.
// Its input is one JSON value in SERVE_BUNDLE ({ host, port, persistTo, vars, cronPort? }); it prints its requests
// and the Worker's console, and stops on SIGTERM.
import { existsSync } from 'node:fs'
import { createServer } from 'node:http'
import path from 'node:path'
import { Log, LogLevel, Miniflare } from 'miniflare'
import { unstable_getMiniflareWorkerOptions } from 'wrangler'
import { BUNDLE_DIR, root } from './local.mjs'

const { host, port, persistTo, vars, cronPort } = JSON.parse(process.env.SERVE_BUNDLE ?? '{}')

// The Worker as it is deployed, bundled once by `bundleWorker` (local.mjs) for every server of a run.
const main = path.join(BUNDLE_DIR, 'server.js')
if (!existsSync(main)) throw new Error(`no bundle at ${main}: bundleWorker() (scripts/local.mjs) makes it`)

// The bindings as `wrangler dev` reads them: wrangler.toml's, then .dev.vars over its [vars].
const { workerOptions } = unstable_getMiniflareWorkerOptions(path.join(root, 'wrangler.toml'))
const miniflare = new Miniflare({
  ...workerOptions,
  name: 'portail',
  // The bundle is one module (its dynamic imports name none Miniflare could follow).
  modules: [{ type: 'ESModule', path: main }],
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

// With `cronPort` (the browser tests'), `GET http://127.0.0.1:<cronPort>/?cron=17+*+*+*+*` fires that cron as its
// schedule would, and answers its outcome. (Miniflare's own trigger, /cdn-cgi/handler/scheduled, reaches the assets'
// router in front of the Worker, which has no scheduled handler.)
if (cronPort) {
  createServer(async (request, response) => {
    const cron = new URL(request.url ?? '/', 'http://localhost').searchParams.get('cron') ?? ''
    try {
      const { outcome } = await (await miniflare.getWorker()).scheduled({ cron, scheduledTime: new Date() })
      response.writeHead(outcome === 'ok' ? 200 : 500).end(outcome)
    } catch (error) {
      response.writeHead(500).end(String(error))
    }
  }).listen(cronPort, '127.0.0.1')
}

const stop = () => {
  miniflare.dispose().finally(() => process.exit(0))
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
