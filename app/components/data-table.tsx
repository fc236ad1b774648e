import { Link, useLocation } from '@remix-run/react'
import { ArrowDown, ArrowUp, ArrowUpDown } from 'lucide-react'
import type * as React from 'react'
import { Fragment } from 'react'
import { useTranslation } from 'react-i18next'
import { anchorId } from '~/lib/focus'
import { nextSort, PAGE_PARAM, SORT_PARAM, sortDirection, urlWith } from '~/lib/url'
import { cn } from '~/lib/utils'
import { Table, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from './ui/table'

export type DataTableColumn<Row> = {
  /** Unique among the columns (the React key). */
  id: string
  header: React.ReactNode
  /** The sort param value for this column (`?tri=<sort>`, `?tri=-<sort>`): its header becomes a link. */
  sort?: string
  cell: (row: Row) => React.ReactNode
  /** Classes for the column's header and cells alike, e.g. `tabular-nums` or `text-right`. */
  className?: string
}

/**
 * A table whose sort lives in the URL (`?tri=<key>`, `?tri=-<key>`): headers are links, so sorting works without
 * JavaScript, and the loader sorts in SQL (`readSort`). With no rows, `empty` replaces the table.
 */
export function DataTable<Row>({
  columns,
  rows,
  rowKey,
  empty,
  caption,
  defaultSort,
  sortParam = SORT_PARAM,
  pageParam = PAGE_PARAM,
  className,
  rowClassName,
  rowAnchor,
  details,
  ...labelling
}: {
  columns: DataTableColumn<Row>[]
  rows: Row[]
  rowKey: (row: Row) => string | number
  /**
   * The prefix of the rows' ids (`utilisateur` gives `utilisateur-7`), for a form that names the row
   * taking a removed one's place as where the focus goes back (`FOCUS_FIELD`).
   */
  rowAnchor?: string
  /** Classes of a row, from what it holds (a deleted user in the danger colour…). */
  rowClassName?: (row: Row) => string | undefined
  /**
   * An expandable row (`ExpandToggle` in one of its cells opens it): the detail shown below it over
   * the whole width while it is open, by the id `detailsId(key)`.
   */
  details?: { render: (row: Row) => React.ReactNode; isOpen: (row: Row) => boolean }
  empty?: React.ReactNode
  caption?: React.ReactNode
  /** How the loader sorts when the URL says nothing, e.g. `nom` or `-date`: shown on that header. */
  defaultSort?: string
  sortParam?: string
  pageParam?: string
  className?: string
  'aria-label'?: string
  'aria-labelledby'?: string
  /** While the rows are being replaced (a new search or page loading): assistive technologies wait. */
  'aria-busy'?: boolean
}) {
  const { search } = useLocation()
  if (rows.length === 0) return <>{empty ?? null}</>
  const current = new URLSearchParams(search).get(sortParam) || defaultSort || null
  return (
    <Table className={className} {...labelling}>
      {caption ? <TableCaption>{caption}</TableCaption> : null}
      <TableHeader>
        <TableRow>
          {columns.map((column) => (
            <TableHead
              key={column.id}
              className={column.className}
              aria-sort={column.sort ? sortDirection(current, column.sort) : undefined}
            >
              {column.sort ? (
                <SortLink
                  to={urlWith(search, { [sortParam]: nextSort(current, column.sort), [pageParam]: null })}
                  direction={sortDirection(current, column.sort)}
                >
                  {column.header}
                </SortLink>
              ) : (
                column.header
              )}
            </TableHead>
          ))}
        </TableRow>
      </TableHeader>
      <TableBody>
        {rows.map((row) => {
          const key = rowKey(row)
          const open = details?.isOpen(row) ?? false
          return (
            <Fragment key={key}>
              <TableRow id={rowAnchor ? anchorId(rowAnchor, key) : undefined} className={rowClassName?.(row)}>
                {columns.map((column) => (
                  <TableCell key={column.id} className={column.className}>
                    {column.cell(row)}
                  </TableCell>
                ))}
              </TableRow>
              {details ? (
                <TableRow id={detailsId(key)} hidden={!open} className={cn(rowClassName?.(row), 'hover:bg-inherit')}>
                  <TableCell colSpan={columns.length} className="pt-0">
                    {open ? details.render(row) : null}
                  </TableCell>
                </TableRow>
              ) : null}
            </Fragment>
          )
        })}
      </TableBody>
    </Table>
  )
}

/** The id of a row's detail row, for the `aria-controls` of its toggle. */
export const detailsId = (key: string | number) => `details-${key}`

function SortLink({
  to,
  direction,
  children,
}: {
  to: string
  direction: 'ascending' | 'descending' | undefined
  children: React.ReactNode
}) {
  const { t } = useTranslation()
  const Icon = direction === 'ascending' ? ArrowUp : direction === 'descending' ? ArrowDown : ArrowUpDown
  return (
    // The list stays where it was on screen when only its order changes.
    <Link
      to={to}
      preventScrollReset
      className="-mx-1 inline-flex items-center gap-1 rounded-sm px-1 hover:text-foreground hover:underline underline-offset-4"
    >
      {children}
      {/* The link's name says what it does; `aria-sort` on the header says what is. */}
      <span className="sr-only">
        {' '}
        ({t(direction === 'ascending' ? 'table.sortDescending' : 'table.sortAscending')})
      </span>
      <Icon aria-hidden className={cn('size-3.5 shrink-0', !direction && 'opacity-50')} />
    </Link>
  )
}
