// Local environment helpers shared by `npm start` and the browser tests.
import { spawn, spawnSync } from 'node:child_process'
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const bin = (name) => path.join(root, 'node_modules', '.bin', name)

export const quietEnv = {
  ...process.env,
  WRANGLER_SEND_METRICS: 'false',
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  CI: 'true',
}

function run(command, args) {
  const result = spawnSync(command, args, {
    cwd: root,
    env: quietEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  })
  if (result.status !== 0) {
    process.stderr.write(result.stdout + result.stderr)
    throw new Error(`${path.basename(command)} ${args.join(' ')} failed (exit ${result.status})`)
  }
  return result.stdout
}

function readVars(file) {
  const vars = {}
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    // "value" or 'value' (a JSON value, such as the signing key, is single-quoted).
    const match = /^\s*([A-Z0-9_]+)\s*=\s*(?:"(.*)"|'(.*)'|(.*?))\s*$/.exec(line)
    if (match) vars[match[1]] = match[2] ?? match[3] ?? match[4]
  }
  return vars
}

/** A line of .dev.vars: double-quoted, or single-quoted when the value holds a double quote. */
const varLine = (key, value) => (value.includes('"') ? `${key}='${value}'` : `${key}="${value}"`)

/**
 * Creates .dev.vars from the development-only example when it is missing, and adds the keys a newer
 * example brought to an older copy (values already there are kept), and a SAML key pair made on this machine.
 */
export async function ensureDevVars() {
  const target = path.join(root, '.dev.vars')
  const example = path.join(root, '.dev.vars.example')
  if (!existsSync(target)) {
    copyFileSync(example, target)
    console.log('Created .dev.vars from .dev.vars.example (development-only values).')
  }
  const vars = readVars(target)
  const added = Object.entries(readVars(example)).filter(([key]) => !(key in vars))
  if (added.length > 0) {
    appendFileSync(target, `\n${added.map(([key, value]) => varLine(key, value)).join('\n')}\n`)
    console.log(`Added ${added.map(([key]) => key).join(', ')} to .dev.vars from .dev.vars.example.`)
    for (const [key, value] of added) vars[key] = value
  }
  if (!vars.SAML_IDP_KEY) {
    // The SAML identity provider's pair is made here, for this machine only: no private key is published.
    const { samlPair } = await import('./saml-pair.mjs')
    const pair = await samlPair('Portail SAML IdP (development only)')
    const lines = { SAML_IDP_KEY: pair.key.trim(), SAML_IDP_CERT: pair.cert.trim() }
    const written = Object.entries(lines).map(([key, value]) => `${key}="${value.replaceAll('\n', '\\n')}"`)
    appendFileSync(
      target,
      `\n# The SAML identity provider's development-only key and certificate, made on this machine.\n${written.join('\n')}\n`,
    )
    console.log('Added a development-only SAML key and certificate to .dev.vars.')
    Object.assign(vars, lines)
  }
  return vars
}

export function build() {
  run(bin('remix'), ['vite:build'])
}

export function migrate(persistTo) {
  run(bin('wrangler'), ['d1', 'migrations', 'apply', 'DB', '--local', '--persist-to', persistTo])
}

/**
 * The access that data loaded straight into the database grants today, recorded as told (migration 0051): integrators
 * hear of what changes from then on, not of the demo's or a fixture's starting state.
 */
export const ACCESS_AS_TOLD_SQL = `INSERT OR IGNORE INTO acces_dit (utilisateur_id, application_id, chemins)
  SELECT p.utilisateur_id, fa.application_id, json_group_array(DISTINCT s.path)
  FROM poste p
  JOIN fonction_application fa ON fa.fonction_id = p.fonction_id
  JOIN application a ON a.id = fa.application_id AND a.actif = 1
  JOIN utilisateur u ON u.id = p.utilisateur_id AND u.registration_state <> 'PENDING'
  JOIN structure s ON s.id = p.structure_id
  WHERE p.date_debut <= date('now') AND p.date_fin >= date('now')
  GROUP BY p.utilisateur_id, fa.application_id;
`

