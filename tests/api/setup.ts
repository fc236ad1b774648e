import { applyD1Migrations, env } from 'cloudflare:test'

// The files of a worker share its modules and its D1 (vitest `isolate: false`, vitest.api.config.ts): each file starts
// from an empty database, migrated. Triggers and views go first, then the tables, the latest created first (they name
// the earlier ones), with the foreign keys checked only at the end of the batch.
const { results } = await env.DB.prepare(
  "SELECT type, name FROM sqlite_master WHERE type IN ('trigger', 'view', 'table') AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' ORDER BY CASE type WHEN 'trigger' THEN 0 WHEN 'view' THEN 1 ELSE 2 END, rowid DESC",
).all<{ type: string; name: string }>()
if (results.length > 0) {
  await env.DB.batch([
    env.DB.prepare('PRAGMA defer_foreign_keys = on'),
    ...results.map(({ type, name }) => env.DB.prepare(`DROP ${type.toUpperCase()} IF EXISTS "${name}"`)),
  ])
}
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS)
