import type { TFunction } from 'i18next'
import { Pencil } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import type { DataTableColumn } from '~/components/data-table'
import { RowDelete } from '~/components/row-delete'
import { RowPanelLink } from '~/components/row-panel-link'
import { anchorId, FOCUS_FIELD, neighbourAnchor } from '~/lib/focus'
import { urlWith } from '~/lib/url'
import type { Fournisseur } from '../../../worker-api/contract/federation/providers'
import { DELETE_INTENT, EDIT_PANEL, EDIT_PARAM, ROW } from './provider'

/**
 * The rows of the identity providers' list (routes/pages.admin.fournisseurs.tsx): its columns, narrower screens
 * carrying the hidden ones under the name, and each row's actions (its edit panel, or a confirmed deletion);
 * `deletion` and `deleteTexts` are also the page's confirmation panel without JavaScript.
 */
export function providerRows(t: TFunction, { search, fournisseurs }: { search: string; fournisseurs: Fournisseur[] }) {
  const deletion = (provider: Fournisseur) => ({
    intent: DELETE_INTENT,
    id: String(provider.id),
    nom: provider.nom,
    [FOCUS_FIELD]: neighbourAnchor(fournisseurs, provider, ROW),
  })
  const deleteTexts = (provider: Fournisseur) => ({
    title: t('fournisseurs.deleteTitle', { nom: provider.nom }),
    description:
      provider.liens === 0
        ? t('fournisseurs.deleteConfirmNone')
        : t('fournisseurs.deleteConfirm', { count: provider.liens }),
    confirmLabel: t('fournisseurs.delete'),
    pendingLabel: t('fournisseurs.deleting'),
  })
  const editLink = (provider: Fournisseur) =>
    `${urlWith(search, { confirmer: null, id: null, [EDIT_PARAM]: String(provider.id) })}#${EDIT_PANEL}`

  const columns: DataTableColumn<Fournisseur>[] = [
    {
      id: 'nom',
      header: t('fournisseurs.nom'),
      sort: 'nom',
      className: 'break-words',
      cell: (provider) => (
        <>
          <span className="block font-medium">{provider.nom}</span>
          <span className="mt-1 flex flex-wrap gap-1">
            <State provider={provider} />
            {provider.affiche ? (
              <span className="w-fit rounded-full border px-2 py-0.5 text-xs text-muted-foreground">
                {t('fournisseurs.shownBadge')}
              </span>
            ) : null}
          </span>
          {/* Narrower, the columns hidden ride under the name. */}
          <span className="mt-1 block break-all text-xs text-muted-foreground md:hidden">{provider.issuer}</span>
          <span className="mt-1 block lg:hidden">
            <Domains provider={provider} />
          </span>
          <span className="mt-1 block text-xs xl:hidden">
            <Rule provider={provider} />
          </span>
          <span className="mt-1 block text-xs text-muted-foreground sm:hidden">
            {t('fournisseurs.liensCount', { count: provider.liens })}
          </span>
        </>
      ),
    },
    {
      id: 'issuer',
      header: t('fournisseurs.issuerColumn'),
      sort: 'issuer',
      className: 'hidden md:table-cell break-all text-muted-foreground',
      cell: (provider) => provider.issuer,
    },
    {
      id: 'domaines',
      header: t('fournisseurs.domainesColumn'),
      className: 'hidden lg:table-cell',
      cell: (provider) => <Domains provider={provider} />,
    },
    {
      id: 'premiereConnexion',
      header: t('fournisseurs.ruleColumn'),
      className: 'hidden xl:table-cell',
      cell: (provider) => <Rule provider={provider} />,
    },
    {
      id: 'liens',
      header: t('fournisseurs.liens'),
      className: 'hidden sm:table-cell tabular-nums text-right',
      cell: (provider) => provider.liens,
    },
    {
      id: 'actions',
      header: <span className="sr-only">{t('fournisseurs.actions')}</span>,
      cell: (provider) => (
        <div className="flex flex-wrap justify-end gap-1">
          <RowPanelLink
            id={anchorId('modifier', provider.id)}
            to={editLink(provider)}
            icon={Pencil}
            label={t('fournisseurs.editLabel', { nom: provider.nom })}
            text={t('fournisseurs.edit')}
          />
          <RowDelete
            anchor="supprimer"
            id={provider.id}
            search={search}
            reset={{ [EDIT_PARAM]: null }}
            {...deleteTexts(provider)}
            fields={deletion(provider)}
            word={t('fournisseurs.delete')}
            name={t('fournisseurs.deleteLabel', { nom: provider.nom })}
          />
        </div>
      ),
    },
  ]
  return { columns, deletion, deleteTexts }
}

/** On or switched off (its sign-ins refused). */
function State({ provider }: { provider: Fournisseur }) {
  const { t } = useTranslation()
  return provider.actif ? (
    <span className="w-fit rounded-full border border-primary/50 px-2 py-0.5 text-xs font-medium">
      {t('fournisseurs.on')}
    </span>
  ) : (
    <span className="w-fit rounded-full border border-destructive px-2 py-0.5 text-xs font-medium text-destructive">
      {t('fournisseurs.off')}
    </span>
  )
}

/** The mail domains it answers for, or that it answers for none (its button alone leads there). */
function Domains({ provider }: { provider: Fournisseur }) {
  const { t } = useTranslation()
  if (provider.domaines.length === 0) {
    return <span className="text-xs text-muted-foreground">{t('fournisseurs.noDomain')}</span>
  }
  return (
    <span className="flex flex-wrap gap-1">
      {provider.domaines.map((domaine) => (
        <span key={domaine} className="break-all rounded-full border px-2 py-0.5 text-xs">
          {domaine}
        </span>
      ))}
    </span>
  )
}

/** What a first sign-in does, and where registrations wait. */
function Rule({ provider }: { provider: Fournisseur }) {
  const { t } = useTranslation()
  return (
    <span className="flex flex-col gap-0.5">
      <span>{t(`fournisseurs.rule.${provider.premiereConnexion}`)}</span>
      {provider.premiereConnexion === 'INSCRIRE' && provider.structure ? (
        <span className="text-xs text-muted-foreground">
          {t('fournisseurs.waitsIn', { structure: provider.structure.nom })}
        </span>
      ) : null}
    </span>
  )
}
