// The local D1 the portal serves during the run: the demo organisation made afresh, or the large one.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { LARGE_PERSIST_DIR, migrate, quietEnv, root, seed } from '../local.mjs'
import { bin } from './context.mjs'

/** The demo's accounts the scenarios sign in as. */
export const agent = { login: 'agent', password: 'Agent1234' }
export const admin = { login: 'admin', password: 'Admin1234' }

/** Where the run's D1 lives, migrated and seeded: the large organisation's, else a new one in `scratch`. */
export async function prepareDatabase(options, scratch, vars) {
  if (options.large) {
    if (!existsSync(LARGE_PERSIST_DIR)) throw new Error('No large organisation yet: run `npm run seed:large` first.')
    // The large organisation was made by an earlier version: the migrations since come first.
    migrate(LARGE_PERSIST_DIR)
    // The sessions an earlier run opened (its sign-ins, the refresh scenario's thousands of rotations)
    // would still be there for a day: the caller's check, the profile and the session list would be
    // measured on more of them each run. Every run starts with none, as a new organisation.
    d1Execute(LARGE_PERSIST_DIR, 'DELETE FROM refresh_token')
    // So is the history they wrote (thousands of sign-ins, launches and refreshes each): the history's
    // scenarios would read more of it each run. Every run reads the history as seeded.
    const seeded = existsSync(SEEDED_HISTORY)
      ? Number(JSON.parse(readFileSync(SEEDED_HISTORY, 'utf8')).lastLogId)
      : markSeededHistory()
    d1Execute(LARGE_PERSIST_DIR, `DELETE FROM log WHERE id > ${seeded}`)
    d1Execute(LARGE_PERSIST_DIR, accessRequestsSql(BENCH_REQUESTS))
    // And the campaigns: each run opens its own over the whole organisation.
    d1Execute(LARGE_PERSIST_DIR, 'DELETE FROM revue_progression; DELETE FROM revue_element; DELETE FROM revue;')
    return LARGE_PERSIST_DIR
  }
  const persistTo = path.join(scratch, 'portail')
  migrate(persistTo)
  await seed(persistTo, vars.PASSWORD_PEPPER)
  d1Execute(persistTo, accessRequestsSql(BENCH_REQUESTS))
  return persistTo
}

/** The access requests waiting in every run, whatever the earlier ones left. */
const BENCH_REQUESTS = 300

/**
 * Every application demandable, and `count` requests waiting (users with a current post, each asking for the first
 * application they cannot launch), made afresh: the launcher's "Autres applications" and the administrators' list of
 * requests are measured with something in them.
 */
function accessRequestsSql(count) {
  return `
    UPDATE application SET demandable = 1;
    DELETE FROM demande_acces;
    INSERT INTO demande_acces (utilisateur_id, application_id, motif, date_debut, date_fin, created_at)
      SELECT id, application_id, 'Mesure', date('now'), date('now', '+29 days'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
      FROM (
        SELECT u.id, (SELECT a.id FROM application a WHERE a.demandable = 1 AND a.actif = 1 AND a.id NOT IN (
            SELECT fa.application_id FROM poste p JOIN fonction_application fa ON fa.fonction_id = p.fonction_id
            WHERE p.utilisateur_id = u.id AND p.date_debut <= date('now') AND p.date_fin >= date('now'))
          ORDER BY a.id LIMIT 1) AS application_id
        FROM utilisateur u
        WHERE u.admin = 0 AND u.actif = 1 AND u.supprime = 0 AND u.login NOT LIKE 'bench%'
          AND EXISTS (SELECT 1 FROM poste p WHERE p.utilisateur_id = u.id AND p.date_fin >= date('now'))
        ORDER BY u.id DESC LIMIT ${count * 4})
      WHERE application_id IS NOT NULL
      LIMIT ${count};`
}

/** Where the large organisation notes the last entry of its history as seeded (`markSeededHistory`). */
const SEEDED_HISTORY = path.join(LARGE_PERSIST_DIR, 'seeded-history.json')

/**
 * Notes the large organisation's last history entry as the seeded one: a run deletes any entry past it. Called by
 * `npm run seed:large`; on an organisation seeded before, the first run notes the history as it finds it.
 */
export function markSeededHistory() {
  const output = execFileSync(
    bin('wrangler'),
    [
      'd1',
      'execute',
      'DB',
      '--local',
      '--persist-to',
      LARGE_PERSIST_DIR,
      '--json',
      '--command',
      'SELECT coalesce(max(id), 0) AS last FROM log',
    ],
    { cwd: root, env: quietEnv, encoding: 'utf8' },
  )
  const lastLogId = Number(JSON.parse(output)[0].results[0].last)
  writeFileSync(SEEDED_HISTORY, `${JSON.stringify({ lastLogId })}\n`)
  return lastLogId
}

/** Runs `sql` on the local D1 at `persistTo`; only while no portal runs on it. */
export function d1Execute(persistTo, sql) {
  execFileSync(bin('wrangler'), ['d1', 'execute', 'DB', '--local', '--persist-to', persistTo, '--command', sql], {
    cwd: root,
    env: quietEnv,
    stdio: 'ignore',
  })
}

/**
 * Sign-in attempts of one account count against it while they run (DESIGN §3), so 50 concurrent
 * sign-ins need 50 accounts: copies of the demo agent (same password hash, same posts).
 */
export function benchAccounts(persistTo, count) {
  const sql = `
    INSERT INTO utilisateur (login, nom, prenom, mail, password_hash, domain, langue)
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})
      SELECT 'bench' || i, nom, prenom, 'bench' || i || '@bench.example', password_hash, domain, langue
      FROM n, utilisateur WHERE login = 'agent'
        AND NOT EXISTS (SELECT 1 FROM utilisateur b WHERE b.login = 'bench' || i);
    INSERT INTO poste (utilisateur_id, structure_id, fonction_id, date_debut, date_fin)
      SELECT b.id, p.structure_id, p.fonction_id, p.date_debut, p.date_fin
      FROM utilisateur b, utilisateur a JOIN poste p ON p.utilisateur_id = a.id
      WHERE a.login = 'agent' AND b.login LIKE 'bench%'
        AND NOT EXISTS (SELECT 1 FROM poste q WHERE q.utilisateur_id = b.id);`
  d1Execute(persistTo, sql)
  return Array.from({ length: count }, (_, i) => `bench${i + 1}`)
}

/** `SELECT`s on the local D1 at `persistTo` (no portal running), as rows. */
export function d1Query(persistTo, sql) {
  const output = execFileSync(
    bin('wrangler'),
    ['d1', 'execute', 'DB', '--local', '--persist-to', persistTo, '--json', '--command', sql],
    { cwd: root, env: quietEnv, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  )
  return JSON.parse(output)[0].results
}
