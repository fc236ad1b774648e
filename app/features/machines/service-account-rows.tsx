import type { TFunction } from 'i18next'
import { KeyRound, Pencil, Send, UserCheck } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import type { DataTableColumn } from '~/components/data-table'
import { RowDelete } from '~/components/row-delete'
import { RowPanelLink } from '~/components/row-panel-link'
import { displayDateTime } from '~/lib/dates'
import { anchorId, FOCUS_FIELD, neighbourAnchor } from '~/lib/focus'
import { urlWith } from '~/lib/url'
import type { ServiceAccount } from '../../../worker-api/contract/machines/service-accounts'
import {
  DELETE_INTENT,
  EDIT_PANEL,
  EDIT_PARAM,
  HANDOVER_PANEL,
  HANDOVER_PARAM,
  HEIR_SEARCH_PARAM,
  RENEW_PANEL,
  RENEW_PARAM,
  ROW,
  TAKEOVER_PANEL,
  TAKEOVER_PARAM,
} from './service-account'

/**
 * The rows of the service accounts' list (routes/pages.admin.comptesService.tsx): its columns, narrower screens
 * carrying the hidden ones under the name, and each row's actions (a panel of the page each, or a confirmed deletion);
 * `deletion` and `deleteTexts` are also the page's confirmation panel without JavaScript.
 */
export function serviceAccountRows(
  t: TFunction,
  { search, comptes, moi }: { search: string; comptes: ServiceAccount[]; moi: number },
) {
  const deletion = (account: ServiceAccount) => ({
    intent: DELETE_INTENT,
    id: String(account.id),
    nom: account.nom,
    [FOCUS_FIELD]: neighbourAnchor(comptes, account, ROW),
  })
  const deleteTexts = (account: ServiceAccount) => ({
    title: t('serviceAccounts.deleteTitle', { nom: account.nom }),
    description: t('serviceAccounts.deleteConfirm'),
    confirmLabel: t('serviceAccounts.delete'),
    pendingLabel: t('serviceAccounts.deleting'),
  })
  // A row's panel link: that panel open, the others closed.
  const panelLink = (param: string, account: ServiceAccount, panel: string) =>
    `${urlWith(search, {
      [TAKEOVER_PARAM]: null,
      [RENEW_PARAM]: null,
      [HANDOVER_PARAM]: null,
      [HEIR_SEARCH_PARAM]: null,
      [EDIT_PARAM]: null,
      confirmer: null,
      id: null,
      [param]: String(account.id),
    })}#${panel}`

  const columns: DataTableColumn<ServiceAccount>[] = [
    {
      id: 'nom',
      header: t('serviceAccounts.nom'),
      className: 'break-words',
      cell: (account) => (
        <>
          <span className="block font-medium">{account.nom}</span>
          {account.actif ? null : (
            <span className="mt-1 block w-fit rounded-full border border-destructive px-2 py-0.5 text-xs font-medium text-destructive">
              {t('serviceAccounts.off')}
            </span>
          )}
          {account.description ? <span className="block text-muted-foreground">{account.description}</span> : null}
          {/* Narrower, the columns hidden ride under the name. */}
          <span className="block text-muted-foreground md:hidden">{account.structure.nom}</span>
          <span className="mt-1 block lg:hidden">
            <Rights account={account} />
          </span>
          <span className="mt-1 block">
            <Responsible account={account} />
          </span>
          <span className="mt-1 block xl:hidden">
            <Credentials account={account} />
          </span>
          <span className="mt-1 block text-xs sm:hidden">
            <Usage account={account} />
          </span>
        </>
      ),
    },
    {
      id: 'structure',
      header: t('serviceAccounts.structure'),
      className: 'hidden md:table-cell break-words',
      cell: (account) => account.structure.nom,
    },
    {
      id: 'droits',
      header: t('serviceAccounts.rights'),
      className: 'hidden lg:table-cell',
      cell: (account) => <Rights account={account} />,
    },
    {
      id: 'client',
      header: t('serviceAccounts.clientId'),
      className: 'hidden xl:table-cell',
      cell: (account) => <Credentials account={account} />,
    },
    {
      id: 'usage',
      header: t('serviceAccounts.lastUse'),
      className: 'hidden sm:table-cell',
      cell: (account) => <Usage account={account} />,
    },
    {
      id: 'actions',
      header: <span className="sr-only">{t('serviceAccounts.actions')}</span>,
      cell: (account) => (
        <div className="flex flex-wrap justify-end gap-1">
          <RowPanelLink
            id={anchorId('modifier', account.id)}
            to={panelLink(EDIT_PARAM, account, EDIT_PANEL)}
            icon={Pencil}
            label={t('serviceAccounts.editLabel', { nom: account.nom })}
            text={t('serviceAccounts.edit')}
          />
          {account.responsable?.id !== moi ? (
            <RowPanelLink
              id={anchorId('reprendre', account.id)}
              to={panelLink(TAKEOVER_PARAM, account, TAKEOVER_PANEL)}
              icon={UserCheck}
              label={t('serviceAccounts.takeOverLabel', { nom: account.nom })}
              text={t('serviceAccounts.takeOver')}
              variant={account.suspendu ? 'outline' : 'ghost'}
            />
          ) : null}
          <RowPanelLink
            id={anchorId('confier', account.id)}
            to={panelLink(HANDOVER_PARAM, account, HANDOVER_PANEL)}
            icon={Send}
            label={t('serviceAccounts.handOverLabel', { nom: account.nom })}
            text={t('serviceAccounts.handOver')}
          />
          {account.secret ? (
            <RowPanelLink
              id={anchorId('secret', account.id)}
              to={panelLink(RENEW_PARAM, account, RENEW_PANEL)}
              icon={KeyRound}
              label={t('serviceAccounts.renewLabel', { nom: account.nom })}
              text={t('serviceAccounts.renew')}
            />
          ) : null}
          <RowDelete
            anchor="supprimer"
            id={account.id}
            search={search}
            reset={{
              [RENEW_PARAM]: null,
              [TAKEOVER_PARAM]: null,
              [HANDOVER_PARAM]: null,
              [HEIR_SEARCH_PARAM]: null,
              [EDIT_PARAM]: null,
            }}
            {...deleteTexts(account)}
            fields={deletion(account)}
            word={t('serviceAccounts.delete')}
            name={t('serviceAccounts.deleteLabel', { nom: account.nom })}
          />
        </div>
      ),
    },
  ]
  return { columns, deletion, deleteTexts }
}

