// `npm run admin:bootstrap -- --mail <address> --domain <origin> [--remote]`: the first administrator of
// a fresh database — on the root structure, created if missing — and a single-use link to choose their
// password. Refuses once any administrator exists: from then on, accounts are made in the portal.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import {
  bootstrapDates,
  bootstrapStatements,
  LINK_TTL_HOURS,
  newToken,
  parseArgs,
  preflightSql,
  resultSql,
  setPasswordLink,
  sqlFile,
  USAGE,
} from './admin-bootstrap-lib.mjs'
import { quietEnv, root } from './local.mjs'

const wrangler = path.join(root, 'node_modules', '.bin', 'wrangler')

/** @param {string} message @returns {never} */
function fail(message, code = 1) {
  console.error(`admin:bootstrap: ${message}`)
  process.exit(code)
}

/** The JSON wrangler printed, even behind a stray line. */
function parseJson(text) {
  const start = text.search(/[[{]/)
  if (start < 0) return null
  try {
    return JSON.parse(text.slice(start))
  } catch {
    return null
  }
}

/**
 * Runs `wrangler d1 execute DB` (`--command` or `--file`) on the chosen D1; returns the rows of each
 * statement, or stops with wrangler's own error.
 * @param {import('./admin-bootstrap-lib.mjs').BootstrapOptions} options
 * @param {string[]} input
 * @returns {Record<string, unknown>[][]}
 */
function d1(options, input) {
  const target = options.remote
    ? ['--remote']
    : ['--local', ...(options.persistTo ? ['--persist-to', path.resolve(options.persistTo)] : [])]
  const result = spawnSync(wrangler, ['d1', 'execute', 'DB', ...target, '--json', '--yes', ...input], {
    cwd: root,
    env: quietEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  })
  if (result.error) fail(`could not run wrangler: ${result.error.message}`)
  const output = parseJson(result.stdout)
  if (result.status !== 0 || !Array.isArray(output)) {
    const reason = output?.error?.text ?? `${result.stdout}${result.stderr}`.trim()
    const hint = /no such table/.test(reason)
      ? `\nApply the migrations first: npx wrangler d1 migrations apply DB ${target.join(' ')}`
      : /UNIQUE constraint failed: structure\.nom/.test(reason)
        ? "\nAnother structure has that name: choose the root's with --structure. Nothing was written."
        : ''
    fail(`wrangler d1 execute failed (exit ${result.status}): ${reason}${hint}`)
  }
  return output.map((statement) => statement.results ?? [])
}

/** The one row of a single SELECT. @param {Record<string, unknown>[][]} results */
const onlyRow = (results) => results[0]?.[0]

const parsed = parseArgs(process.argv.slice(2))
if ('help' in parsed) {
  console.log(USAGE)
  process.exit(0)
}
if ('errors' in parsed) {
  fail(`${parsed.errors.join('\n  ')}\nRun \`npm run admin:bootstrap -- --help\` for the options.`, 2)
}
const { options } = parsed
const { hostname } = new URL(options.domain)
const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(hostname)
if (options.domain.startsWith('http:') && !loopback) {
  console.warn(`Warning: ${options.domain} is plain http: the link and every sign-in would travel unencrypted.`)
}
if (options.remote && loopback) {
  console.warn(`Warning: the production account would be bound to ${options.domain}; sign-in works on that host only.`)
}
const where = options.remote
  ? 'the remote D1 (binding DB of wrangler.toml)'
  : `the local D1 in ${path.resolve(options.persistTo ?? path.join(root, '.wrangler', 'state'))}`
console.log(`Checking ${where}…`)

const before = onlyRow(d1(options, ['--command', preflightSql(options.mail)]))
if (!before) fail('the database answered nothing')
if (Number(before.admins) > 0) {
  fail(
    `refused: the database already has ${before.admins} administrator(s). This script only sets up an empty ` +
      'database; an administrator creates the other accounts in the portal (or resets a lost password with ' +
      '"Mot de passe oublié ?").',
  )
}
if (Number(before.taken) > 0) fail(`refused: the mail ${options.mail} is already used by an account.`)
if (before.root !== null && options.structure !== null && options.structure !== before.root) {
  console.warn(`The root structure exists already ("${before.root}"): --structure is ignored.`)
}

const { token, tokenHash } = newToken()
const statements = bootstrapStatements({ ...options, tokenHash, dates: bootstrapDates(new Date()) })
const dir = mkdtempSync(path.join(tmpdir(), 'admin-bootstrap-'))
// On every way out, `fail`'s process.exit included (it skips finally blocks).
process.on('exit', () => rmSync(dir, { recursive: true, force: true }))
const file = path.join(dir, 'bootstrap.sql')
writeFileSync(file, sqlFile(statements), { mode: 0o600 })
d1(options, ['--file', file])

const created = onlyRow(d1(options, ['--command', resultSql(tokenHash)]))
if (!created) {
  const after = onlyRow(d1(options, ['--command', preflightSql(options.mail)]))
  const why =
    Number(after?.admins) > 0
      ? 'an administrator was created meanwhile (another run?)'
      : Number(after?.taken) > 0
        ? `the mail ${options.mail} was taken meanwhile`
        : 'the root structure or its function is missing'
  fail(`nothing was written: ${why}.`)
}

console.log(`
Administrator created: ${created.mail} (user #${created.id}), bound to ${created.domain}
Post: ${created.fonction}, ${created.structure}, ${created.date_debut} → ${created.date_fin}

Set-password link — valid ${LINK_TTL_HOURS} h, single use:

  ${setPasswordLink(options.domain, token)}

Open it (or hand it to the administrator over a safe channel) to choose a password, then sign in on
${options.domain} with ${options.mail} as the login. Anyone holding the link can take the account until
it is used or expires. Once expired, "Mot de passe oublié ?" on the sign-in page mails a new link.`)
