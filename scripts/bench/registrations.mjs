// The registrations the authorisation scenario works through, one for each authorisation it makes.
import { d1Execute } from './database.mjs'

/**
 * Registrations waiting in the demo's Transports Martin, one for each authorisation the benchmark
 * makes; written between two scenarios (no portal running), after the reads of the queue.
 */
export const BENCH_REGISTRATIONS = 5_000
export function benchRegistrations(persistTo, port) {
  const sql = `
    INSERT INTO utilisateur (login, nom, prenom, mail, actif, domain, registration_state, registration_structure_id)
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${BENCH_REGISTRATIONS})
      SELECT 'inscrit' || i || '@bench.example', 'Inscrit', 'Banc', 'inscrit' || i || '@bench.example', 0,
        'http://127.0.0.1:${port}', 'PENDING', 7
      FROM n;`
  d1Execute(persistTo, sql)
}
