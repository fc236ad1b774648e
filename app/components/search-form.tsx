import { Form, useLocation, useSubmit } from '@remix-run/react'
import { Search } from 'lucide-react'
import { useEffect, useId, useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { PAGE_PARAM, SEARCH_PARAM } from '~/lib/url'
import { cn } from '~/lib/utils'
import { Button } from './ui/button'
import { Input } from './ui/input'
import { Label } from './ui/label'

/** How long typing pauses before the list is searched (with JavaScript). */
export const SEARCH_DEBOUNCE_MS = 300

/**
 * A list's search box: a GET form, so the search lives in the URL (`?q=…`) and works without
 * JavaScript through its button. The other params (sort, filters) ride along as hidden inputs, except
 * the page: a new search starts on page 1. With JavaScript it also searches as one types, 300 ms after
 * the last key, replacing the history entry rather than stacking one per keystroke.
 */
export function SearchForm({
  label,
  name = SEARCH_PARAM,
  pageParam = PAGE_PARAM,
  placeholder,
  submitLabel,
  hideLabel = false,
  className,
}: {
  label: string
  name?: string
  pageParam?: string
  placeholder?: string
  submitLabel?: string
  /** Keeps the label for assistive technology only (when a heading right above says the same). */
  hideLabel?: boolean
  className?: string
}) {
  const { t } = useTranslation()
  const { search } = useLocation()
  const submit = useSubmit()
  const id = useId()
  const input = useRef<HTMLInputElement>(null)
  const timer = useRef<ReturnType<typeof setTimeout>>()
  const params = new URLSearchParams(search)
  const value = params.get(name) ?? ''
  const kept = [...params].filter(([key]) => key !== name && key !== pageParam)

  useEffect(() => () => clearTimeout(timer.current), [])
  // Back and forward change the URL under an uncontrolled input: follow it, unless one is typing there.
  useEffect(() => {
    if (input.current && document.activeElement !== input.current) input.current.value = value
  }, [value])

  return (
    <Form
      method="get"
      // A search landmark; left unnamed, so that the label names the input alone (`getByLabel`).
      role="search"
      className={cn('flex flex-col gap-1.5', className)}
      onSubmit={() => clearTimeout(timer.current)}
    >
      {kept.map(([key, keptValue], index) => (
        // A param may repeat: its position is part of its key.
        <input key={`${key}-${index}`} type="hidden" name={key} value={keptValue} />
      ))}
      <Label htmlFor={id} className={hideLabel ? 'sr-only' : undefined}>
        {label}
      </Label>
      <div className="flex gap-2">
        <Input
          ref={input}
          id={id}
          type="search"
          name={name}
          defaultValue={value}
          placeholder={placeholder}
          autoComplete="off"
          className="min-w-0"
          onChange={(event) => {
            const form = event.currentTarget.form
            clearTimeout(timer.current)
            timer.current = setTimeout(
              () => submit(form, { replace: true, preventScrollReset: true }),
              SEARCH_DEBOUNCE_MS,
            )
          }}
        />
        <Button type="submit" variant="outline" className="shrink-0">
          <Search aria-hidden />
          {submitLabel ?? t('search.submit')}
        </Button>
      </div>
    </Form>
  )
}
