// The limits `npm run bench` measures the portal against, served by the same `wrangler dev`:
// /json is the bare runtime (a small JSON, nothing else), /d1 the floor of any request that must read
// the database once (one `SELECT 1`), /d1-form that floor for a POST whose form is read (a token request),
// /d1-rows the floor of a page of 100 users (one statement, ~78 KB answered), /d1-write the floor of any request that must write it once (a
// counter's upsert, as a rate limit counts a call), /pbkdf2 the raw password hash the sign-in is bound by
// (PBKDF2-HMAC-SHA-512, 100 000 iterations, as worker-api/lib/password.ts), /page the floor of a
// server-rendered page on the portal's stack (reference-page.js), /d1-import the floor of moving in (moving.mjs).
import { referencePage } from './reference-page.js'

const salt = new Uint8Array(16)

/**
 * /d1-rows: one statement that reads 100 rows of JSON text (20 attributes, about 780 bytes each) sent as one
 * array, about 78 KB: the weight of a page of 100 SCIM users, moved from D1 to the client and nothing else.
 */
const ROWS = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100)
  SELECT json_object(${Array.from({ length: 20 }, (_, k) => `'attribute${k}', i || '-' || hex(zeroblob(10))`).join(', ')}) AS resource
  FROM n`

/** The counters /d1-write bumps, made once per isolate. */
let counters
const countersReady = (db) => {
  counters ??= db.prepare('CREATE TABLE IF NOT EXISTS compteur (cle TEXT PRIMARY KEY, n INTEGER NOT NULL)').run()
  return counters
}

export default {
  async fetch(request, env) {
    const { pathname } = new URL(request.url)
    if (pathname === '/json') return Response.json({ status: 'ok' })
    if (pathname === '/d1') {
      await env.DB.prepare('SELECT 1').first()
      return Response.json({ status: 'ok' })
    }
    if (pathname === '/d1-write') {
      await countersReady(env.DB)
      // One of 50 keys, as 50 clients each counted under their own.
      const key = `client-${Math.floor(Math.random() * 50)}`
      await env.DB.prepare(
        'INSERT INTO compteur (cle, n) VALUES (?1, 1) ON CONFLICT (cle) DO UPDATE SET n = n + 1 RETURNING n',
      )
        .bind(key)
        .first()
      return Response.json({ status: 'ok' })
    }
    if (pathname === '/d1-form') {
      await request.text()
      await env.DB.prepare('SELECT 1').first()
      return Response.json({ status: 'ok' })
    }
    if (pathname === '/d1-rows') {
      const { results } = await env.DB.prepare(ROWS).all()
      return new Response(`[${results.map((row) => row.resource).join(',')}]`, {
        headers: { 'Content-Type': 'application/json' },
      })
    }
    if (pathname === '/d1-import' && request.method === 'POST') {
      // The floor of moving in (moving.mjs): rows `[mail, nom, prenom, structure, fonction, debut, fin]` inserted as
      // they are, a user and their post each, in one batch (on the portal's own D1: wrangler.floor.toml).
      const rows = await request.json()
      const at = new Date().toISOString()
      await env.DB.batch(
        rows.flatMap(([mail, nom, prenom, structure, fonction, debut, fin]) => [
          env.DB.prepare(
            `INSERT INTO utilisateur (login, nom, prenom, mail, domain, registration_state, created_at, updated_at)
               VALUES (?1, ?2, ?3, ?1, 'http://127.0.0.1', 'INVITED', ?4, ?4)`,
          ).bind(mail, nom, prenom, at),
          env.DB.prepare(
            `INSERT INTO poste (utilisateur_id, structure_id, fonction_id, date_debut, date_fin)
               VALUES ((SELECT id FROM utilisateur WHERE mail = ?1 COLLATE NOCASE), ?2, ?3, ?4, ?5)`,
          ).bind(mail, structure, fonction, debut, fin),
        ]),
      )
      return Response.json({ inserted: rows.length })
    }
    if (pathname === '/page') return referencePage(request, env)
    if (pathname === '/pbkdf2') {
      const key = await crypto.subtle.importKey('raw', new TextEncoder().encode('Agent1234'), 'PBKDF2', false, [
        'deriveBits',
      ])
      await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-512', salt, iterations: 100_000 }, key, 512)
      return Response.json({ status: 'ok' })
    }
    return new Response('Not found', { status: 404 })
  },
}
