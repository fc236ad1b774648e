const display = new Intl.DateTimeFormat('fr-FR', {
  timeZone: 'Europe/Paris',
  day: '2-digit',
  month: '2-digit',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
})

/** Spec §9 display format, DD/MM/YYYY HH:mm, in the organisation's time zone. */
export const displayDateTime = (iso: string) => display.format(new Date(iso)).replace(',', '')

const dayOnly = new Intl.DateTimeFormat('fr-FR', {
  timeZone: 'Europe/Paris',
  day: '2-digit',
  month: '2-digit',
  year: 'numeric',
})
const timeOnly = new Intl.DateTimeFormat('fr-FR', { timeZone: 'Europe/Paris', hour: '2-digit', minute: '2-digit' })

/** The day of an instant, DD/MM/YYYY, and its time, HH:mm, in the organisation's time zone. */
export const displayDate = (iso: string) => dayOnly.format(new Date(iso))
export const displayTime = (iso: string) => timeOnly.format(new Date(iso))
