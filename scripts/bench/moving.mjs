// Moving an organisation in: the organisation's users (a row per post, 100 000 on the large one) exported, given new
// addresses, previewed and imported on the imports' queue; beside them the floor of that work, the same rows
// inserted into the same D1 (its tables, indexes and triggers) by plain batches of the same size, one after the
// other as the import's lots run. Timed once each, not loaded.
import { cpSync, openSync, rmSync } from 'node:fs'
import path from 'node:path'
import { selected } from './context.mjs'
import { admin, d1Query } from './database.mjs'
import { connect, liveHeapMiB } from './inspector.mjs'
import { memoryMiB, startReferenceWorker, stop } from './servers.mjs'

/** The rows a lot of the import holds (services/bulk/upload.ts IMPORT_LOT_ROWS), and so a floor's batch. */
const LOT_ROWS = 100
/** The rows moved in: the large organisation's users with posts. */
const MOVED_ROWS = 100_000
const MOVED_DOMAIN = 'moving.bench.example'
const FLOOR_DOMAIN = 'floor.bench.example'

/**
 * The organisation's D1 as it was before moving in, put back after (the next run starts from the same organisation):
 * a copy of its files, seconds where deleting 200 000 users with their triggers takes minutes.
 */
export function snapshot(persistTo, scratch, what = 'moving') {
  const files = path.join(persistTo, 'v3', 'd1')
  const kept = path.join(scratch, `d1-before-${what}`)
  cpSync(files, kept, { recursive: true })
  return () => {
    rmSync(files, { recursive: true, force: true })
    cpSync(kept, files, { recursive: true })
    rmSync(kept, { recursive: true, force: true })
  }
}

/** The export's rows with a post, each given a new address: a file of people the organisation does not have yet. */
function movedFile(exported) {
  const [header, ...lines] = exported.replace(/^\uFEFF/, '').split('\r\n')
  const rows = []
  for (const line of lines) {
    // Cells with a separator or a quote are quoted: such rows (none in the large organisation) are left out.
    if (!line || line.includes('"')) continue
    const cells = line.split(';')
    if (cells[5] === '') continue
    cells[0] = `m${rows.length}@${MOVED_DOMAIN}`
    cells[3] = ''
    rows.push(cells)
    if (rows.length === MOVED_ROWS) break
  }
  return { header, rows, text: [header, ...rows.map((cells) => cells.join(';'))].join('\r\n') }
}

/** The floor's Worker on the portal's own D1 (scripts/bench/wrangler.floor.toml), while the portal is stopped. */
const startFloor = (persistTo, port, scratch) =>
  startReferenceWorker({
    config: 'wrangler.floor.toml',
    port,
    persistTo,
    log: openSync(path.join(scratch, 'floor.log'), 'w'),
    what: 'floor',
  })

/**
 * The figures of moving in, or none when `--only` leaves them out: the export, the preview (its time, and the
 * Worker's time outside D1: what the CPU limit bounds), the import's rows per second beside the floor's, and the
 * portal's memory over the import.
 */
export async function movingFigures({ options, api, port }, { startPortal }, { login }, { persistTo, scratch }) {
  const name = 'POST rest/bd/import (moving in: the users with posts, previewed and imported)'
  if (!selected(options, name)) return null
  const restore = snapshot(persistTo, scratch)
  try {
    return await moveIn({ api, port }, startPortal, login, { persistTo, scratch, name })
  } finally {
    restore()
  }
}

