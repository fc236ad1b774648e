import { ORGANISATION_TIME_ZONE, organisationDateTime } from '../../worker-api/contract/dates'

const display = new Intl.DateTimeFormat('fr-FR', {
  timeZone: ORGANISATION_TIME_ZONE,
  day: '2-digit',
  month: '2-digit',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
})

/** Spec §9 display format, DD/MM/YYYY HH:mm, in the organisation's time zone. */
export const displayDateTime = (iso: string) => display.format(new Date(iso)).replace(',', '')

const timeOnly = new Intl.DateTimeFormat('fr-FR', {
  timeZone: ORGANISATION_TIME_ZONE,
  hour: '2-digit',
  minute: '2-digit',
})

/** The day of an instant, DD/MM/YYYY (as the CSV export writes it), and its time, HH:mm, in the organisation's time zone. */
export const displayDate = (iso: string) => organisationDateTime(iso).date
export const displayTime = (iso: string) => timeOnly.format(new Date(iso))
