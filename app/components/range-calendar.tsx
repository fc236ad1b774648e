import {
  endOfMonth,
  format,
  isBefore,
  isSameDay,
  isValid,
  parseISO,
  startOfDay,
  startOfMonth,
  subDays,
  subMonths,
} from 'date-fns'
import { useEffect, useRef, useState } from 'react'
import { DayPicker } from 'react-day-picker'
import { enGB } from 'react-day-picker/locale/en-GB'
import { fr } from 'react-day-picker/locale/fr'
import 'react-day-picker/style.css'
import { useTranslation } from 'react-i18next'
import { todayIso, toWireDate } from '../../worker-api/contract/dates'
import { Button } from './ui/button'

/** A period as the date inputs hold it: 'yyyy-MM-dd' each, '' for an open bound. */
export type DayRange = { from: string; to: string }

/** 'yyyy-MM-dd' → that day at local midnight, or undefined for anything else. */
const dayOf = (value: string) => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined
  const day = parseISO(value)
  return isValid(day) ? day : undefined
}
const inputValue = (day: Date) => format(day, 'yyyy-MM-dd')

/** Two months of 40 px days and the gap between them, with the panel's padding. */
const TWO_MONTHS_WIDTH = 2 * 7 * 40 + 24 + 2 * 12

/**
 * The calendar of `DateRangePicker`, on react-day-picker for keyboard navigation, grid semantics and day labels in
 * French and British English: weeks from Monday, and a day's label holds the number shown ('2 January', not '2nd').
 */
export default function RangeCalendar({
  from,
  to,
  onChange,
}: {
  from: string
  to: string
  onChange: (range: DayRange) => void
}) {
  const { t, i18n } = useTranslation()
  // Two months when there is room for them side by side (its own width: the filter form's column).
  const box = useRef<HTMLDivElement>(null)
  const [wide, setWide] = useState(false)
  useEffect(() => {
    const element = box.current
    if (!element) return
    const observer = new ResizeObserver(([entry]) => setWide((entry?.contentRect.width ?? 0) >= TWO_MONTHS_WIDTH))
    observer.observe(element)
    return () => observer.disconnect()
  }, [])
  // The organisation's today (Paris), which the history's days are: not the browser's, which on a
  // clock in another time zone is a day off around midnight.
  const today = dayOf(todayIso()) ?? startOfDay(new Date())
  const start = dayOf(from)
  const end = dayOf(to)
  // The first month shown: the start's, else today's (two months end at today's at the latest).
  const [month, setMonth] = useState(() => startOfMonth(start ?? today))

  const pick = (day: Date) => {
    if (!start || end) onChange({ from: inputValue(day), to: '' })
    else if (isBefore(day, start)) onChange({ from: inputValue(day), to: inputValue(start) })
    else onChange({ from: from, to: inputValue(day) })
  }
  const presets: { label: string; from: Date; to: Date }[] = [
    { label: t('dateRange.last7Days'), from: subDays(today, 6), to: today },
    { label: t('dateRange.last30Days'), from: subDays(today, 29), to: today },
    { label: t('dateRange.thisMonth'), from: startOfMonth(today), to: today },
    { label: t('dateRange.lastMonth'), from: startOfMonth(subMonths(today, 1)), to: endOfMonth(subMonths(today, 1)) },
  ]
  const status =
    start && end
      ? t('dateRange.picked', { from: toWireDate(from), to: toWireDate(to) })
      : start
        ? t('dateRange.pickEnd', { from: toWireDate(from) })
        : t('dateRange.pickStart')

  return (
    <div ref={box} className="flex min-w-0 flex-col gap-3 rounded-md border bg-background p-3">
      <div className="flex flex-wrap gap-2">
        {presets.map((preset) => (
          <Button
            key={preset.label}
            type="button"
            variant="secondary"
            size="sm"
            aria-pressed={Boolean(start && end && isSameDay(start, preset.from) && isSameDay(end, preset.to))}
            onClick={() => {
              onChange({ from: inputValue(preset.from), to: inputValue(preset.to) })
              setMonth(startOfMonth(preset.from))
            }}
          >
            {preset.label}
          </Button>
        ))}
      </div>
      <DayPicker
        mode="range"
        selected={start || end ? { from: start, to: end } : undefined}
        onSelect={(_, day) => pick(day)}
        month={month}
        onMonthChange={setMonth}
        numberOfMonths={wide ? 2 : 1}
        endMonth={today}
        disabled={{ after: today }}
        locale={i18n.language === 'en' ? enGB : fr}
        // The portal's colours and day sizes (app/tailwind.css).
        className="portal-calendar"
      />
      <p className="text-sm text-muted-foreground" aria-live="polite">
        {status}
      </p>
    </div>
  )
}