async function moveIn({ api, port }, startPortal, login, { persistTo, scratch, name }) {
  const figures = { name }
  let file
  const inspectorPort = port + 3
  const { child } = await startPortal({ inspectorPort })
  try {
    const session = await login(admin.login, admin.password)
    const auth = { Authorization: `Bearer ${session.jwt.accessToken}` }
    // The Worker's live heap (`liveHeapMiB`), read while the file is sent and while the queue imports it.
    const inspector = await connect(inspectorPort)
    const liveHeap = () => liveHeapMiB(inspector)
    let started = performance.now()
    const exported = await (await fetch(`${api}/bd/export/utilisateurs.csv`, { headers: auth })).text()
    figures.exportMs = performance.now() - started
    file = movedFile(exported)
    figures.rows = file.rows.length
    figures.bytes = Buffer.byteLength(file.text)
    process.stderr.write(`moving in: ${file.rows.length} rows, ${figures.bytes} bytes\n`)

    const post = (query) =>
      fetch(`${api}/bd/import?type=utilisateurs&${query}`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'text/csv' },
        body: file.text,
      })
    started = performance.now()
    const preview = await post('essai=true')
    const previewed = await preview.json()
    figures.previewMs = performance.now() - started
    figures.previewD1Ms = Number(/d1;dur=([\d.]+)/.exec(preview.headers.get('Server-Timing') ?? '')?.[1] ?? Number.NaN)
    figures.previewCreates = previewed.creees
    if (previewed.creees !== file.rows.length) {
      throw new Error(
        `the preview announces ${previewed.creees} creations of ${file.rows.length}: ${JSON.stringify(previewed.erreurs?.slice(0, 3))}`,
      )
    }
    process.stderr.write(`moving in: preview in ${figures.previewMs.toFixed(0)} ms\n`)

    started = performance.now()
    // While the file is sent, the heap is read each second: the upload holds a lot of rows at a time, not the file.
    const uploaded = post('fichier=moving.csv').then((response) => response.json())
    let sent = false
    const done = () => {
      sent = true
    }
    uploaded.then(done, done)
    const uploading = []
    while (!sent) {
      await new Promise((resolve) => setTimeout(resolve, 1000))
      if (!sent) uploading.push(await liveHeap())
    }
    const { id } = await uploaded
    figures.uploadMs = performance.now() - started
    const readWhileSent = uploading.filter(Number.isFinite)
    figures.heapUploading = readWhileSent.length > 0 ? Math.max(...readWhileSent) : Number.NaN
    const memory = []
    const heap = [await liveHeap()]
    let status
    for (let tick = 1; ; tick++) {
      await new Promise((resolve) => setTimeout(resolve, 1000))
      memory.push(memoryMiB(child.pid))
      if (tick % 10 === 0) heap.push(await liveHeap())
      status = await (await fetch(`${api}/bd/import/${id}`, { headers: auth })).json()
      if (status.etat === 'TERMINE' || status.etat === 'ECHEC') break
    }
    if (status.etat !== 'TERMINE' || status.creees !== file.rows.length) {
      throw new Error(`the import ended ${status.etat} with ${status.creees} created: ${status.motif ?? ''}`)
    }
    figures.importSeconds = (Date.parse(status.fin) - Date.parse(status.debut)) / 1000
    figures.importRps = file.rows.length / figures.importSeconds
    figures.memory = [Math.min(...memory), Math.max(...memory)]
    const read = heap.filter(Number.isFinite)
    figures.heap = [Math.min(...read), Math.max(...read), read.at(-1)]
    inspector.close()
    process.stderr.write(`moving in: import at ${figures.importRps.toFixed(0)} rows/s\n`)
  } finally {
    await stop(child)
  }

  // The floor: the same rows (their structure and function as ids) into the same D1, 100 a batch, one after the other.
  const structures = new Map(d1Query(persistTo, 'SELECT id, nom FROM structure').map((row) => [row.nom, row.id]))
  const fonctions = new Map(
    d1Query(persistTo, 'SELECT id, structure_id, libelle FROM fonction').map((row) => [
      `${row.structure_id} ${row.libelle}`,
      row.id,
    ]),
  )
  const wire = (date) => date.split('/').reverse().join('-')
  const rows = file.rows.map((cells, n) => {
    const structure = structures.get(cells[5].split(' / ').at(-1))
    return [
      `f${n}@${FLOOR_DOMAIN}`,
      cells[1],
      cells[2],
      structure,
      fonctions.get(`${structure} ${cells[6]}`),
      wire(cells[7]),
      wire(cells[8]),
    ]
  })
  const floorPort = port + 2
  const { child: floor } = await startFloor(persistTo, floorPort, scratch)
  try {
    const started = performance.now()
    for (let at = 0; at < rows.length; at += LOT_ROWS) {
      const response = await fetch(`http://127.0.0.1:${floorPort}/d1-import`, {
        method: 'POST',
        body: JSON.stringify(rows.slice(at, at + LOT_ROWS)),
      })
      if (!response.ok) throw new Error(`floor ${response.status} ${await response.text()}`)
    }
    figures.floorSeconds = (performance.now() - started) / 1000
    figures.floorRps = rows.length / figures.floorSeconds
    process.stderr.write(`moving in: floor at ${figures.floorRps.toFixed(0)} rows/s\n`)
  } finally {
    await stop(floor)
  }
  return figures
}
