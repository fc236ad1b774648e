import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { Form, Link, useActionData, useLoaderData, useLocation } from '@remix-run/react'
import { ChevronDown, ChevronRight, Eye, RotateCcw, UserPlus, Users } from 'lucide-react'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { AdminListPage } from '~/components/admin-list-page'
import { ConfirmPanel } from '~/components/confirm-dialog'
import { DataTable, type DataTableColumn, detailsId } from '~/components/data-table'
import { EmptyState } from '~/components/empty-state'
import { RowDelete } from '~/components/row-delete'
import { SearchForm } from '~/components/search-form'
import { Button, buttonVariants } from '~/components/ui/button'
import { stoppingAccounts } from '~/features/organisation/stopping-accounts.server'
import { StoppingAccountsNote } from '~/features/organisation/stopping-accounts-note'
import { USER_FILTERS, UserFilters } from '~/features/organisation/user-filters'
import { fullName, hasPosition, UserBadges, UserDetails } from '~/features/organisation/user-row'
import { apiMessage } from '~/lib/api-errors'
import { requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { anchorId, FOCUS_FIELD, neighbourAnchor } from '~/lib/focus'
import { usePendingIntent } from '~/lib/form'
import { focusFragment, formReply, readForm, rowAction, submitted } from '~/lib/form.server'
import { useHydrated } from '~/lib/hydrated'
import { listQuery } from '~/lib/pagination'
import { pageTitle, titleMeta } from '~/lib/title'
import { pathWithout, urlWith } from '~/lib/url'
import type { User } from '../../worker-api/contract/organisation/user'
import { USER_SORTS } from '../../worker-api/contract/organisation/user-admin'

export const handle: BreadcrumbHandle = { breadcrumb: 'nav.manageUsers' }
export const meta = titleMeta

const readFlag = (value: string | null) => (value === 'true' || value === 'false' ? value : undefined)

/** The deletion's panel: an administrator's row leads there, with JavaScript too, for the accounts it stops. */
const DELETE_PANEL = 'confirmer-suppression'

/**
 * Spec §2 admin/listeUtilisateurs: the scope's users, filtered, searched, sorted and paged by the API. A deletion being
 * confirmed (`?confirmer=supprimer&id=`) reads, beside the page, the service accounts that act for that user and would
 * stop.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const params = new URL(request.url).searchParams
  const flags = Object.fromEntries(
    USER_FILTERS.flatMap((name) => (readFlag(params.get(name)) ? [[name, params.get(name)]] : [])),
  )
  const query = { ...listQuery(params, USER_SORTS), ...flags }
  const confirmed = Number(params.get('id'))
  const deleting = params.get('confirmer') === 'supprimer' && Number.isSafeInteger(confirmed) && confirmed > 0
  const {
    auth,
    data: [{ items, total }, stopping],
    t,
  } = await requireAdmin(request, context, {
    read: (auth) =>
      Promise.all([
        auth.expectPage(auth.api.rest.bd.utilisateur.liste.$get({ query })),
        deleting ? stoppingAccounts(auth, confirmed) : Promise.resolve(null),
      ]),
  })
  return data(
    { users: items, total, page: query.page, q: query.q ?? '', stopping, title: pageTitle(t, t('nav.manageUsers')) },
    { headers: await auth.headers() },
  )
}

/** The per-row delete (after its confirmation) and restore. */
export async function action({ request, context }: ActionFunctionArgs) {
  const auth = await requireAdmin(request, context)
  const form = await readForm(request)
  const submission = submitted(form)
  const nom = String(form.get('nom') ?? '')
  const row = rowAction(form, ['supprimer', 'retablir'])
  if (!row) return formReply('', submission.reply(), { key: 'errors.technical' }, await auth.headers())
  const { intent, id } = row
  const param = { param: { id } }
  const result = await auth.settle(
    intent === 'supprimer'
      ? auth.api.rest.bd.utilisateur.suppression[':id'].$delete(param)
      : auth.api.rest.bd.utilisateur.retablir[':id'].$delete(param),
  )
  if (!result.ok) {
    return formReply(intent, submission.reply(), apiMessage(result, 'errors.updateFailed'), await auth.headers())
  }
  return auth.redirectWithToast(`${pathWithout(request.url, ['confirmer', 'id'])}${focusFragment(form)}`, {
    type: 'success',
    key: intent === 'supprimer' ? 'users.deleted' : 'users.restored',
    values: { nom },
  })
}

/** The prefix of the rows' ids (`utilisateur-7`). */
const ROW = 'utilisateur'

export default function UserList() {
  const { users, total, page, q, stopping } = useLoaderData<typeof loader>()
  const failure = useActionData<typeof action>()
  const { search } = useLocation()
  const { t } = useTranslation()
  const hydrated = useHydrated()
  const restoring = usePendingIntent('retablir')
  const params = new URLSearchParams(search)
  // Without JavaScript a row opens through the URL (?detail=), with it in place.
  const [opened, setOpened] = useState<Set<number>>(() => new Set([Number(params.get('detail'))]))
  const isOpen = (user: User) => opened.has(user.id)
  const toggle = (user: User) =>
    setOpened((now) => {
      const next = new Set(now)
      if (!next.delete(user.id)) next.add(user.id)
      return next
    })
  const confirming =
    params.get('confirmer') === 'supprimer' ? users.find((u) => String(u.id) === params.get('id')) : undefined
  const cancelHref = urlWith(search, { confirmer: null, id: null })
  /**
   * Where focus goes back after a delete or a restore (without JavaScript): to the row's other button
   * when the list still shows the row, to the row that took its place when the filter hides it now.
   */
  const focusAfter = (user: User, intent: 'supprimer' | 'retablir') => {
    const hidden = params.get('supprime') === (intent === 'supprimer' ? 'false' : 'true')
    return hidden
      ? neighbourAnchor(users, user, ROW)
      : anchorId(intent === 'supprimer' ? 'retablir' : 'supprimer', user.id)
  }
  const deletion = (user: User) => ({
    intent: 'supprimer',
    id: String(user.id),
    nom: fullName(user),
    [FOCUS_FIELD]: focusAfter(user, 'supprimer'),
  })

  const columns: DataTableColumn<User>[] = [
    {
      id: 'nom',
      header: t('users.nom'),
      sort: 'nom',
      cell: (user) => {
        const Icon = isOpen(user) ? ChevronDown : ChevronRight
        const label = t(isOpen(user) ? 'users.collapse' : 'users.expand', { nom: fullName(user) })
        const content = (
          <>
            <Icon aria-hidden className="size-4 shrink-0" />
            <span className="font-medium">{user.nom}</span>
          </>
        )
        const className = 'inline-flex items-center gap-1 rounded-sm text-left hover:underline underline-offset-4'
        return hydrated ? (
          <button
            type="button"
            onClick={() => toggle(user)}
            aria-expanded={isOpen(user)}
            aria-controls={detailsId(user.id)}
            aria-label={label}
            className={className}
          >
            {content}
          </button>
        ) : (
          <Link
            to={urlWith(search, { detail: isOpen(user) ? null : String(user.id) })}
            preventScrollReset
            aria-label={label}
            className={className}
          >
            {content}
          </Link>
        )
      },
    },
    { id: 'prenom', header: t('users.prenom'), sort: 'prenom', cell: (user) => user.prenom },
    {
      id: 'mail',
      header: t('users.mail'),
      sort: 'mail',
      className: 'hidden md:table-cell break-all',
      cell: (user) => user.mail,
    },
    {
      id: 'etat',
      header: t('users.state'),
      className: 'hidden sm:table-cell',
      cell: (user) => <UserBadges user={user} />,
    },
    {
      id: 'actions',
      header: <span className="sr-only">{t('users.actions')}</span>,
      cell: (user) => (
        <div className="flex flex-wrap justify-end gap-1">
          <Link
            to={`/pages/admin/detail/user/${user.id}`}
            className={buttonVariants({ variant: 'ghost', size: 'sm' })}
            aria-label={t('users.openLabel', { nom: fullName(user) })}
          >
            <Eye aria-hidden />
            <span className="hidden lg:inline">{t('users.open')}</span>
          </Link>
          {user.modification && user.supprime ? (
            <Form method="post" preventScrollReset>
              <input type="hidden" name="intent" value="retablir" />
              <input type="hidden" name="id" value={user.id} />
              <input type="hidden" name="nom" value={fullName(user)} />
              <input type="hidden" name={FOCUS_FIELD} value={focusAfter(user, 'retablir')} />
              <Button
                id={anchorId('retablir', user.id)}
                type="submit"
                variant="ghost"
                size="sm"
                disabled={restoring}
                aria-label={t('users.restoreLabel', { nom: fullName(user) })}
              >
                <RotateCcw aria-hidden />
                <span className="hidden lg:inline">{t('users.restore')}</span>
              </Button>
            </Form>
          ) : null}
          {user.modification && !user.supprime ? (
            <RowDelete
              anchor="supprimer"
              id={user.id}
              search={search}
              title={t('users.deleteTitle', { nom: fullName(user) })}
              description={t('users.deleteConfirm')}
              confirmLabel={t('users.delete')}
              pendingLabel={t('users.deleting')}
              fields={deletion(user)}
              word={t('users.delete')}
              name={t('users.deleteLabel', { nom: fullName(user) })}
              // An administrator's deletion stops the service accounts acting for them: its panel names them.
              onPage={user.admin ? { panel: DELETE_PANEL } : undefined}
            />
          ) : null}
        </div>
      ),
    },
  ]

  return (
    <AdminListPage
      title={t('nav.manageUsers')}
      intro={t('users.intro')}
      create={{ to: '/pages/admin/user/new', icon: UserPlus, label: t('users.create') }}
      failure={failure?.error ? <p>{t(failure.error.key, failure.error.values)}</p> : null}
      panels={
        confirming ? (
          <ConfirmPanel
            id={DELETE_PANEL}
            cancelHref={cancelHref}
            returnTo={anchorId('supprimer', confirming.id)}
            title={t('users.deleteTitle', { nom: fullName(confirming) })}
            description={t('users.deleteConfirm')}
            confirmLabel={t('users.delete')}
            pendingLabel={t('users.deleting')}
            fields={deletion(confirming)}
          >
            <StoppingAccountsNote stopping={stopping} userId={confirming.id} name={fullName(confirming)} />
          </ConfirmPanel>
        ) : null
      }
      search={
        <div className="flex flex-col gap-3">
          <SearchForm label={t('users.search')} />
          <UserFilters search={search} />
        </div>
      }
      count={t('users.total', { count: total })}
      page={page}
      total={total}
    >
      <DataTable
        aria-label={t('users.table')}
        columns={columns}
        rows={users}
        rowKey={(user) => user.id}
        rowAnchor={ROW}
        defaultSort="nom"
        rowClassName={(user) => (user.supprime ? 'bg-destructive/10' : hasPosition(user) ? undefined : 'bg-warning/15')}
        details={{ render: (user) => <UserDetails user={user} />, isOpen }}
        empty={
          <EmptyState
            icon={Users}
            title={t('users.empty')}
            description={q ? t('users.emptySearch', { q }) : undefined}
          />
        }
      />
    </AdminListPage>
  )
}