/** Loads the demo organisation (idempotent: INSERT OR IGNORE with fixed ids). */
/** Loads the demo data; `domain` is the origin the portal is served on (the demo OIDC client's addresses). */
export async function seed(persistTo, pepper, domain = undefined) {
  const esbuild = await import('esbuild')
  const outDir = path.join(root, '.wrangler', 'tmp')
  mkdirSync(outDir, { recursive: true })
  const bundle = path.join(outDir, 'demo-data.mjs')
  await esbuild.build({
    entryPoints: [path.join(root, 'scripts', 'demo-data.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: bundle,
    logLevel: 'silent',
  })
  const { demoSeedSql, DEMO_ACCOUNTS } = await import(`${pathToFileURL(bundle).href}?t=${Date.now()}`)
  // Beside the database it loads: two databases seeded for two origins do not share one file.
  mkdirSync(persistTo, { recursive: true })
  const sqlFile = path.join(persistTo, 'demo-seed.sql')
  writeFileSync(sqlFile, (await demoSeedSql(pepper, domain)) + ACCESS_AS_TOLD_SQL)
  run(bin('wrangler'), ['d1', 'execute', 'DB', '--local', '--persist-to', persistTo, '--file', sqlFile])
  return DEMO_ACCOUNTS
}

/** Starts `wrangler dev` on the built Worker; resolves once the health endpoint answers. */
export async function serve({ port, host = '127.0.0.1', persistTo, stdio = 'inherit', vars = {}, args: extra = [] }) {
  const args = [
    'dev',
    '--ip',
    host,
    '--port',
    String(port),
    '--persist-to',
    persistTo,
    '--show-interactive-dev-session=false',
  ]
  for (const [key, value] of Object.entries(vars)) args.push('--var', `${key}:${value}`)
  args.push(...extra)
  // The Worker as it is deployed: wrangler dev would otherwise bundle React and the other libraries in
  // their development builds (NODE_ENV=development), several times slower to render.
  const env = { ...quietEnv, NODE_ENV: 'production' }
  const child = spawn(bin('wrangler'), args, { cwd: root, env, stdio: ['ignore', stdio, stdio] })
  return healthy(child, host, port, 'wrangler dev')
}

/** Where `bundleWorker` writes the Worker as it is deployed, and `serveBundle` reads it. */
export const BUNDLE_DIR = path.join(root, '.wrangler', 'bundle')

/** Bundles the built Worker as wrangler deploys it (`deploy --dry-run`: production builds of the libraries). */
export function bundleWorker() {
  rmSync(BUNDLE_DIR, { recursive: true, force: true })
  mkdirSync(BUNDLE_DIR, { recursive: true })
  const bundled = spawnSync(bin('wrangler'), ['deploy', '--dry-run', '--outdir', BUNDLE_DIR], {
    cwd: root,
    env: { ...quietEnv, NODE_ENV: 'production' },
    encoding: 'utf8',
  })
  if (bundled.status !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${bundled.stdout}${bundled.stderr}`)
}

/**
 * Serves the bundle of `bundleWorker`, run by Miniflare alone, without `wrangler dev`'s proxy
 * (scripts/serve-bundle.mjs says why the browser tests use it); resolves once it is healthy.
 */
export async function serveBundle({
  port,
  host = '127.0.0.1',
  persistTo,
  stdio = 'inherit',
  vars = {},
  cronPort = /** @type {number | undefined} */ (undefined),
}) {
  const child = spawn(process.execPath, [path.join(root, 'scripts', 'serve-bundle.mjs')], {
    cwd: root,
    env: { ...quietEnv, SERVE_BUNDLE: JSON.stringify({ host, port, persistTo, vars, cronPort }) },
    stdio: ['ignore', stdio, stdio],
  })
  return healthy(child, host, port, 'the bundled Worker')
}

/** Waits (60 s at most) for the health endpoint of the server `child` starts. */
async function healthy(child, host, port, name) {
  const url = `http://${host === '127.0.0.1' ? 'localhost' : host}:${port}`
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`)
    try {
      const response = await fetch(`http://${host}:${port}/portail-backend/rest/public/health`)
      if (response.ok) return { child, url }
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  child.kill()
  throw new Error(`${name} did not become healthy within 60 s`)
}

/** Where `npm run seed:large` keeps the large organisation's local D1 (`npm run bench -- --large` reads it). */
export const LARGE_PERSIST_DIR = path.join(root, '.wrangler', 'large')
