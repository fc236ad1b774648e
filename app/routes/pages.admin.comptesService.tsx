import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { Link, useActionData, useLoaderData, useLocation } from '@remix-run/react'
import { Bot, Plus } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { AdminListPage } from '~/components/admin-list-page'
import { ConfirmPanel } from '~/components/confirm-dialog'
import { DataTable } from '~/components/data-table'
import { EmptyState } from '~/components/empty-state'
import { SearchForm } from '~/components/search-form'
import {
  CREATE_SECTION,
  type CreateReplyChoices,
  DELETE_INTENT,
  EDIT_PARAM,
  HANDOVER_PARAM,
  HEIR_SEARCH_PARAM,
  RENEW_PARAM,
  RESPONSIBLE_PARAM,
  ROW,
  shownServiceSecret,
  TAKEOVER_PARAM,
} from '~/features/machines/service-account'
import { EditPanel } from '~/features/machines/service-account-edit'
import { ServiceAccountCreate } from '~/features/machines/service-account-form'
import { HandOverPanel } from '~/features/machines/service-account-handover'
import { serviceAccountRows } from '~/features/machines/service-account-rows'
import { RenewPanel, ServiceSecretScreen } from '~/features/machines/service-account-secret'
import { TakeOverPanel } from '~/features/machines/service-account-takeover'
import { serviceAccountsAction, serviceAccountsData } from '~/features/machines/service-accounts.server'
import { requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { anchorId } from '~/lib/focus'
import { type FormReply, posted } from '~/lib/form'
import { pageTitle, titleMeta } from '~/lib/title'
import { urlWith } from '~/lib/url'

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
  const { columns, deletion, deleteTexts } = serviceAccountRows(t, { search, comptes, moi })
  const failed = answer?.intent === DELETE_INTENT && answer.error ? answer : null
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
            <EmptyState
              icon={Bot}
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
