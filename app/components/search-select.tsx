import { Check, ChevronsUpDown } from 'lucide-react'
import { type KeyboardEvent, type ReactNode, useEffect, useMemo, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useHydrated, useTypedBeforeHydration } from '~/lib/hydrated'
import { cn } from '~/lib/utils'
import { FieldMessages, fieldMessages } from './field'
import { NATIVE_SELECT } from './select-field'
import { Input } from './ui/input'
import { Label } from './ui/label'

export type SearchSelectOption = { value: string; label: string }

const fold = (text: string) =>
  text
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLocaleLowerCase()

/** The options whose label contains the query, ignoring case and accents ("ecole" finds "École"). */
export function filterOptions(options: SearchSelectOption[], query: string): SearchSelectOption[] {
  const wanted = fold(query.trim())
  return wanted ? options.filter((option) => fold(option.label).includes(wanted)) : options
}

type ControlProps = {
  id: string
  name: string
  options: SearchSelectOption[]
  onQuery?: ((query: string) => void) | undefined
  searching?: boolean | undefined
  defaultValue: string
  placeholder?: string
  disabled?: boolean
  required?: boolean
  describedBy?: string
  invalid: boolean
}

/**
 * A searchable select: a native `<select>` without JavaScript, an ARIA 1.2 combobox once hydrated (its value posted by
 * a hidden input of the same name). Hand-built rather than cmdk + Radix Popover: two dependencies and a portal for one
 * input and one list, and the native fallback is needed anyway.
 */
export function SearchSelect({
  id,
  name,
  label,
  options,
  defaultValue = '',
  placeholder,
  emptyMessage,
  disabled,
  required,
  hint,
  errors,
  className,
  onQuery,
  searching,
}: {
  id: string
  name: string
  label: ReactNode
  /** The options; once hydrated they may change as `onQuery` brings the server's matches. */
  options: SearchSelectOption[]
  /** Told what is typed in the combobox, for a list searched on the server. */
  onQuery?: (query: string) => void
  /** Whether the server's matches for what is typed are on their way. */
  searching?: boolean
  defaultValue?: string
  /** The empty choice's text in the native select, the input's placeholder once enhanced. */
  placeholder?: string
  /** Said when nothing matches what was typed. */
  emptyMessage?: string
  disabled?: boolean
  required?: boolean
  hint?: ReactNode
  errors?: string[] | undefined
  className?: string
}) {
  const hydrated = useHydrated()
  // A choice made in the native select before the page was live carries over to the combobox.
  const [native, typed] = useTypedBeforeHydration<HTMLDivElement>()
  const control: ControlProps = {
    ...fieldMessages(id, hint, errors),
    id,
    name,
    options,
    defaultValue: typed[name] ?? defaultValue,
    placeholder,
    disabled,
    required,
  }
  return (
    <div ref={native} className={cn('flex flex-col gap-1.5', className)}>
      <Label id={`${id}-label`} htmlFor={id}>
        {label}
      </Label>
      {hydrated ? (
        <Combobox
          {...control}
          labelId={`${id}-label`}
          emptyMessage={emptyMessage}
          onQuery={onQuery}
          searching={searching}
        />
      ) : (
        <NativeSelect {...control} />
      )}
      <FieldMessages id={id} hint={hint} errors={errors} />
    </div>
  )
}

function NativeSelect({
  id,
  name,
  options,
  defaultValue,
  placeholder,
  disabled,
  required,
  describedBy,
  invalid,
}: ControlProps) {
  return (
    <select
      id={id}
      name={name}
      defaultValue={defaultValue}
      disabled={disabled}
      required={required}
      aria-invalid={invalid || undefined}
      aria-describedby={describedBy}
      className={NATIVE_SELECT}
    >
      {/* The empty choice: a required select stays invalid until one is made, instead of taking the first. */}
      <option value="">{placeholder ?? ''}</option>
      {options.map((option) => (
        <option key={option.value} value={option.value}>
          {option.label}
        </option>
      ))}
    </select>
  )
}

