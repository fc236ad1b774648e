import { Trash2 } from 'lucide-react'
import { anchorId } from '~/lib/focus'
import { urlWith } from '~/lib/url'
import { type Confirmation, ConfirmDialog } from './confirm-dialog'

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

/**
 * A list row's delete (or refusal), after a confirmation: a dialog once the page is live, else the
 * page again with `?confirmer=<confirm>&id=<id>` (and `reset`'s parameters dropped), which shows the
 * confirmation panel. The trigger's id (`<anchor>-<id>`) is where focus comes back.
 */
export function RowDelete({
  anchor,
  confirm = anchor,
  id,
  search,
  reset = {},
  word,
  name,
  from,
  onPage,
  ...confirmation
}: Confirmation & {
  anchor: string
  confirm?: string
  id: number
  search: URLSearchParams | string
  reset?: Record<string, null>
  word: string
  name: string
  from?: 'sm' | 'lg'
  /** The page's panel confirms, with JavaScript too (`ConfirmDialog`'s `onPage`), at `#<panel>`. */
  onPage?: { panel: string }
}) {
  const fallbackHref = urlWith(search, { confirmer: confirm, id: String(id), ...reset })
  return (
    <ConfirmDialog
      id={anchorId(anchor, id)}
      fallbackHref={onPage ? `${fallbackHref}#${onPage.panel}` : fallbackHref}
      onPage={onPage !== undefined}
      {...confirmation}
      triggerVariant="ghost"
      triggerClassName="text-destructive"
    >
      <DeleteTriggerLabel word={word} name={name} from={from} />
    </ConfirmDialog>
  )
}
