// The audit history's days as its filters write them, and its export, timed once rather than loaded.
import { selected } from './context.mjs'
import { admin } from './database.mjs'
import { stop } from './servers.mjs'

/**
 * A day of the Paris calendar (the history's, DESIGN §8) `daysBefore` the day the benchmark runs, as
 * the history's filters write it (yyyyMMdd): the large organisation's entries are dated from the day
 * it was seeded, so fixed dates would soon read an empty range.
 */
function parisDay(daysBefore = 0) {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en', { timeZone: 'Europe/Paris', year: 'numeric', month: '2-digit', day: '2-digit' })
      .formatToParts(new Date())
      .map(({ type, value }) => [type, value]),
  )
  const day = new Date(Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day) - daysBefore))
  return day.toISOString().slice(0, 10).replaceAll('-', '')
}
/** The history's query with its days: the names keep `{today}` and `{today-N}`, so that runs compare row by row. */
export const historyQuery = (template) =>
  template.replace(/\{today(?:-(\d+))?\}/g, (_, daysBefore) => parisDay(Number(daysBefore ?? 0)))
export const HISTORY_MONTH = 'dateDebut={today-30}&dateFin={today}'
export const HISTORY_YEAR = 'dateDebut={today-365}&dateFin={today}'

/**
 * The history's export: a file an administrator asks for now and then, not a request to put under
 * load (and each one writes an audit entry). Its time to the first byte of the body, its total time
 * and its size, for a month and a year, on a freshly started portal after the history's reads.
 * Returns the rows of the table printed after the scenarios' (none when `--only` leaves it out).
 */
export async function exportFigures({ options, api }, { startPortal }, { login }, name, ranges) {
  const exportRows = []
  if (!selected(options, name)) return exportRows
  const { child } = await startPortal()
  try {
    const session = await login(admin.login, admin.password)
    const headers = { Authorization: `Bearer ${session.jwt.accessToken}` }
    for (const [what, template] of ranges) {
      const started = performance.now()
      const response = await fetch(`${api}/bd/logs/export?${historyQuery(template)}`, { headers })
      if (!response.ok) throw new Error(`export ${response.status} ${await response.text()}`)
      // Counted as it streams: a year of the large organisation is tens of megabytes.
      let firstByte = null
      let bytes = 0
      let lines = 0
      for await (const chunk of response.body) {
        firstByte ??= performance.now() - started
        bytes += chunk.length
        for (const byte of chunk) if (byte === 0x0a) lines++
      }
      const total = performance.now() - started
      exportRows.push({ name: `${what} (${template})`, firstByte, total, bytes, entries: Math.max(lines - 1, 0) })
      process.stderr.write(`${name}, ${what}: ${bytes} bytes in ${total.toFixed(0)} ms\n`)
    }
  } finally {
    await stop(child)
  }
  return exportRows
}
