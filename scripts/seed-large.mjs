// `npm run seed:large`: a fresh local D1 in .wrangler/large holding a large organisation, for
// `npm run bench -- --large`. The demo organisation and its accounts come first (the benchmark signs
// in as `agent` and `admin`), then, generated inside SQLite by a few INSERT … SELECT statements
// (local D1 costs memory per statement, not per row):
//   - 1 976 structures below the demo root, five levels deep (8 directions, 48 regions, 384 sectors,
//     1 536 sites), each with a "Responsable" (all four applications) and an "Agent" (two) function;
//   - 100 000 users (1 in 1 000 an admin of a direction, a few inactive or deleted), 90 % with a current
//     post, 1 in 7 with a future post, 1 in 3 with a past one;
//   - 300 pending carrier registrations, some of them expired;
//   - 1 000 000 log entries spread over the two years before today.
// Deterministic: the same rows every time, dates counted from the day it runs.

import { execFileSync } from 'node:child_process'
import { rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { markSeededHistory } from './bench/database.mjs'
import { ACCESS_AS_TOLD_SQL, ensureDevVars, LARGE_PERSIST_DIR, migrate, quietEnv, root, seed } from './local.mjs'

const USERS = 100_000
const LOGS = 1_000_000
const REGISTRATIONS = 300
const DOMAIN = 'http://localhost:8787'

const NOMS = [
  'Martin',
  'Bernard',
  'Thomas',
  'Petit',
  'Robert',
  'Richard',
  'Durand',
  'Dubois',
  'Moreau',
  'Laurent',
  'Simon',
  'Michel',
  'Lefebvre',
  'Leroy',
  'Roux',
  'David',
  'Bertrand',
  'Morel',
  'Fournier',
  'Girard',
  'Bonnet',
  'Dupont',
  'Lambert',
  'Fontaine',
  'Rousseau',
  'Vincent',
  'Muller',
  'Lefevre',
  'Faure',
  'Andre',
  'Mercier',
  'Blanc',
  'Guerin',
  'Boyer',
  'Garnier',
  'Chevalier',
  'Francois',
  'Legrand',
  'Gauthier',
  'Garcia',
]
const PRENOMS = [
  'Camille',
  'Louis',
  'Léa',
  'Gabriel',
  'Manon',
  'Jules',
  'Chloé',
  'Lucas',
  'Inès',
  'Hugo',
  'Sarah',
  'Arthur',
  'Jade',
  'Nathan',
  'Louise',
  'Paul',
  'Emma',
  'Raphaël',
  'Alice',
  'Adam',
  'Lina',
  'Tom',
  'Zoé',
  'Théo',
  'Anna',
  'Noah',
  'Rose',
  'Maël',
  'Julia',
  'Sacha',
]
const json = (values) => `'${JSON.stringify(values).replace(/'/g, "''")}'`
/** Rows 0 … count − 1. */
const numbers = (count) => `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${count - 1})`
const NOW = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now'"

/** [what, SQL] in the order they run. */
const STEPS = [
  [
    'structure types',
    `INSERT INTO type_structure (id, libelle, parent_type_id) VALUES (5, 'Région', 2), (6, 'Secteur', 5), (7, 'Site', 6);`,
  ],
  [
    '1 976 structures, five levels deep',
    `INSERT INTO structure (id, nom, type_id, parent_id, path)
       ${numbers(8)} SELECT 1000 + i, printf('Direction %02d', i + 1), 2, 1, '/1/' || (1000 + i) || '/' FROM n;
     INSERT INTO structure (id, nom, type_id, parent_id, path)
       ${numbers(48)} SELECT 1100 + i, printf('Région %02d-%d', i / 6 + 1, i % 6 + 1), 5, p.id, p.path || (1100 + i) || '/'
       FROM n JOIN structure p ON p.id = 1000 + i / 6;
     INSERT INTO structure (id, nom, type_id, parent_id, path)
       ${numbers(384)} SELECT 1200 + i, printf('Secteur %02d-%d-%d', i / 48 + 1, i / 8 % 6 + 1, i % 8 + 1), 6, p.id,
         p.path || (1200 + i) || '/'
       FROM n JOIN structure p ON p.id = 1100 + i / 8;
     INSERT INTO structure (id, nom, type_id, parent_id, path)
       ${numbers(1536)} SELECT 2000 + i, printf('Site %02d-%d-%d-%d', i / 192 + 1, i / 32 % 6 + 1, i / 4 % 8 + 1, i % 4 + 1),
         7, p.id, p.path || (2000 + i) || '/'
       FROM n JOIN structure p ON p.id = 1200 + i / 4;`,
  ],
  [
    'functions and their applications',
    `INSERT INTO fonction (id, libelle, structure_id)
       SELECT 10000 + 2 * id, 'Responsable', id FROM structure WHERE id >= 1000
       UNION ALL SELECT 10001 + 2 * id, 'Agent', id FROM structure WHERE id >= 1000;
     INSERT INTO fonction_application (fonction_id, application_id)
       SELECT f.id, a.id FROM fonction f, application a
       WHERE f.id >= 10000 AND (f.libelle = 'Responsable' OR a.id IN (1, 3));`,
  ],
  [
    `${USERS.toLocaleString('en')} users`,
    `INSERT INTO utilisateur (id, login, nom, prenom, mail, password_hash, actif, supprime, admin, domain, langue)
       ${numbers(USERS)}
       SELECT 100001 + i, printf('u%06d', i + 1),
         json_extract(${json(NOMS)}, '$[' || (i % ${NOMS.length}) || ']'),
         json_extract(${json(PRENOMS)}, '$[' || (i / ${NOMS.length} % ${PRENOMS.length}) || ']'),
         printf('u%06d@grande.example', i + 1),
         (SELECT password_hash FROM utilisateur WHERE login = 'agent'),
         i % 97 <> 96, i % 211 = 210, i % 1000 = 0, '${DOMAIN}', CASE WHEN i % 5 = 0 THEN 'en' ELSE 'fr' END
       FROM n;`,
  ],
  [
    'current, future and past posts',
    // Admins hold the "Responsable" post of a direction; the others an "Agent" post on a site.
    `INSERT INTO poste (utilisateur_id, structure_id, fonction_id, date_debut, date_fin)
       SELECT id, s, 10001 + 2 * s - (admin * 1), date('now', '-' || (30 + i % 1500) || ' days'),
         date('now', '+' || (365 + i % 1500) || ' days')
       FROM (SELECT id, admin, id - 100001 AS i,
               CASE WHEN admin THEN 1000 + (id - 100001) / 1000 % 8 ELSE 2000 + (id - 100001) * 7 % 1536 END AS s
             FROM utilisateur WHERE id > 100000 AND id <= ${100000 + USERS})
       WHERE i % 10 <> 9;
     INSERT INTO poste (utilisateur_id, structure_id, fonction_id, date_debut, date_fin)
       SELECT id, 2000 + i * 13 % 1536, 10001 + 2 * (2000 + i * 13 % 1536),
         date('now', '+' || (20 + i % 300) || ' days'), date('now', '+' || (1100 + i % 300) || ' days')
       FROM (SELECT id, id - 100001 AS i FROM utilisateur WHERE id > 100000 AND id <= ${100000 + USERS})
       WHERE i % 7 = 0;
     INSERT INTO poste (utilisateur_id, structure_id, fonction_id, date_debut, date_fin)
       SELECT id, 2000 + i * 17 % 1536, 10001 + 2 * (2000 + i * 17 % 1536),
         date('now', '-' || (1200 + i % 400) || ' days'), date('now', '-' || (400 + i % 300) || ' days')
       FROM (SELECT id, id - 100001 AS i FROM utilisateur WHERE id > 100000 AND id <= ${100000 + USERS})
       WHERE i % 3 = 0;`,
  ],
  [
    `${REGISTRATIONS} pending registrations`,
    `INSERT INTO utilisateur (id, login, nom, prenom, mail, password_hash, domain, registration_state,
         registration_structure_id, registration_structure_nom, token_register_expires_at)
       ${numbers(REGISTRATIONS)}
       SELECT 300001 + i, printf('contact@transporteur-%03d.example', i + 1),
         json_extract(${json(NOMS)}, '$[' || (i * 7 % ${NOMS.length}) || ']'),
         json_extract(${json(PRENOMS)}, '$[' || (i % ${PRENOMS.length}) || ']'),
         printf('contact@transporteur-%03d.example', i + 1), NULL, '${DOMAIN}', 'PENDING',
         CASE WHEN i % 3 = 0 THEN NULL ELSE 2000 + i * 5 % 1536 END,
         CASE WHEN i % 3 = 0 THEN printf('Transporteur %03d', i + 1) END,
         ${NOW}, '+' || (i % 20 - 5) || ' days')
       FROM n;`,
  ],
  [
    `${LOGS.toLocaleString('en')} log entries over two years`,
    // One every 63 s from two years ago; sign-ins, sign-outs, launches and admin changes in turn.
    `INSERT INTO log (date, utilisateur_id, type_log, nom_log, commentaire, nom_navigateur, version_navigateur)
       ${numbers(LOGS)}
       SELECT ${NOW}, '-730 days', '+' || (i * 63) || ' seconds'),
         CASE WHEN i % 10 = 9 THEN 100001 + (i / 10 % ${USERS / 1000}) * 1000 ELSE 100001 + i * 7919 % ${USERS} END,
         CASE i % 10 WHEN 4 THEN 'DECONNEXION' WHEN 5 THEN 'DECONNEXION' WHEN 6 THEN 'APPLI_YARD'
           WHEN 7 THEN 'APPLI_PESAGE' WHEN 8 THEN 'APPLI_MODRDV' WHEN 9 THEN 'ADMINISTRATION' ELSE 'CONNEXION' END,
         CASE i % 10 WHEN 4 THEN 'DECONNEXION' WHEN 5 THEN 'DECONNEXION' WHEN 6 THEN 'Yard dangereux'
           WHEN 7 THEN 'Pesage' WHEN 8 THEN 'Module Rendez vous' WHEN 9 THEN 'UTILISATEUR' ELSE 'CONNEXION' END,
         CASE WHEN i % 10 = 9 THEN '#' || (100001 + i * 31 % ${USERS}) || ' : poste modifié' END,
         CASE i % 3 WHEN 0 THEN 'Chrome' WHEN 1 THEN 'Firefox' ELSE 'Safari' END,
         CASE i % 3 WHEN 0 THEN '14' || (i % 2) || '.0' WHEN 1 THEN '14' || (i % 3) || '.0' ELSE '18.' || (i % 4) END
       FROM n;`,
  ],
  [
    'an administrator of one site (a leaf), for the structure list',
    `INSERT INTO utilisateur (id, login, nom, prenom, mail, password_hash, admin, domain)
       SELECT 99001, 'adminsite', 'Site', 'Sandra', 'adminsite@grande.example', password_hash, 1, '${DOMAIN}'
       FROM utilisateur WHERE login = 'admin';
     INSERT INTO poste (utilisateur_id, structure_id, fonction_id, date_debut, date_fin)
       VALUES (99001, 2000, 14000, date('now', '-30 days'), date('now', '+365 days'));`,
  ],
  ['the access those posts grant, recorded as told', ACCESS_AS_TOLD_SQL],
  ['statistics for the query planner', 'ANALYZE;'],
]

const started = performance.now()
const seconds = (since) => ((performance.now() - since) / 1000).toFixed(1)
const vars = await ensureDevVars()
rmSync(LARGE_PERSIST_DIR, { recursive: true, force: true })
let step = performance.now()
migrate(LARGE_PERSIST_DIR)
await seed(LARGE_PERSIST_DIR, vars.PASSWORD_PEPPER)
console.log(`migrations and the demo organisation: ${seconds(step)} s`)

const sqlFile = path.join(root, '.wrangler', 'tmp', 'large-step.sql')
for (const [what, sql] of STEPS) {
  step = performance.now()
  writeFileSync(sqlFile, `${sql}\n`)
  execFileSync(
    path.join(root, 'node_modules', '.bin', 'wrangler'),
    ['d1', 'execute', 'DB', '--local', '--persist-to', LARGE_PERSIST_DIR, '--file', sqlFile],
    { cwd: root, env: quietEnv, stdio: ['ignore', 'ignore', 'inherit'] },
  )
  console.log(`${what}: ${seconds(step)} s`)
}
markSeededHistory()
console.log(`Large organisation ready in ${seconds(started)} s (${LARGE_PERSIST_DIR}).`)
console.log('Measure it with `npm run bench -- --large` (add `--write` to keep the table in BENCHMARKS.md).')
