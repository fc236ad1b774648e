/** Instants are ISO 8601 UTC strings in the database; calendar dates are 'YYYY-MM-DD'. */
export const nowIso = (now = new Date()) => now.toISOString()
export const addSeconds = (seconds: number, from = new Date()) => new Date(from.getTime() + seconds * 1000)
/**
 * The organisation's calendar: a post "starts on" a date in French time, so "today" is the date in
 * Paris, not in UTC (which would grant a post one or two hours late, and keep an ended one as long).
 */
export const ORGANISATION_TIME_ZONE = 'Europe/Paris'
const calendarDate = new Intl.DateTimeFormat('en-CA', {
  timeZone: ORGANISATION_TIME_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
})

/** The last date formatted, by epoch minute: the calendar date only changes on a minute boundary. */
let lastDate = { minute: Number.NaN, date: '' }

/** Today's date in the organisation's time zone, as 'YYYY-MM-DD'. */
export function todayIso(now = new Date()): string {
  const minute = Math.floor(now.getTime() / 60_000)
  if (minute !== lastDate.minute) lastDate = { minute, date: calendarDate.format(now) }
  return lastDate.date
}

const WIRE_DATE = /^(\d{2})\/(\d{2})\/(\d{4})$/

/** 'YYYY-MM-DD' → 'dd/MM/yyyy', the spec's format on the wire. */
export function toWireDate(iso: string): string {
  const [y, m, d] = iso.slice(0, 10).split('-')
  return `${d}/${m}/${y}`
}

/** Whether 'YYYY-MM-DD' names a day of the calendar (not 30 February). */
const isCalendarDate = (iso: string) => {
  const date = new Date(`${iso}T00:00:00Z`)
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === iso
}

/** 'dd/MM/yyyy' → 'YYYY-MM-DD', or null when it is not a real calendar date. */
export function fromWireDate(wire: string): string | null {
  const match = WIRE_DATE.exec(wire)
  if (!match) return null
  const [, d, m, y] = match
  const iso = `${y}-${m}-${d}`
  return isCalendarDate(iso) ? iso : null
}

/** Whether 'yyyyMMdd' (spec §7, the history's range) names a day of the calendar. */
export const isCompactDate = (compact: string) => /^\d{8}$/.test(compact) && isCalendarDate(fromCompactDate(compact))

/**
 * A day as a form gives it — 'yyyy-MM-dd' from a date input, or 'dd/MM/yyyy' typed where the browser
 * has none — as 'YYYY-MM-DD', or null when it is not a real calendar date.
 */
export function fromFormDate(day: string): string | null {
  const iso = /^\d{4}-\d{2}-\d{2}$/.test(day) ? day : fromWireDate(day)
  return iso && isCalendarDate(iso) ? iso : null
}

/**
 * The instant a calendar day ('YYYY-MM-DD') starts in the organisation's time zone, as an ISO
 * instant: midnight in Paris is 23:00 or 22:00 UTC the day before (winter or summer time; a change
 * of time never falls at midnight there).
 */
export function dayStartInstant(day: string): string {
  const utcMidnight = Date.parse(`${day}T00:00:00Z`)
  for (const hours of [1, 2]) {
    const start = new Date(utcMidnight - hours * 3_600_000)
    if (calendarDate.format(start) === day && calendarDate.format(new Date(start.getTime() - 1)) !== day) {
      return start.toISOString()
    }
  }
  throw new Error(`No start found for ${day}`)
}

/** The calendar date `days` days after `day` (before it when negative), both 'YYYY-MM-DD'. */
export const addDays = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10)
/** The day after a calendar day, both 'YYYY-MM-DD'. */
export const nextDay = (day: string) => addDays(day, 1)

/** 'yyyyMMdd' (spec §7, the history's range) → 'YYYY-MM-DD'. */
export const fromCompactDate = (compact: string) =>
  `${compact.slice(0, 4)}-${compact.slice(4, 6)}-${compact.slice(6, 8)}`

const wallClock = new Intl.DateTimeFormat('fr-FR', {
  timeZone: ORGANISATION_TIME_ZONE,
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
})

/** An instant as the organisation reads it: its day 'dd/MM/yyyy' and time 'HH:mm:ss' in Paris. */
export function organisationDateTime(instant: string): { date: string; time: string } {
  const at = new Date(instant)
  return { date: toWireDate(calendarDate.format(at)), time: wallClock.format(at) }
}
