// The pure part of `npm run admin:bootstrap` (scripts/admin-bootstrap.mjs): argument checks and the SQL
// it runs, kept apart so that tests/unit and tests/api can check them without wrangler.
import { createHash, randomBytes } from 'node:crypto'
import { z } from 'zod'

/** How long the set-password link works. */
export const LINK_TTL_HOURS = 24
/** How long the administrator's post on the root lasts. */
export const POST_YEARS = 10
/** The organisation's calendar, as worker-api/contract/dates.ts counts "today". */
const TIME_ZONE = 'Europe/Paris'

export const DEFAULTS = { nom: 'Administrateur', prenom: 'Portail', structure: 'Groupe' }
const ROOT_TYPE = 'Racine'
const ROOT_FONCTION = 'Administrateur'

export const USAGE = `Creates the first administrator of the portal and prints a single-use set-password link.

Usage: npm run admin:bootstrap -- --mail <address> --domain <origin> [options]

  --mail <address>     the administrator's mail, also their login (required, at most 50 characters)
  --domain <origin>    the site the account is bound to and the link opens on, e.g.
                       https://portail.example.org (required)
  --remote             write to the remote (production) D1 instead of the local one
  --persist-to <dir>   local D1 directory (default .wrangler/state, the one \`npm start\` uses)
  --nom <nom>          last name (default ${DEFAULTS.nom})
  --prenom <prénom>    first name (default ${DEFAULTS.prenom})
  --structure <nom>    name of the root structure, when it does not exist yet (default ${DEFAULTS.structure})
  -h, --help           this help

Refuses (exit 1) when an administrator already exists or the mail is taken; exit 2 on bad arguments.`

/**
 * @typedef {object} BootstrapOptions
 * @property {string} mail
 * @property {string} domain the origin, normalised (`https://host[:port]`, no trailing slash)
 * @property {boolean} remote
 * @property {string | null} persistTo
 * @property {string} nom
 * @property {string} prenom
 * @property {string | null} structure the root's name if it must be created; null for the default
 */

/** @typedef {{ help: true } | { options: BootstrapOptions } | { errors: string[] }} ParsedArgs */

const VALUED = ['mail', 'domain', 'persist-to', 'nom', 'prenom', 'structure']
const FLAGS = ['remote', 'help']

/**
 * A mail address as the API accepts it (mailSchema in worker-api/contract/organisation/user.ts): trimmed, at most
 * 50 characters, zod's address pattern. Returns the address or an error message.
 * @param {string} raw
 * @returns {{ value: string } | { error: string }}
 */
export function checkMail(raw) {
  const mail = raw.trim()
  if (mail === '') return { error: '--mail is empty' }
  if (mail.length > 50) return { error: `--mail has ${mail.length} characters; at most 50` }
  if (!z.regexes.email.test(mail)) return { error: `--mail "${mail}" is not a valid mail address` }
  return { value: mail }
}

/**
 * The origin of an http(s) site (`https://portail.example.org`, a port allowed), nothing more: no
 * path, query, fragment or credentials, and a plain host name or address.
 * @param {string} raw
 * @returns {{ value: string } | { error: string }}
 */
