import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { Link, useActionData, useLoaderData, useLocation } from '@remix-run/react'
import { Bot, KeyRound, Pencil, Plus, Send, UserCheck } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { AdminListPage } from '~/components/admin-list-page'
import { ConfirmPanel } from '~/components/confirm-dialog'
import { DataTable, type DataTableColumn } from '~/components/data-table'
import { ListEmptyState } from '~/components/empty-state'
import { RowDelete } from '~/components/row-delete'
import { RowPanelLink } from '~/components/row-panel-link'
import { SearchForm } from '~/components/search-form'
import {
  CREATE_SECTION,
  type CreateReplyChoices,
  DELETE_INTENT,
  EDIT_PANEL,
  EDIT_PARAM,
  HANDOVER_PANEL,
  HANDOVER_PARAM,
  HEIR_SEARCH_PARAM,
  RENEW_PANEL,
  RENEW_PARAM,
  RESPONSIBLE_PARAM,
  ROW,
  shownServiceSecret,
  TAKEOVER_PANEL,
  TAKEOVER_PARAM,
} from '~/features/machines/service-account'
import { EditPanel } from '~/features/machines/service-account-edit'
import { ServiceAccountCreate } from '~/features/machines/service-account-form'
import { HandOverPanel } from '~/features/machines/service-account-handover'
import { RenewPanel, ServiceSecretScreen } from '~/features/machines/service-account-secret'
import { TakeOverPanel } from '~/features/machines/service-account-takeover'
import { serviceAccountsAction, serviceAccountsData } from '~/features/machines/service-accounts.server'
import { requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { displayDateTime } from '~/lib/dates'
import { anchorId, FOCUS_FIELD, neighbourAnchor } from '~/lib/focus'
import { type FormReply, posted } from '~/lib/form'
import { pageTitle, titleMeta } from '~/lib/title'
import { urlWith } from '~/lib/url'
import type { ServiceAccount } from '../../worker-api/contract/machines/service-accounts'

export const handle: BreadcrumbHandle = { breadcrumb: 'nav.serviceAccounts' }
export const meta = titleMeta

/**
 * The service accounts of the admin's scope (README, For integrators): the programs that call the API
 * with client credentials, searched and paged by the API, each with its rights, scopes, client id,
 * secret or keys, last use and calls today, and the administrator it acts for (stopped once they no longer administer
 * its structure); created below the list (its credentials then shown once), given a new secret (`?secret=<id>`, shown
 * once), changed (`?modifier=<id>`), taken over (`?reprendre=<id>`), handed to another administrator of its structure (`?confier=<id>`) or deleted
 * after a confirmation; `?responsable=<user id>` keeps the accounts acting for one administrator.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const {
    auth,
    data: screen,
    t,
  } = await requireAdmin(request, context, { read: (auth) => serviceAccountsData(request, auth) })
  return data({ ...screen, title: pageTitle(t, t('serviceAccounts.title')) }, { headers: await auth.headers() })
}

export async function action({ request, context }: ActionFunctionArgs) {
  return serviceAccountsAction(request, await requireAdmin(request, context))
}

export default function ServiceAccounts() {
  const loaded = useLoaderData<typeof loader>()
  const answer = useActionData<typeof action>()
  const shown = shownServiceSecret(answer)
  if (shown) return <ServiceSecretScreen shown={shown} />
  return <ServiceAccountsList answer={answer as (FormReply & CreateReplyChoices) | undefined} {...loaded} />
}

function ServiceAccountsList({
  comptes,
  total,
  page,
  lastPage,
  q,
  actingFor,
  choices,
  withCode,
  renewing,
  takingOver,
  handingOver,
  editing,
  moi,
  constraint,
  answer,
}: ReturnType<typeof useLoaderData<typeof loader>> & { answer: (FormReply & CreateReplyChoices) | undefined }) {
  const { t } = useTranslation()
  const { search } = useLocation()
  const params = new URLSearchParams(search)
  const confirming =
    params.get('confirmer') === DELETE_INTENT ? comptes.find((c) => String(c.id) === params.get('id')) : undefined
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
  const failed = answer?.intent === DELETE_INTENT && answer.error ? answer : null
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

  return (
    <div className="flex flex-col gap-8">
      <AdminListPage
        title={t('serviceAccounts.title')}
        intro={t('serviceAccounts.intro')}
        create={{ to: `${urlWith(search, {})}#${CREATE_SECTION}`, icon: Plus, label: t('serviceAccounts.new') }}
        failure={
          failed?.error ? (
            <>
              <p className="font-medium">{t('serviceAccounts.actionImpossible', { nom: posted(failed, 'nom') })}</p>
              <p>{t(failed.error.key, failed.error.values)}</p>
            </>
          ) : null
        }
        panels={
          <>
            {confirming ? (
              <ConfirmPanel
                cancelHref={urlWith(search, { confirmer: null, id: null })}
                returnTo={anchorId('supprimer', confirming.id)}
                {...deleteTexts(confirming)}
                fields={deletion(confirming)}
              />
            ) : null}
            {editing ? (
              <EditPanel
                // A refusal comes back with what was posted: the panel shows it, on its fields.
                key={answer ? 'again' : 'new'}
                account={editing.account}
                withCode={withCode}
                constraint={editing.constraint}
                cancelHref={urlWith(search, { [EDIT_PARAM]: null })}
                returnTo={anchorId('modifier', editing.account.id)}
              />
            ) : null}
            {renewing ? (
              <RenewPanel
                // A refused proof comes back with its message: the panel shows it, what was ticked kept.
                key={answer ? 'again' : 'new'}
                account={renewing}
                withCode={withCode}
                cancelHref={urlWith(search, { [RENEW_PARAM]: null })}
                returnTo={anchorId('secret', renewing.id)}
              />
            ) : null}
            {takingOver ? (
              <TakeOverPanel
                key={answer ? 'again' : 'new'}
                account={takingOver}
                withCode={withCode}
                cancelHref={urlWith(search, { [TAKEOVER_PARAM]: null })}
                returnTo={anchorId('reprendre', takingOver.id)}
              />
            ) : null}
            {handingOver ? (
              <HandOverPanel
                key={answer ? 'again' : 'new'}
                account={handingOver.account}
                heirs={handingOver.heirs}
                total={handingOver.total}
                search={handingOver.search}
                withCode={withCode}
                cancelHref={urlWith(search, { [HANDOVER_PARAM]: null, [HEIR_SEARCH_PARAM]: null })}
                returnTo={anchorId('confier', handingOver.account.id)}
              />
            ) : null}
          </>
        }
        search={
          <div className="flex flex-col gap-3">
            <SearchForm label={t('serviceAccounts.search')} />
            {actingFor ? (
              <p className="text-sm">
                {t('serviceAccounts.actingForFilter')}{' '}
                <Link
                  to={urlWith(search, { [RESPONSIBLE_PARAM]: null, page: null })}
                  className="font-medium underline underline-offset-4"
                >
                  {t('serviceAccounts.showAll')}
                </Link>
              </p>
            ) : null}
          </div>
        }
        count={t('serviceAccounts.total', { count: total })}
        page={page}
        total={total}
      >
        <DataTable
          aria-label={t('serviceAccounts.title')}
          columns={columns}
          rows={comptes}
          rowKey={(account) => account.id}
          rowAnchor={ROW}
          empty={
            <ListEmptyState
              icon={Bot}
              lastPage={lastPage}
              page={page}
              total={total}
              title={t('serviceAccounts.empty')}
              description={q ? t('serviceAccounts.emptySearch', { q }) : t('serviceAccounts.emptyHint')}
            />
          }
        />
      </AdminListPage>
      <ServiceAccountCreate choices={answer?.choices ?? choices} withCode={withCode} constraint={constraint} />
    </div>
  )
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
