// Ten years of history (issue 64), on the large organisation: its months beyond 3 archived to R2 by the hourly cron and
// the jobs queue, then one user's entries searched over every archived month, and a year exported.
import { execFileSync } from 'node:child_process'
import { readdirSync, rmSync } from 'node:fs'
import path from 'node:path'
import { selected } from './context.mjs'
import { admin, d1Query } from './database.mjs'
import { historyQuery } from './history.mjs'
import { connect, liveHeapMiB } from './inspector.mjs'
import { snapshot } from './moving.mjs'
import { memoryMiB, stop } from './servers.mjs'

/** The months the run keeps in D1: the large organisation's two years, less these, are archived. */
const KEPT_MONTHS = 3

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * The archive's figures, or none without `--large` or when `--only` leaves them out. The organisation's D1 is put back
 * as it was afterwards (and the run's R2 files removed): the other scenarios read its history as seeded.
 */
export async function archiveFigures({ options, api, port }, { startPortal }, { login }, { persistTo, scratch }) {
  const name = 'history archive (months beyond 3 archived to R2, one user searched, a year exported)'
  if (!options.large || !selected(options, name)) return null
  const restore = snapshot(persistTo, scratch, 'archive')
  try {
    return await archiveRun({ api, port }, startPortal, login, persistTo)
  } finally {
    restore()
    rmSync(path.join(persistTo, 'v3', 'r2'), { recursive: true, force: true })
  }
}

/**
 * What the history takes in D1, its table and its indexes, per entry: SQLite's `dbstat` on the local database's file
 * (Debian's sqlite3), null without it.
 */
function d1BytesPerEntry(persistTo) {
  const dir = path.join(persistTo, 'v3', 'd1', 'miniflare-D1DatabaseObject')
  const file = readdirSync(dir).find((name) => name.endsWith('.sqlite') && name !== 'metadata.sqlite')
  if (!file) return null
  try {
    const output = execFileSync(
      'sqlite3',
      [
        path.join(dir, file),
        `SELECT (SELECT sum(pgsize) FROM dbstat WHERE name IN (SELECT name FROM sqlite_schema WHERE tbl_name = 'log'))
           * 1.0 / (SELECT count(*) FROM log);`,
      ],
      { encoding: 'utf8' },
    )
    const bytes = Number(output.trim())
    return Number.isFinite(bytes) && bytes > 0 ? bytes : null
  } catch {
    return null
  }
}

async function archiveRun({ api, port }, startPortal, login, persistTo) {
  const figures = {}
  figures.d1RowBytes = d1BytesPerEntry(persistTo)
  // The user with the most entries: their full history is what a request for their data asks.
  const [busiest] = d1Query(
    persistTo,
    'SELECT utilisateur_id AS id, count(*) AS n FROM log WHERE utilisateur_id IS NOT NULL GROUP BY 1 ORDER BY 2 DESC LIMIT 1',
  )
  const inspectorPort = port + 3
  const { child } = await startPortal({ inspectorPort, scheduled: true })
  try {
    const session = await login(admin.login, admin.password)
    const auth = { Authorization: `Bearer ${session.jwt.accessToken}` }
    const json = async (response) => {
      if (!response.ok) throw new Error(`${response.url}: ${response.status} ${await response.text()}`)
      return response.json()
    }
    const storage = async () => (await json(await fetch(`${api}/bd/accueil`, { headers: auth }))).stockage
    const inspector = await connect(inspectorPort)
    const liveHeap = () => liveHeapMiB(inspector)

    const before = await storage()
    figures.before = before
    await json(
      await fetch(`${api}/bd/parametres/securite`, {
        method: 'PUT',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ historiqueMoisEnLigne: KEPT_MONTHS }),
      }),
    )
    // The hourly cron, fired as its schedule would, once a month is done (each run queues the oldest month left).
    const now = new Date()
    const firstKept = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - (KEPT_MONTHS - 1), 1))
      .toISOString()
      .slice(0, 7)
    const heap = []
    // The resident memory of the portal's processes (workerd, D1's pages included), each second: what the heap's
    // reads cannot give when the inspector does not answer.
    const resident = [memoryMiB(child.pid)]
    const started = performance.now()
    let current = before
    for (let month = 0; month < 40 && (current.historique.premierMois ?? firstKept) < firstKept; month++) {
      const oldest = current.historique.premierMois
      const fired = await fetch(`http://127.0.0.1:${port}/__scheduled?cron=17+*+*+*+*`)
      await fired.text()
      for (let tick = 0; tick < 600; tick++) {
        await pause(1000)
        if (tick % 5 === 4) heap.push(await liveHeap())
        resident.push(memoryMiB(child.pid))
        current = await storage()
        if (current.historique.premierMois !== oldest) break
      }
      if (current.historique.premierMois === oldest) throw new Error(`the month ${oldest} was not archived in 10 min`)
      process.stderr.write(`archive: ${oldest} done, ${current.archive.entrees} entries archived\n`)
    }
    figures.seconds = (performance.now() - started) / 1000
    figures.after = current
    figures.rows = current.archive.entrees - before.archive.entrees
    figures.rowsPerSecond = figures.rows / figures.seconds
    const read = heap.filter(Number.isFinite)
    figures.heap = read.length > 0 ? [Math.min(...read), Math.max(...read)] : null
    const measured = resident.filter(Number.isFinite)
    figures.resident = measured.length > 0 ? [measured[0], Math.max(...measured), measured.at(-1)] : null
    process.stderr.write(`archive: ${figures.rows} entries in ${figures.seconds.toFixed(0)} s\n`)

    // One user's full history, every archived month: the search's time from its start to its end.
    const searchStarted = performance.now()
    const search = await json(
      await fetch(`${api}/bd/logs/recherches`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ utilisateur: busiest.id }),
      }),
    )
    let state = search
    while (state.etat === 'EN_COURS') {
      await pause(250)
      state = await json(await fetch(`${api}/bd/logs/recherches/${search.id}`, { headers: auth }))
    }
    if (state.etat !== 'TERMINEE') throw new Error(`the search ended ${state.etat}: ${state.erreur}`)
    figures.search = {
      seconds: (performance.now() - searchStarted) / 1000,
      months: current.archive.mois,
      files: state.fichiersLus,
      entries: state.entrees,
    }
    process.stderr.write(`archive: one user searched in ${figures.search.seconds.toFixed(1)} s\n`)

    // A year's export, its archived months streamed from R2 after D1's.
    const exportStarted = performance.now()
    const response = await fetch(`${api}/bd/logs/export?${historyQuery('dateDebut={today-365}&dateFin={today}')}`, {
      headers: auth,
    })
    if (!response.ok) throw new Error(`export ${response.status}`)
    let bytes = 0
    let lines = 0
    let firstByte = null
    for await (const chunk of response.body) {
      firstByte ??= performance.now() - exportStarted
      bytes += chunk.length
      for (const byte of chunk) if (byte === 0x0a) lines++
    }
    figures.yearExport = {
      seconds: (performance.now() - exportStarted) / 1000,
      firstByteMs: firstByte,
      bytes,
      entries: Math.max(lines - 1, 0),
    }
    process.stderr.write(`archive: a year exported in ${figures.yearExport.seconds.toFixed(1)} s\n`)
    inspector.close()
  } finally {
    await stop(child)
  }
  return figures
}
