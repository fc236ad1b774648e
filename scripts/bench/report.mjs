// The report: the scenarios' table, the export's, what each page ships and the Worker's size, as
// printed and as kept in BENCHMARKS.md.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { root } from '../local.mjs'

const fixed = (value, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '—')
const ratio = (value, of) => (of > 0 ? (value / of).toFixed(2) : '—')

/**
 * The report's Markdown: `rows` and `exportRows` from the scenarios, `references` their divisors,
 * `shipped` and `worker` the sizes.
 */
export function formatReport(
  { options, connections, duration },
  { rows, exportRows, moving, archive, campaign, references, shipped, worker },
) {
  const { bare, floor, hash, memory: referenceMemory } = references
  const lines = []
  const print = (line = '') => lines.push(line)

  const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU'
  print(
    `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} × ${cpu}, Node ${process.version}, ` +
      `wrangler dev (local workerd + SQLite D1), ${connections} connections, ${duration} s per scenario, ` +
      `${options.large ? 'large organisation (`npm run seed:large`)' : 'demo organisation'}.`,
  )
  if (references.ends) {
    const ends = ([start, end]) => `${start.toFixed(0)} then ${end.toFixed(0)}`
    print()
    print(
      `References measured before and after the scenarios (req/s), the ratios dividing by their mean: ` +
        `one D1 statement ${ends(references.ends.floor)}, one D1 write ${ends(references.ends.write)}, ` +
        `a POST's form ${ends(references.ends.form)}, 100 rows ${ends(references.ends.weight)}, ` +
        `bare Worker ${ends(references.ends.bare)}, ` +
        `Remix page ${ends(references.ends.page)}.`,
    )
  }
  print()
  print(
    '| scenario | req/s | p50 ms | p99 ms | errors | D1 statements | ÷ bare Worker | ÷ one-statement floor | ÷ raw hash | workerd MiB |',
  )
  print('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const row of rows) {
    const hashRatio = row.kind === 'hash' || row.name.includes('PBKDF2') ? ratio(row.rps, hash.rps) : ''
    print(
      `| ${row.name} | ${fixed(row.rps)} | ${fixed(row.p50)} | ${fixed(row.p99)} | ${row.errors} | ` +
        `${row.statements ?? '—'} | ${ratio(row.rps, bare.rps)} | ` +
        `${row.kind === 'hash' ? '' : ratio(row.rps, floor.rps)} | ` +
        `${hashRatio} | ${row.memory ?? referenceMemory} |`,
    )
  }

  // A scenario whose work the one-statement floor leaves out (a body to read, a page of 78 KB to move) beside a
  // floor that does that work and nothing else.
  const owned = rows.filter((row) => row.own && references[row.own])
  if (owned.length > 0) {
    const floors = {
      form: 'one D1 statement, a POST whose form is read',
      weight: 'one D1 statement of 100 rows, ~78 KB',
    }
    print()
    print('Beside the floor of their own work:')
    print()
    print('| scenario | req/s | its floor | floor req/s | ÷ its floor | its floor ÷ one-statement floor |')
    print('|---|---:|---|---:|---:|---:|')
    for (const row of owned) {
      const own = references[row.own]
      print(
        `| ${row.name} | ${fixed(row.rps)} | ${floors[row.own]} | ${fixed(own.rps)} | ${ratio(row.rps, own.rps)} | ` +
          `${ratio(own.rps, floor.rps)} |`,
      )
    }
  }

  if (exportRows.length > 0) {
    print()
    print('History export (GET rest/bd/logs/export, admin of the root), once each on a freshly started portal:')
    print()
    print('| range | first byte ms | total ms | bytes | CSV rows |')
    print('|---|---:|---:|---:|---:|')
    for (const row of exportRows) {
      print(`| ${row.name} | ${fixed(row.firstByte)} | ${fixed(row.total)} | ${row.bytes} | ${row.entries} |`)
    }
  }

  if (campaign) {
    print()
    print(
      `An access review over the whole organisation (POST rest/bd/revue, admin of the root), opened on the imports' ` +
        `queue a window of 4000 post ids per message, once on a freshly started portal. The longest time between two ` +
        `changes of its item count (read every 50 ms) bounds any one message's time, its delivery and its D1 batch ` +
        `included, and so the Worker's own time in it:`,
    )
    print()
    print(
      '| items | messages | opening s | items/s | mean ms per message | longest ms between two counts | workerd MiB |',
    )
    print('|---:|---:|---:|---:|---:|---:|---:|')
    print(
      `| ${campaign.items} | ${campaign.messages} | ${fixed(campaign.seconds, 1)} | ` +
        `${fixed(campaign.items / campaign.seconds)} | ${fixed((campaign.seconds * 1000) / campaign.messages)} | ` +
        `${fixed(campaign.longestMs)} | ${campaign.memory[0]}–${campaign.memory[1]} |`,
    )
  }

  if (moving) {
    print()
    print(
      `Moving in (POST rest/bd/import, admin of the root): the organisation's users, a row per post, given new ` +
        `addresses (${moving.rows} rows, ${(moving.bytes / 1024 / 1024).toFixed(1)} MiB), previewed then imported on ` +
        `the imports' queue, a lot of 100 rows per message; the floor inserts the same rows into the same D1 (its ` +
        `tables, indexes and triggers) by plain batches of 100 rows (a user and their post each), one after the other:`,
    )
    print()
    print('| step | time s | rows/s | ÷ floor | notes |')
    print('|---|---:|---:|---:|---|')
    print(`| export of the scope (GET rest/bd/export/utilisateurs.csv) | ${fixed(moving.exportMs / 1000, 1)} | | | |`)
    print(
      `| preview (essai=true) | ${fixed(moving.previewMs / 1000, 1)} | ${fixed(moving.rows / (moving.previewMs / 1000))} | | ` +
        `Worker outside D1 ${fixed((moving.previewMs - moving.previewD1Ms) / 1000, 1)} s (upload included), D1 ${fixed(moving.previewD1Ms / 1000, 1)} s |`,
    )
    print(
      `| import (202, then the queue) | ${fixed(moving.importSeconds, 1)} | ${fixed(moving.importRps)} | ` +
        `${ratio(moving.importRps, moving.floorRps)} | upload ${fixed(moving.uploadMs / 1000, 1)} s; the Worker's ` +
        `live JavaScript heap (after a collection) at most ${moving.heapUploading} MiB while the file is sent, ` +
        `${moving.heap[0]}–${moving.heap[1]} over the import, ${moving.heap[2]} at its end; ` +
        `workerd with its SQLite ${moving.memory[0]}–${moving.memory[1]} MiB |`,
    )
    print(
      `| floor: plain batches of 100 rows | ${fixed(moving.floorSeconds, 1)} | ${fixed(moving.floorRps)} | 1.00 | |`,
    )
  }

  if (archive) printArchive(print, archive)

  const { floorKiB, pages, wordsKiB } = shipped
  print()
  print(
    `JavaScript and CSS each page ships (gzip, KiB). Framework floor (entry: react-dom, Remix): ${fixed(floorKiB, 1)}. ` +
      `Every page also fetches its language's words as JSON, preloaded with its scripts: ${fixed(wordsKiB, 1)} for French.`,
  )
  print()
  print('| route | JS | JS over floor | CSS |')
  print('|---|---:|---:|---:|')
  for (const page of pages) {
    print(`| ${page.id} | ${fixed(page.jsKiB, 1)} | ${fixed(page.jsKiB - floorKiB, 1)} | ${fixed(page.cssKiB, 1)} |`)
  }
  print()
  print(
    worker
      ? `Worker bundle: ${worker.raw} KiB, ${worker.gzip} KiB gzip.`
      : 'Worker bundle: size not reported by wrangler.',
  )
  return lines.join('\n')
}

