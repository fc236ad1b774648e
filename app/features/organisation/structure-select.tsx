import { useFetcher } from '@remix-run/react'
import { useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { ChoiceReloadButton } from '~/components/choice-reload-button'
import { SearchSelect } from '~/components/search-select'
import { Input } from '~/components/ui/input'
import { Label } from '~/components/ui/label'
import { useHydrated } from '~/lib/hydrated'
import { STRUCTURE_SEARCH, type StructureChoices } from './structure-choice'

/** Where the combobox asks for the structures matching what is typed (app/routes/pages.admin.structure.choix.tsx). */
const SEARCH_ROUTE = '/pages/admin/structure/choix'
/** How long typing may pause before the search goes (ms). */
const SEARCH_DELAY_MS = 250

/**
 * A structure of the admin's scope to choose, among `choices` (STRUCTURE_CHOICES at most, app/features/organisation/
 * structure-choices.server.ts). When the scope holds more, the combobox asks the server for what is typed; without
 * JavaScript a search field above the select posts the form back (`intent`) with the matches listed.
 */
export function StructureSelect({
  id,
  name,
  label,
  choices,
  defaultValue,
  placeholder,
  emptyMessage,
  required,
  errors,
  intent,
}: {
  id: string
  name: string
  label: string
  choices: StructureChoices
  defaultValue: string
  placeholder: string
  emptyMessage: string
  required?: boolean
  errors?: string[] | undefined
  /** The no-JavaScript post that shows the form again, for the search as for the choice. */
  intent: string
}) {
  const { t } = useTranslation()
  const hydrated = useHydrated()
  const { structures, shown, total, recherche } = choices
  const complete = recherche === '' && shown >= total
  const fetcher = useFetcher<StructureChoices>()
  const [query, setQuery] = useState('')
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  useEffect(() => () => clearTimeout(timer.current), [])

  function onQuery(text: string) {
    clearTimeout(timer.current)
    const wanted = text.trim()
    setQuery(wanted)
    if (complete || wanted === '') return
    timer.current = setTimeout(
      () => fetcher.load(`${SEARCH_ROUTE}?${new URLSearchParams({ [STRUCTURE_SEARCH]: wanted })}`),
      SEARCH_DELAY_MS,
    )
  }
  // Only what was typed last is ever loaded (never an empty search, nor for a complete list).
  const found = fetcher.data && fetcher.data.recherche === query ? fetcher.data.structures : null
  const listed = found ?? structures
  const searching = !complete && query !== '' && found === null

  const hint = complete
    ? undefined
    : hydrated
      ? t('structureChoice.live', { count: total })
      : shown >= total
        ? t('structureChoice.found', { count: total })
        : t('structureChoice.partial', { count: total, shown })
  return (
    <div className="flex flex-col gap-2">
      {!hydrated && !complete ? (
        <div className="flex flex-wrap items-end gap-2">
          <div className="flex min-w-0 flex-1 flex-col gap-1.5">
            <Label htmlFor={`${id}-recherche`}>{t('structureChoice.search')}</Label>
            <Input
              id={`${id}-recherche`}
              name={STRUCTURE_SEARCH}
              type="search"
              maxLength={100}
              defaultValue={recherche}
            />
          </div>
          <ChoiceReloadButton intent={intent}>{t('structureChoice.searchSubmit')}</ChoiceReloadButton>
        </div>
      ) : null}
      <SearchSelect
        id={id}
        name={name}
        label={label}
        options={listed.map((choice) => ({ value: String(choice.id), label: choice.nom }))}
        defaultValue={defaultValue}
        placeholder={placeholder}
        emptyMessage={emptyMessage}
        required={required}
        hint={hint}
        errors={errors}
        onQuery={onQuery}
        searching={searching}
      />
    </div>
  )
}
