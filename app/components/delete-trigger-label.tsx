import { Trash2 } from 'lucide-react'

/**
 * What a row's delete button shows: the bin, the visible word alone on wider screens (the row says
 * whose), and the whole name for screen readers. Small screens show the bin only, from `sm` in a
 * narrow panel, from `lg` in a table.
 */
export function DeleteTriggerLabel({ word, name, from = 'lg' }: { word: string; name: string; from?: 'sm' | 'lg' }) {
  return (
    <>
      <Trash2 aria-hidden />
      <span className="sr-only">{name}</span>
      <span aria-hidden className={from === 'sm' ? 'hidden sm:inline' : 'hidden lg:inline'}>
        {word}
      </span>
    </>
  )
}
