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
// Each step lives in scripts/bench/ (servers, client, scenarios, sizes, report); this file runs them in order.
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { benchClient } from './bench/client.mjs'
import { benchContext, benchOptions } from './bench/context.mjs'
import { benchAccounts, prepareDatabase } from './bench/database.mjs'
import { formatReport, writeBenchmarks } from './bench/report.mjs'
import { runScenarios } from './bench/scenarios.mjs'
import { benchServers } from './bench/servers.mjs'
import { shipped, wordsKiB, workerSize } from './bench/sizes.mjs'
import { build, ensureDevVars } from './local.mjs'

const ctx = benchContext(benchOptions())
const { options } = ctx

const vars = await ensureDevVars()
if (!options['skip-build'] && !process.env.BENCH_SKIP_BUILD) build()
const scratch = mkdtempSync(path.join(os.tmpdir(), 'portail-bench-'))
const persistTo = await prepareDatabase(options, scratch, vars)
const benchLogins = benchAccounts(persistTo, ctx.connections)
const servers = benchServers(ctx, { persistTo, scratch })
const client = benchClient(ctx)

const { rows, exportRows, moving, archive, campaign, references } = await runScenarios(ctx, {
  persistTo,
  scratch,
  servers,
  client,
  benchLogins,
})
const report = formatReport(ctx, {
  rows,
  exportRows,
  moving,
  archive,
  campaign,
  references,
  shipped: { ...shipped(), wordsKiB: await wordsKiB() },
  worker: workerSize(scratch),
})
console.log(`\n${report}\n`)

if (options.write) writeBenchmarks(options.large, report)

if (process.env.BENCH_KEEP_SCRATCH) console.log(`Logs kept in ${scratch}.`)
else rmSync(scratch, { recursive: true, force: true })