function Combobox({
  id,
  name,
  labelId,
  options,
  defaultValue,
  placeholder,
  emptyMessage,
  disabled,
  required,
  describedBy,
  invalid,
  onQuery,
  searching,
}: ControlProps & { labelId: string; emptyMessage?: string }) {
  const { t } = useTranslation()
  const listId = `${id}-listbox`
  // Option ids follow the option's place in the full list, so they stay stable while filtering.
  const positions = useMemo(() => new Map(options.map((option, index) => [option, index])), [options])
  // The option chosen, whose label stays known when the options change under a search.
  const chosenOption = useRef(options.find((option) => option.value === defaultValue) ?? null)
  const labelOf = (value: string) =>
    options.find((option) => option.value === value)?.label ??
    (chosenOption.current?.value === value ? chosenOption.current.label : '')
  const [value, setValue] = useState(defaultValue)
  // The choice as of now, for a blur that follows a pick in the same keystroke (Tab) before a render.
  const chosen = useRef(defaultValue)
  const [query, setQuery] = useState(() => labelOf(defaultValue))
  // Opened with the keyboard or a click, the list shows every option; typing filters it.
  const [filtering, setFiltering] = useState(false)
  const [open, setOpen] = useState(false)
  const [active, setActive] = useState(-1)
  const shown = filtering ? filterOptions(options, query) : options
  const activeOption = open ? shown[active] : undefined
  const activeId = activeOption ? `${listId}-${positions.get(activeOption)}` : undefined
  // What the list holds, as the empty box and the live region say it.
  const said = searching
    ? t('searchSelect.searching')
    : shown.length > 0
      ? t('searchSelect.results', { count: shown.length })
      : (emptyMessage ?? t('searchSelect.empty'))

  useEffect(() => {
    if (activeId) document.getElementById(activeId)?.scrollIntoView({ block: 'nearest' })
  }, [activeId])
  // The server's matches arrived while typing: the first is the one Enter would pick.
  const matches = filtering ? shown.length : -1
  useEffect(() => {
    if (matches >= 0) setActive(matches > 0 ? 0 : -1)
  }, [matches])

  function close() {
    setOpen(false)
    setFiltering(false)
    setActive(-1)
  }
  function pick(next: string) {
    chosen.current = next
    setValue(next)
  }
  function restore() {
    setQuery(labelOf(chosen.current))
    close()
  }
  function choose(option: SearchSelectOption) {
    chosenOption.current = option
    pick(option.value)
    setQuery(option.label)
    close()
  }
  function openList(fromEnd = false) {
    const selected = shown.findIndex((option) => option.value === value)
    setOpen(true)
    setActive(selected >= 0 ? selected : fromEnd ? shown.length - 1 : 0)
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    switch (event.key) {
      case 'ArrowDown':
        event.preventDefault()
        if (!open) openList()
        else if (!event.altKey) setActive((index) => Math.min(index + 1, shown.length - 1))
        return
      case 'ArrowUp':
        event.preventDefault()
        if (!open) openList(true)
        else if (event.altKey) activeOption ? choose(activeOption) : restore()
        else setActive((index) => Math.max(index - 1, 0))
        return
      case 'Enter':
        // Closed, Enter submits the form as in any text field; open, it picks and stays in the form.
        if (!open) return
        event.preventDefault()
        activeOption ? choose(activeOption) : restore()
        return
      case 'Escape':
        if (!open) return
        event.preventDefault()
        restore()
        return
      case 'Tab':
        if (activeOption) choose(activeOption)
        return
    }
  }

  return (
    <div className="relative">
      <input type="hidden" name={name} value={value} disabled={disabled} />
      <Input
        id={id}
        type="text"
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={open}
        aria-controls={listId}
        aria-activedescendant={activeId}
        aria-invalid={invalid || undefined}
        aria-describedby={describedBy}
        autoComplete="off"
        value={query}
        placeholder={placeholder}
        disabled={disabled}
        required={required}
        className="pr-9"
        onChange={(event) => {
          const text = event.target.value
          setQuery(text)
          setFiltering(true)
          setOpen(true)
          setActive(filterOptions(options, text).length > 0 ? 0 : -1)
          // Emptying the field empties the choice; any other text must still pick an option.
          if (text === '') pick('')
          onQuery?.(text)
        }}
        onKeyDown={onKeyDown}
        onClick={() => {
          if (!open) openList()
        }}
        onBlur={restore}
      />
      <ChevronsUpDown
        aria-hidden
        className="pointer-events-none absolute top-1/2 right-3 size-4 -translate-y-1/2 text-muted-foreground"
      />
      <div
        id={listId}
        role="listbox"
        aria-labelledby={labelId}
        hidden={!open || shown.length === 0}
        // Keeps focus in the input while an option or the scrollbar is clicked.
        onMouseDown={(event) => event.preventDefault()}
        className="absolute top-full left-0 z-50 mt-1 max-h-60 w-full overflow-y-auto rounded-md border bg-card p-1 shadow-md"
      >
        {open
          ? shown.map((option, index) => (
              // biome-ignore lint/a11y/useKeyWithClickEvents: keys act through the combobox (aria-activedescendant)
              // biome-ignore lint/a11y/useFocusableInteractive: focus stays in the combobox, as ARIA 1.2 wants
              <div
                key={option.value}
                id={`${listId}-${positions.get(option)}`}
                role="option"
                aria-selected={index === active}
                onClick={() => choose(option)}
                onMouseMove={() => setActive(index)}
                className={cn(
                  'flex cursor-pointer items-center gap-2 rounded-sm px-2 py-1.5 text-sm',
                  index === active && 'bg-accent text-accent-foreground',
                )}
              >
                <Check aria-hidden className={cn('size-4 shrink-0', option.value !== value && 'invisible')} />
                {option.label}
              </div>
            ))
          : null}
      </div>
      {open && shown.length === 0 ? (
        <p className="absolute top-full left-0 z-50 mt-1 w-full rounded-md border bg-card px-3 py-2 text-sm text-muted-foreground shadow-md">
          {said}
        </p>
      ) : null}
      {/* Present from the start, so that what filtering leaves is announced as it changes. */}
      <p role="status" className="sr-only">
        {open ? said : ''}
      </p>
    </div>
  )
}
