import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { Link, useActionData, useLoaderData, useLocation } from '@remix-run/react'
import { Building2, Pencil, Plus, Users } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { AdminListPage } from '~/components/admin-list-page'
import { ConfirmPanel } from '~/components/confirm-dialog'
import { DataTable, type DataTableColumn } from '~/components/data-table'
import { EmptyState } from '~/components/empty-state'
import { RowDelete } from '~/components/row-delete'
import { SearchForm } from '~/components/search-form'
import { buttonVariants } from '~/components/ui/button'
import { apiMessage } from '~/lib/api-errors'
import { requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { anchorId, FOCUS_FIELD, neighbourAnchor } from '~/lib/focus'
import { focusFragment, formReply, readForm, rowAction, submitted } from '~/lib/form.server'
import { listQuery } from '~/lib/pagination'
import { redirectPastLast } from '~/lib/pagination.server'
import { pageTitle, titleMeta } from '~/lib/title'
import { pathWithout, urlWith } from '~/lib/url'
import { STRUCTURE_SORTS, type Structure } from '../../worker-api/contract/organisation/structure'

export const handle: BreadcrumbHandle = { breadcrumb: 'nav.structures' }
export const meta = titleMeta

/** Spec §2 admin/listeStructures: the scope's structures, searched, sorted and paged by the API (SQL). */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const url = new URL(request.url)
  const query = { users: 'true' as const, ...listQuery(url.searchParams, STRUCTURE_SORTS) }
  const {
    auth,
    data: { items, total },
    t,
  } = await requireAdmin(request, context, {
    read: (auth) => auth.expectPage(auth.api.rest.bd.structure.user.me.$get({ query })),
  })
  redirectPastLast(url, query.page, total, items.length, await auth.headers())
  return data(
    {
      structures: items,
      total,
      page: query.page,
      q: query.q ?? '',
      title: pageTitle(t, t('structures.title')),
    },
    { headers: await auth.headers() },
  )
}

/** The per-row delete (after its confirmation): spec §8's messages when the API refuses it. */
export async function action({ request, context }: ActionFunctionArgs) {
  const auth = await requireAdmin(request, context)
  const form = await readForm(request)
  const submission = submitted(form)
  const nom = String(form.get('nom') ?? '')
  const row = rowAction(form, ['supprimer'])
  if (!row) return formReply('', submission.reply(), { key: 'errors.technical' }, await auth.headers())
  const { id } = row
  const result = await auth.settle(auth.api.rest.bd.structure[':id'].$delete({ param: { id } }))
  if (!result.ok) {
    return formReply(row.intent, submission.reply(), apiMessage(result, 'errors.updateFailed'), await auth.headers())
  }
  // Back to the list as it was, without the confirmation's params.
  return auth.redirectWithToast(`${pathWithout(request.url, ['confirmer', 'id'])}${focusFragment(form)}`, {
    type: 'success',
    key: 'structures.deleted',
    values: { nom },
  })
}

/** The prefix of the rows' ids (`structure-4`). */
const ROW = 'structure'

/** Spec §9: the root (id 1) is every top structure's parent, so its name is not shown as one. */
const parentName = (structure: Structure) =>
  structure.parent && structure.parent.id !== 1 ? structure.parent.nom : null

