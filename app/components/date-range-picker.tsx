import { CalendarDays } from 'lucide-react'
import {
  type KeyboardEvent,
  lazy,
  type ReactNode,
  type RefObject,
  Suspense,
  useEffect,
  useId,
  useRef,
  useState,
} from 'react'
import { useTranslation } from 'react-i18next'
import { useHydrated } from '~/lib/hydrated'
import { PeriodFieldset } from './date-range-input'
import { Field } from './field'
import { Button } from './ui/button'

/** The calendar, loaded the first time it is opened: the page's own script stays without it. */
const RangeCalendar = lazy(() => import('./range-calendar'))

export type DateRangePickerBound = {
  name: string
  label: ReactNode
  /** 'yyyy-MM-dd', as a date input holds it. */
  defaultValue?: string
  errors?: string[] | undefined
}

/**
 * A period (spec §2 logs screen) as two plain date inputs that work without JavaScript; with it, a calendar fills the
 * same inputs, so what is submitted is what they show. The inputs stay uncontrolled so that a date typed before
 * hydration is kept.
 */
export function DateRangePicker({
  legend,
  start,
  end,
  className,
}: {
  legend: ReactNode
  start: DateRangePickerBound
  end: DateRangePickerBound
  className?: string
}) {
  const { t } = useTranslation()
  const hydrated = useHydrated()
  const id = useId()
  const [from, setFrom] = useState(start.defaultValue ?? '')
  const [to, setTo] = useState(end.defaultValue ?? '')
  const [open, setOpen] = useState(false)
  const toggle = useRef<HTMLButtonElement>(null)
  const fromInput = useRef<HTMLInputElement>(null)
  const toInput = useRef<HTMLInputElement>(null)
  const panelId = `${id}-calendar`

  useEffect(() => {
    setFrom(fromInput.current?.value ?? '')
    setTo(toInput.current?.value ?? '')
  }, [])

  const close = (event: KeyboardEvent) => {
    if (event.key !== 'Escape') return
    event.preventDefault()
    setOpen(false)
    toggle.current?.focus()
  }
  const field = (
    bound: DateRangePickerBound,
    fieldId: string,
    ref: RefObject<HTMLInputElement>,
    set: (value: string) => void,
  ) => (
    <Field
      label={bound.label}
      errors={bound.errors}
      inputProps={{
        id: fieldId,
        name: bound.name,
        type: 'date',
        ref,
        defaultValue: bound.defaultValue,
        onChange: (event) => set(event.currentTarget.value),
        // The browser itself keeps the end from coming before the start (the server checks again).
        ...(bound === end && from ? { min: from } : {}),
        ...(bound === start && to ? { max: to } : {}),
      }}
    />
  )

  return (
    <PeriodFieldset
      legend={legend}
      className={className}
      after={
        hydrated ? (
          <div className="flex min-w-0 flex-col gap-2">
            <Button
              ref={toggle}
              type="button"
              variant="outline"
              size="sm"
              className="self-start"
              aria-expanded={open}
              aria-controls={panelId}
              onClick={() => setOpen(!open)}
            >
              <CalendarDays aria-hidden />
              {open ? t('dateRange.closeCalendar') : t('dateRange.openCalendar')}
            </Button>
            {/* biome-ignore lint/a11y/noStaticElementInteractions: Escape anywhere in the calendar closes it. */}
            <div id={panelId} hidden={!open} onKeyDown={close} className="min-w-0">
              {open ? (
                <Suspense fallback={<p className="text-sm text-muted-foreground">{t('dateRange.loading')}</p>}>
                  <RangeCalendar
                    from={from}
                    to={to}
                    onChange={(range) => {
                      if (fromInput.current) fromInput.current.value = range.from
                      if (toInput.current) toInput.current.value = range.to
                      setFrom(range.from)
                      setTo(range.to)
                    }}
                  />
                </Suspense>
              ) : null}
            </div>
          </div>
        ) : null
      }
    >
      {field(start, `${id}-start`, fromInput, setFrom)}
      {field(end, `${id}-end`, toInput, setTo)}
    </PeriodFieldset>
  )
}
