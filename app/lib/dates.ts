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
