// `npm test`: every check and suite, in stages. A stage's steps run side by side, each one's output printed whole when it
// ends (two steps' lines never mix); a stage with a failed step ends the run once its other steps are done.
// The first stage pairs steps that each keep about one core busy (the typecheck, the lint, the build, the unit tests):
// on two cores they take the time of about half their sum. The API and browser suites fill both cores alone, and the
// API tests read the build: they run after it, one after the other.
import { spawn } from 'node:child_process'
import { root } from './local.mjs'

/** @type {string[][][]} each stage's steps, as npm scripts or commands */
const STAGES = [
  [
    ['npm', 'run', 'typecheck'],
    ['npm', 'run', 'lint'],
    ['npm', 'run', 'build'],
    ['npm', 'run', 'test:unit'],
  ],
  [['npx', 'vitest', 'run', '--config', 'vitest.api.config.ts']],
  [['node', 'tests/e2e/run.mjs']],
]

/**
 * Runs one step; its output is printed when it ends, with how long it took.
 * @param {string[]} command
 * @returns {Promise<number>} its exit code
 */
function step([command, ...args]) {
  const started = Date.now()
  const name = [command, ...args].join(' ')
  return new Promise((resolve) => {
    /** @type {Buffer[]} */
    const chunks = []
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
    child.stdout.on('data', (chunk) => chunks.push(chunk))
    child.stderr.on('data', (chunk) => chunks.push(chunk))
    child.on('close', (code) => {
      const seconds = Math.round((Date.now() - started) / 1000)
      process.stdout.write(`\n== ${name} (${seconds} s, exit ${code})\n${Buffer.concat(chunks).toString()}`)
      resolve(code ?? 1)
    })
  })
}

for (const stage of STAGES) {
  // A suite of one step streams its output as it goes: a long run shows its progress.
  const codes =
    stage.length === 1
      ? [await streamed(/** @type {string[]} */ (stage[0]))]
      : await Promise.all(stage.map((command) => step(command)))
  if (codes.some((code) => code !== 0)) process.exit(1)
}

/**
 * Runs one step with its output as it comes.
 * @param {string[]} command
 * @returns {Promise<number>} its exit code
 */
function streamed([command, ...args]) {
  console.log(`\n== ${[command, ...args].join(' ')}`)
  return new Promise((resolve) => {
    spawn(command, args, { cwd: root, stdio: 'inherit' }).on('close', (code) => resolve(code ?? 1))
  })
}