/** Administrator or read-only, and the scopes its tokens may carry. */
function Rights({ account }: { account: ServiceAccount }) {
  const { t } = useTranslation()
  return (
    <span className="flex flex-col gap-1">
      <span className={account.admin ? 'font-medium' : undefined}>
        {t(account.admin ? 'serviceAccounts.admin' : 'serviceAccounts.readOnly')}
      </span>
      <span className="flex flex-wrap gap-1">
        {account.scopes.map((scope) => (
          <span key={scope} className="rounded-full border px-2 py-0.5 text-xs text-muted-foreground">
            {t(`serviceAccounts.scope.${scope}`)}
          </span>
        ))}
      </span>
    </span>
  )
}

/** The administrator it acts for, and whether it is stopped because they no longer administer its structure. */
function Responsible({ account }: { account: ServiceAccount }) {
  const { t } = useTranslation()
  const who = account.responsable
  return (
    <span className="flex flex-col gap-0.5 text-xs">
      <span className="text-muted-foreground">
        {who
          ? t('serviceAccounts.actsFor', { nom: [who.prenom, who.nom].filter(Boolean).join(' ') })
          : t('serviceAccounts.actsForNobody')}
      </span>
      {account.suspendu ? (
        <span className="flex flex-col gap-0.5">
          <span className="w-fit rounded-full border border-destructive px-2 py-0.5 font-medium text-destructive">
            {t('serviceAccounts.suspended')}
          </span>
          <span className="text-muted-foreground">{t('serviceAccounts.suspendedHint')}</span>
        </span>
      ) : null}
    </span>
  )
}

/** Its client id, and how it proves itself: a secret (and the former one while it still works), or keys. */
function Credentials({ account }: { account: ServiceAccount }) {
  const { t } = useTranslation()
  return (
    <span className="flex flex-col gap-0.5 text-xs">
      <code className="break-all">{account.clientId}</code>
      <span className="text-muted-foreground">
        {[
          account.secret ? t('serviceAccounts.withSecret') : null,
          account.cles > 0 ? t('serviceAccounts.keys', { count: account.cles }) : null,
        ]
          .filter(Boolean)
          .join(' · ')}
      </span>
      {account.ancienSecretExpire ? (
        <span className="text-muted-foreground">
          {t('serviceAccounts.previousUntil', { date: displayDateTime(account.ancienSecretExpire) })}
        </span>
      ) : null}
    </span>
  )
}

/** Its last call and its calls today, or that it never called. */
function Usage({ account }: { account: ServiceAccount }) {
  const { t } = useTranslation()
  if (!account.derniereUtilisation) return <span>{t('serviceAccounts.never')}</span>
  return (
    <span className="flex flex-col gap-0.5">
      <span className="whitespace-nowrap tabular-nums">{displayDateTime(account.derniereUtilisation)}</span>
      <span className="text-muted-foreground">{t('serviceAccounts.callsToday', { count: account.appelsJour })}</span>
    </span>
  )
}
