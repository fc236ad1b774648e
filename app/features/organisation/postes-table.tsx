import { BriefcaseBusiness } from 'lucide-react'
import type * as React from 'react'
import { useId } from 'react'
import { useTranslation } from 'react-i18next'
import { DataTable, type DataTableColumn } from '~/components/data-table'
import { EmptyState } from '~/components/empty-state'
import type { Poste } from '../../../worker-api/contract/organisation/user'

/**
 * One list of posts under its heading, the same heading whether the list is empty or not (the
 * profile's current and future posts); `actions` adds a last column (an administrator's delete).
 */
export function PostesTable({
  caption,
  postes,
  actions,
  rowAnchor,
}: {
  caption: string
  postes: Poste[]
  actions?: { header: string; cell: (poste: Poste) => React.ReactNode }
  /** The prefix of the rows' ids, when a form names a row as where focus goes back. */
  rowAnchor?: string
}) {
  const { t } = useTranslation()
  const id = useId()
  const columns: DataTableColumn<Poste>[] = [
    {
      id: 'structure',
      header: t('profile.structure'),
      cell: (poste) => (
        <>
          {poste.structure.nom}
          {/* Narrower, the function rides under the structure and the end under the start. */}
          <span className="block text-muted-foreground sm:hidden">{poste.fonction.libelle}</span>
        </>
      ),
    },
    {
      id: 'fonction',
      header: t('profile.fonction'),
      className: 'hidden sm:table-cell',
      cell: (poste) => poste.fonction.libelle,
    },
    {
      id: 'dateDebut',
      header: (
        <>
          <span className="md:hidden">{t('profile.period')}</span>
          <span className="hidden md:inline">{t('profile.dateDebut')}</span>
        </>
      ),
      cell: (poste) => (
        <>
          <span className="whitespace-nowrap">{poste.dateDebut}</span>
          <span className="block whitespace-nowrap md:hidden">– {poste.dateFin}</span>
        </>
      ),
      className: 'tabular-nums',
    },
    {
      id: 'dateFin',
      header: t('profile.dateFin'),
      cell: (poste) => poste.dateFin,
      className: 'hidden md:table-cell tabular-nums',
    },
    ...(actions
      ? [
          {
            id: 'actions',
            header: <span className="sr-only">{actions.header}</span>,
            cell: actions.cell,
            className: 'text-right',
          },
        ]
      : []),
  ]
  return (
    <section aria-labelledby={id} className="flex flex-col gap-2">
      <h3 id={id} className="text-sm font-medium">
        {caption}
      </h3>
      <DataTable
        aria-labelledby={id}
        columns={columns}
        rows={postes}
        rowKey={(poste) => poste.id}
        rowAnchor={rowAnchor}
        empty={<EmptyState compact icon={BriefcaseBusiness} title={t('profile.noPoste')} />}
      />
    </section>
  )
}