export function checkOrigin(raw) {
  const text = raw.trim()
  let url
  try {
    url = new URL(text)
  } catch {
    return { error: `--domain "${text}" is not a URL; give the site's origin, e.g. https://portail.example.org` }
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return { error: `--domain must start with https:// (or http:// for a local run), not ${url.protocol}//` }
  if (url.username || url.password) return { error: '--domain must not hold a user name or password' }
  if (url.pathname !== '/' || url.search || url.hash || /[?#]/.test(text))
    return { error: `--domain must be an origin only (scheme, host and port), e.g. ${url.origin}` }
  if (!/^(?:[a-z0-9-]+\.)*[a-z0-9-]+$|^\[[0-9a-f:.]+\]$/.test(url.hostname))
    return { error: `--domain has an unexpected host name "${url.hostname}"` }
  if (url.origin.length > 200) return { error: '--domain is longer than 200 characters' }
  return { value: url.origin }
}

/**
 * A name as the API accepts it (nameSchema, structureNomSchema): trimmed, 3 to 50 characters, and no
 * control characters (they have no business in a name, and none can reach the SQL).
 * @param {string} option
 * @param {string} raw
 * @returns {{ value: string } | { error: string }}
 */
export function checkName(option, raw) {
  const value = raw.trim()
  if (value.length < 3 || value.length > 50)
    return { error: `--${option} must have 3 to 50 characters (it has ${value.length})` }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting them is the point
  if (/[\u0000-\u001f\u007f]/.test(value)) return { error: `--${option} must not contain control characters` }
  return { value }
}

/**
 * Reads the command line (what follows `npm run admin:bootstrap --`): `--name value` or
 * `--name=value`, every mistake listed at once.
 * @param {readonly string[]} argv
 * @returns {ParsedArgs}
 */
export function parseArgs(argv) {
  /** @type {Record<string, string>} */
  const values = {}
  const flags = new Set()
  const errors = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? ''
    if (arg === '-h' || arg === '--help') return { help: true }
    const match = /^--([a-z-]+)(?:=([\s\S]*))?$/.exec(arg)
    if (!match) {
      errors.push(`unexpected argument "${arg}"`)
      continue
    }
    const [, name = '', inline] = match
    if (FLAGS.includes(name)) {
      if (inline !== undefined) errors.push(`--${name} takes no value`)
      else flags.add(name)
      continue
    }
    if (!VALUED.includes(name)) {
      errors.push(`unknown option --${name}`)
      continue
    }
    let value = inline
    if (value === undefined) {
      const following = argv[i + 1]
      if (following === undefined || following.startsWith('--')) {
        errors.push(`--${name} needs a value`)
        continue
      }
      value = following
      i++
    }
    if (name in values) errors.push(`--${name} is given twice`)
    values[name] = value
  }

  /** @type {(option: string, check: (raw: string) => { value: string } | { error: string }, fallback?: string) => string} */
  const take = (option, check, fallback) => {
    const raw = values[option] ?? fallback
    if (raw === undefined) {
      errors.push(`--${option} is required`)
      return ''
    }
    const result = check(raw)
    if ('error' in result) {
      errors.push(result.error)
      return ''
    }
    return result.value
  }
  const mail = take('mail', checkMail)
  const domain = take('domain', checkOrigin)
  const nom = take('nom', (raw) => checkName('nom', raw), DEFAULTS.nom)
  const prenom = take('prenom', (raw) => checkName('prenom', raw), DEFAULTS.prenom)
  const structure = values.structure === undefined ? null : take('structure', (raw) => checkName('structure', raw))
  const remote = flags.has('remote')
  const persistTo = values['persist-to'] ?? null
  if (remote && persistTo !== null) errors.push('--persist-to is for the local D1; it cannot go with --remote')
  if (persistTo === '') errors.push('--persist-to is empty')

  if (errors.length > 0) return { errors }
  return { options: { mail, domain, remote, persistTo, nom, prenom, structure } }
}

/**
 * A SQL string literal: the value between single quotes, each quote doubled. SQLite needs nothing
 * else escaped inside a literal (no backslash escapes).
 * @param {string} value
 */
export function sqlString(value) {
  return `'${value.replaceAll("'", "''")}'`
}

/**
 * The set-password token: 32 random bytes, base64url; the database keeps only its SHA-256 in hex,
 * as worker-api/lib/crypto.ts `sha256Hex` computes it.
 */
export function newToken() {
  const token = randomBytes(32).toString('base64url')
  return { token, tokenHash: tokenHashOf(token) }
}

/** @param {string} token */
export function tokenHashOf(token) {
  return createHash('sha256').update(token, 'utf8').digest('hex')
}

/** @param {string} domain @param {string} token */
export function setPasswordLink(domain, token) {
  return `${domain.replace(/\/+$/, '')}/renewPassword/${token}`
}

const calendarDate = new Intl.DateTimeFormat('en-CA', {
  timeZone: TIME_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
})

/**
 * 'YYYY-MM-DD' plus whole years; 29 February becomes 28 February in a common year.
 * @param {string} date
 * @param {number} years
 */
export function addYears(date, years) {
  const [y = 0, m = 1, d = 1] = date.split('-').map(Number)
  const target = new Date(Date.UTC(y + years, m - 1, d))
  if (target.getUTCMonth() !== m - 1) target.setUTCDate(0)
  return target.toISOString().slice(0, 10)
}

/**
 * The instants and dates one run writes: now, the link's expiry, and the post from today (the
 * organisation's calendar) to the same day ten years on.
 * @param {Date} now
 */
export function bootstrapDates(now) {
  const today = calendarDate.format(now)
  return {
    at: now.toISOString(),
    expiresAt: new Date(now.getTime() + LINK_TTL_HOURS * 3_600_000).toISOString(),
    today,
    until: addYears(today, POST_YEARS),
  }
}

/** No administrator yet (a deleted one does not count): the condition of every write of a run. */
export const NO_ADMIN = 'NOT EXISTS (SELECT 1 FROM utilisateur WHERE admin = 1 AND supprime = 0)'

/**
 * What the run checks first, to refuse with a clear reason: administrators, accounts holding the
 * mail (as login or address, whatever the case), the root structure and its first function.
 * @param {string} mail
 */
export function preflightSql(mail) {
  const m = sqlString(mail)
  return [
    'SELECT',
    '  (SELECT count(*) FROM utilisateur WHERE admin = 1 AND supprime = 0) AS admins,',
    `  (SELECT count(*) FROM utilisateur WHERE mail = ${m} COLLATE NOCASE OR login = ${m} COLLATE NOCASE) AS taken,`,
    '  (SELECT nom FROM structure WHERE id = 1) AS root,',
    '  (SELECT libelle FROM fonction WHERE structure_id = 1 ORDER BY id LIMIT 1) AS fonction',
  ].join('\n')
}

/**
 * @typedef {object} BootstrapInput
 * @property {string} mail
 * @property {string} domain
 * @property {string} nom
 * @property {string} prenom
 * @property {string | null} structure the root's name, if it must be created (null: the default)
 * @property {string} tokenHash
 * @property {{ at: string, expiresAt: string, today: string, until: string }} dates
 */

/**
 * The statements of one run, executed together (one `wrangler d1 execute --file`: one batch, all or
 * nothing). Each write is conditional, so that a run that finds an administrator already there —
 * another run got in first — writes nothing: the root and its function and the user only while
 * there is no administrator; the link only for the user this very batch inserted (created at this
 * run's instant, no link yet); the post and the audit entry only with this run's link. Whether the
 * link exists afterwards (`resultSql`) tells whether the run succeeded.
 * @param {BootstrapInput} input
 * @returns {string[]}
 */
export function bootstrapStatements(input) {
  const m = sqlString(input.mail)
  const hash = sqlString(input.tokenHash)
  const at = sqlString(input.dates.at)
  const expires = sqlString(input.dates.expiresAt)
  const noRoot = 'NOT EXISTS (SELECT 1 FROM structure WHERE id = 1)'
  const thisLink = `FROM mail_token t WHERE t.token_hash = ${hash}`
  return [
    `INSERT INTO type_structure (libelle, parent_type_id)
  SELECT ${sqlString(ROOT_TYPE)}, NULL
  WHERE ${NO_ADMIN} AND ${noRoot} AND NOT EXISTS (SELECT 1 FROM type_structure WHERE libelle = ${sqlString(ROOT_TYPE)})`,
    `INSERT INTO structure (id, nom, type_id, parent_id, path, created_at)
  SELECT 1, ${sqlString(input.structure ?? DEFAULTS.structure)}, (SELECT id FROM type_structure WHERE libelle = ${sqlString(ROOT_TYPE)}), NULL, '/1/', ${at}
  WHERE ${NO_ADMIN} AND ${noRoot}`,
    `INSERT INTO fonction (libelle, structure_id)
  SELECT ${sqlString(ROOT_FONCTION)}, 1
  WHERE ${NO_ADMIN} AND EXISTS (SELECT 1 FROM structure WHERE id = 1)
    AND NOT EXISTS (SELECT 1 FROM fonction WHERE structure_id = 1)`,
    `INSERT INTO utilisateur (login, nom, prenom, mail, password_hash, actif, supprime, admin, domain,
    registration_state, token_register_expires_at, created_at, updated_at)
  SELECT ${m}, ${sqlString(input.nom)}, ${sqlString(input.prenom)}, ${m}, NULL, 1, 0, 1, ${sqlString(input.domain)},
    'INVITED', ${expires}, ${at}, ${at}
  WHERE ${NO_ADMIN}
    AND NOT EXISTS (SELECT 1 FROM utilisateur WHERE mail = ${m} COLLATE NOCASE OR login = ${m} COLLATE NOCASE)
    AND EXISTS (SELECT 1 FROM fonction WHERE structure_id = 1)`,
    `INSERT INTO mail_token (token_hash, utilisateur_id, purpose, expires_at, created_at)
  SELECT ${hash}, u.id, 'INVITATION', ${expires}, ${at}
  FROM utilisateur u
  WHERE u.mail = ${m} AND u.admin = 1 AND u.supprime = 0 AND u.registration_state = 'INVITED' AND u.created_at = ${at}
    AND NOT EXISTS (SELECT 1 FROM mail_token o WHERE o.utilisateur_id = u.id)`,
    `INSERT INTO poste (utilisateur_id, structure_id, fonction_id, date_debut, date_fin)
  SELECT t.utilisateur_id, 1, (SELECT min(id) FROM fonction WHERE structure_id = 1),
    ${sqlString(input.dates.today)}, ${sqlString(input.dates.until)}
  ${thisLink}`,
    `INSERT INTO log (date, utilisateur_id, type_log, nom_log, commentaire)
  SELECT ${at}, t.utilisateur_id, 'ADMINISTRATION', 'ADMIN_BOOTSTRAP', ${m}
  ${thisLink}`,
    // A new organisation starts with a second factor required of its administrators (README).
    `UPDATE parametre_securite SET mfa_requis_administrateurs = 1
  WHERE id = 1 AND EXISTS (SELECT 1 ${thisLink})`,
  ]
}

/** The statements as the content of a .sql file. @param {readonly string[]} statements */
export function sqlFile(statements) {
  return `${statements.join(';\n\n')};\n`
}

/**
 * What the run wrote, found by its link: the user and their post; no row when nothing was written.
 * @param {string} tokenHash
 */
export function resultSql(tokenHash) {
  return `SELECT u.id, u.mail, u.domain, s.nom AS structure, f.libelle AS fonction, p.date_debut, p.date_fin
FROM mail_token t
JOIN utilisateur u ON u.id = t.utilisateur_id
LEFT JOIN poste p ON p.utilisateur_id = u.id
LEFT JOIN structure s ON s.id = p.structure_id
LEFT JOIN fonction f ON f.id = p.fonction_id
WHERE t.token_hash = ${sqlString(tokenHash)}`
}
