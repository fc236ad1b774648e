// What every part of `npm run bench` shares: its options, its ports and addresses, the tools it runs.
import path from 'node:path'
import { parseArgs } from 'node:util'
import { root } from '../local.mjs'

/** The command line's options (`npm run bench -- --large --write --duration 10 …`). */
export function benchOptions() {
  const { values } = parseArgs({
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
  return values
}

/** The run's settings and addresses: the portal on BENCH_PORT (8799), the reference Worker on the next port. */
export function benchContext(options) {
  const port = Number(process.env.BENCH_PORT ?? 8799)
  const referencePort = port + 1
  const base = `http://127.0.0.1:${port}`
  return {
    options,
    duration: Number(options.duration),
    connections: Number(options.connections),
    port,
    referencePort,
    base,
    api: `${base}/portail-backend/rest`,
    reference: `http://127.0.0.1:${referencePort}`,
  }
}

/** Whether a scenario named `name` runs under `--only`. */
export const selected = (options, name) => !options.only || new RegExp(options.only, 'i').test(name)

export const bin = (name) => path.join(root, 'node_modules', '.bin', name)