export default function Structures() {
  const { structures, total, page, q } = useLoaderData<typeof loader>()
  const failure = useActionData<typeof action>()
  const { search } = useLocation()
  const { t } = useTranslation()
  const params = new URLSearchParams(search)
  const confirming =
    params.get('confirmer') === 'supprimer' ? structures.find((s) => String(s.id) === params.get('id')) : undefined
  const cancelHref = urlWith(search, { confirmer: null, id: null })
  /** The delete's form; without JavaScript focus then goes to the row that takes the deleted one's place. */
  const deletion = (structure: Structure) => ({
    intent: 'supprimer',
    id: String(structure.id),
    nom: structure.nom,
    [FOCUS_FIELD]: neighbourAnchor(structures, structure, ROW),
  })

  const columns: DataTableColumn<Structure>[] = [
    {
      id: 'nom',
      header: t('structures.nom'),
      sort: 'nom',
      cell: (structure) => (
        <>
          <Link
            to={`/pages/admin/structure/detail/${structure.id}`}
            className="font-medium text-primary underline-offset-4 hover:underline"
          >
            {structure.nom}
          </Link>
          {/* Narrower, the type, the parent and the path ride under the name: the actions stay in view. */}
          <span className="block text-muted-foreground lg:hidden">
            {[structure.type.libelle, parentName(structure)].filter(Boolean).join(' · ')}
          </span>
          <span className="block tabular-nums text-muted-foreground md:hidden">{structure.path}</span>
        </>
      ),
    },
    {
      id: 'type',
      header: t('structures.type'),
      className: 'hidden lg:table-cell',
      cell: (structure) => structure.type.libelle,
    },
    {
      id: 'parent',
      header: t('structures.parent'),
      className: 'hidden lg:table-cell',
      cell: (structure) => parentName(structure),
    },
    {
      id: 'users',
      header: t('structures.users'),
      className: 'tabular-nums text-right',
      cell: (s) => s.nbUtilisateurs ?? 0,
    },
    {
      id: 'path',
      header: t('structures.path'),
      sort: 'path',
      className: 'hidden md:table-cell tabular-nums text-muted-foreground',
      cell: (s) => s.path,
    },
    {
      id: 'actions',
      header: <span className="sr-only">{t('structures.actions')}</span>,
      cell: (structure) => (
        <div className="flex flex-wrap justify-end gap-1">
          <Link
            to={`/pages/admin/user/structure/${structure.id}`}
            className={buttonVariants({ variant: 'ghost', size: 'sm' })}
            aria-label={t('structures.manageUsersLabel', { nom: structure.nom })}
          >
            <Users aria-hidden />
            <span className="hidden lg:inline">{t('structures.manageUsers')}</span>
          </Link>
          <Link
            to={`/pages/admin/structure/detail/${structure.id}`}
            className={buttonVariants({ variant: 'ghost', size: 'sm' })}
            aria-label={t('structures.modifyLabel', { nom: structure.nom })}
          >
            <Pencil aria-hidden />
            <span className="hidden lg:inline">{t('structures.modify')}</span>
          </Link>
          {/* The root always has children: its delete could never succeed, so it is not offered. */}
          {structure.parent === null ? null : (
            <RowDelete
              anchor="supprimer"
              id={structure.id}
              search={search}
              title={t('structures.deleteTitle', { nom: structure.nom })}
              description={t('structures.deleteConfirm')}
              confirmLabel={t('structures.delete')}
              pendingLabel={t('structures.deleting')}
              fields={deletion(structure)}
              word={t('structures.delete')}
              name={t('structures.deleteLabel', { nom: structure.nom })}
            />
          )}
        </div>
      ),
    },
  ]

  return (
    <AdminListPage
      title={t('structures.title')}
      intro={t('structures.intro')}
      create={{ to: '/pages/admin/structure', icon: Plus, label: t('structures.create') }}
      failure={
        failure?.error ? (
          <>
            <p className="font-medium">{t('structures.deleteImpossible')}</p>
            <p>{t(failure.error.key, failure.error.values)}</p>
          </>
        ) : null
      }
      panels={
        confirming ? (
          <ConfirmPanel
            cancelHref={cancelHref}
            returnTo={anchorId('supprimer', confirming.id)}
            title={t('structures.deleteTitle', { nom: confirming.nom })}
            description={t('structures.deleteConfirm')}
            confirmLabel={t('structures.delete')}
            pendingLabel={t('structures.deleting')}
            fields={deletion(confirming)}
          />
        ) : null
      }
      search={<SearchForm label={t('structures.search')} />}
      count={t('structures.total', { count: total })}
      page={page}
      total={total}
    >
      <DataTable
        aria-label={t('structures.title')}
        columns={columns}
        rows={structures}
        rowKey={(structure) => structure.id}
        rowAnchor={ROW}
        defaultSort="path"
        empty={
          <EmptyState
            icon={Building2}
            title={t('structures.empty')}
            description={q ? t('structures.emptySearch', { q }) : undefined}
          />
        }
      />
    </AdminListPage>
  )
}