/** Keeps `report` in BENCHMARKS.md, in the demo's or the large organisation's section (replaced, else added). */
export function writeBenchmarks(large, report) {
  const file = path.join(root, 'BENCHMARKS.md')
  const section = large ? 'large' : 'demo'
  const begin = `<!-- bench:${section} -->`
  const end = `<!-- /bench:${section} -->`
  let text = existsSync(file) ? readFileSync(file, 'utf8') : ''
  const block = `${begin}\n${report}\n${end}`
  text = text.includes(begin)
    ? text.replace(new RegExp(`${begin}[\\s\\S]*?${end}`), block)
    : `${text.trimEnd()}\n\n${block}\n`
  writeFileSync(file, text)
  console.log(`Kept in BENCHMARKS.md (${section}).`)
}

/**
 * D1's bytes per history entry with its indexes when the run could not measure them (no sqlite3): LOG_ROW_BYTES
 * (worker-api/contract/history/storage.ts), measured with dbstat on a million entries.
 */
const D1_ROW_BYTES = 179

/**
 * The archive's figures, and what they make of an organisation of 100 000 users for ten years: about 100 million
 * entries a year (a sign-in, two launches and a sign-out each working day), D1 keeping 13 months of them.
 */
function printArchive(print, archive) {
  const { after, rows, seconds, rowsPerSecond, heap, resident, search, yearExport, d1RowBytes } = archive
  const fileBytesPerRow = after.archive.octets / after.archive.entrees
  const rowBytes = d1RowBytes ?? D1_ROW_BYTES
  const rowBytesSaid = d1RowBytes
    ? `${fixed(d1RowBytes, 0)} bytes/entry with its indexes (dbstat, before archiving)`
    : `${D1_ROW_BYTES} bytes/entry with its indexes (LOG_ROW_BYTES: no sqlite3 to measure them)`
  print()
  print(
    `History archive: the large organisation's history kept 3 months in D1 (historiqueMoisEnLigne), the hourly cron ` +
      `fired once a month is done; each month written to R2 as Parquet by the jobs queue (10 000 entries a file, a ` +
      `message each), then removed from D1 (5 000 a message):`,
  )
  print()
  print('| step | figure | notes |')
  print('|---|---:|---|')
  print(
    `| archive | ${fixed(rowsPerSecond)} entries/s | ${rows} entries of ${after.archive.mois} months in ` +
      `${fixed(seconds, 0)} s, ${after.archive.fichiers} files; the Worker's live JavaScript heap (after a collection) ` +
      `${heap ? `${heap[0]}–${heap[1]} MiB` : 'not read (the inspector answered none of the reads)'}` +
      `${resident ? `; the portal's resident memory (workerd, D1 included) ${resident[0]} MiB before, at most ${resident[1]}, ${resident[2]} at the end` : ''} |`,
  )
  print(
    `| file size | ${fixed(fileBytesPerRow, 0)} bytes/entry | ${(after.archive.octets / 1024 / 1024).toFixed(1)} MiB of ` +
      `Parquet (Snappy, row groups of 2 000); D1 takes ${rowBytesSaid}: ` +
      `${fixed(rowBytes / fileBytesPerRow, 1)} times more |`,
  )
  print(
    `| one user's full history (POST rest/bd/logs/recherches, every archived month) | ${fixed(search.seconds, 1)} s | ` +
      `${search.files} files of ${search.months} months read, ${search.entries} entries found |`,
  )
  print(
    `| a year's CSV export (GET rest/bd/logs/export) | ${fixed(yearExport.seconds, 1)} s | ` +
      `${yearExport.entries} entries, ${(yearExport.bytes / 1024 / 1024).toFixed(1)} MiB, first byte after ` +
      `${fixed(yearExport.firstByteMs)} ms; the months beyond 3 read from R2 |`,
  )
  const yearly = 100_000_000
  const monthly = yearly / 12
  const d1Of = (months) => (monthly * months * rowBytes) / 1e9
  const archiveBytes = yearly * 10 * fileBytesPerRow
  print()
  print(
    `An organisation of 100 000 users for ten years (about 100 million entries a year, ${(monthly / 1e6).toFixed(1)} ` +
      `million a month): R2 holds the ten years, 1 000 million entries × ${fixed(fileBytesPerRow, 0)} bytes = ` +
      `${(archiveBytes / 1e9).toFixed(0)} GB. In D1, at ${fixed(rowBytes, 0)} bytes an entry, 13 months take ` +
      `${d1Of(13).toFixed(1)} GB, 3 months (the least the setting keeps) ${d1Of(3).toFixed(1)} GB, and 5 GB holds ` +
      `${fixed(5e9 / (monthly * rowBytes), 1)} months. Archiving a month of it at the rate measured here takes ` +
      `${fixed(monthly / rowsPerSecond / 3600, 1)} hours.`,
  )
}
