import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { Form, Link, useActionData, useLoaderData, useLocation, useNavigation } from '@remix-run/react'
import { AppWindow, Pencil, Plus, Power, PowerOff } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { AdminListPage } from '~/components/admin-list-page'
import { AppIcon } from '~/components/app-icon'
import { ConfirmPanel } from '~/components/confirm-dialog'
import { DataTable, type DataTableColumn } from '~/components/data-table'
import { EmptyState } from '~/components/empty-state'
import { RowDelete } from '~/components/row-delete'
import { SearchForm } from '~/components/search-form'
import { Button, buttonVariants } from '~/components/ui/button'
import { apiMessage, type Failure } from '~/lib/api-errors'
import { requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { anchorId, FOCUS_FIELD, neighbourAnchor } from '~/lib/focus'
import { posted } from '~/lib/form'
import { focusFragment, formReply, readForm, rowAction, submitted } from '~/lib/form.server'
import { listQuery } from '~/lib/pagination'
import { redirectPastLast } from '~/lib/pagination.server'
import { pageTitle, titleMeta } from '~/lib/title'
import { pathWithout, urlWith } from '~/lib/url'
import {
  APPLICATION_ICONS,
  APPLICATION_SORTS,
  type ApplicationIcon,
  type CatalogueApplication,
} from '../../worker-api/contract/catalogue/catalogue'

export const handle: BreadcrumbHandle = { breadcrumb: 'nav.applications' }
export const meta = titleMeta

/**
 * The catalogue (root administrators): the applications the portal launches, searched, sorted and
 * paged by the API (SQL), each with how many users may launch it today; switched on or off, deleted
 * after a confirmation that says how many lose it.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const url = new URL(request.url)
  // A row names the first few functions that grant it and how many more there are.
  const query = { ...listQuery(url.searchParams, APPLICATION_SORTS), fonctionsMax: FONCTIONS_SHOWN }
  const {
    auth,
    data: { items, total },
    t,
  } = await requireAdmin(request, context, {
    read: (auth) => auth.expectPage(auth.api.rest.bd.application.$get({ query })),
  })
  redirectPastLast(url, query.page, total, items.length, await auth.headers())
  return data(
    {
      applications: items,
      total,
      page: query.page,
      q: query.q ?? '',
      title: pageTitle(t, t('applications.title')),
    },
    { headers: await auth.headers() },
  )
}

/** How many of the functions granting an application its row names. */
const FONCTIONS_SHOWN = 3

/**
 * A row's switch (on or off) or its delete, after its confirmation. The switch sends the application
 * as it stands now, read again, with only its state changed: what another administrator changed
 * meanwhile is kept.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const auth = await requireAdmin(request, context)
  const form = await readForm(request)
  const submission = submitted(form)
  const libelle = String(form.get('libelle') ?? '')
  const row = rowAction(form, ['activer', 'desactiver', 'supprimer'])
  if (!row) return formReply('', submission.reply(), { key: 'errors.technical' }, await auth.headers())
  const failed = async (result: Failure) =>
    formReply(row.intent, submission.reply(), apiMessage(result, 'errors.updateFailed'), await auth.headers())
  const back = `${pathWithout(request.url, ['confirmer', 'id'])}${focusFragment(form)}`
  if (row.intent === 'supprimer') {
    const deleted = await auth.settle(auth.api.rest.bd.application[':id'].$delete({ param: { id: row.id } }))
    if (!deleted.ok) return failed(deleted)
    return auth.redirectWithToast(back, { type: 'success', key: 'applications.deleted', values: { libelle } })
  }
  const current = await auth.settle(
    auth.api.rest.bd.application[':id'].$get({ param: { id: row.id }, query: { fonctionsMax: 0 } }),
  )
  if (!current.ok) return failed(current)
  const { id, libelle: name, icone, url } = current.data
  const actif = row.intent === 'activer'
  const saved = await auth.settle(
    auth.api.rest.bd.application.$put({
      json: {
        id,
        libelle: name,
        // Stored before the catalogue checked icons, a name the API now refuses: the launcher's generic one.
        icone: (APPLICATION_ICONS as readonly string[]).includes(icone) ? (icone as ApplicationIcon) : 'warehouse',
        url,
        actif,
        // No `protocole` nor `fonctions`: its protocol, client and grants stay as they are.
      },
    }),
  )
  if (!saved.ok) return failed(saved)
  return auth.redirectWithToast(back, {
    type: 'success',
    key: actif ? 'applications.switchedOn' : 'applications.switchedOff',
    values: { libelle: name },
  })
}

/** The prefix of the rows' ids (`application-4`). */
const ROW = 'application'

export default function Applications() {
  const { applications, total, page, q } = useLoaderData<typeof loader>()
  const failure = useActionData<typeof action>()
  const { search } = useLocation()
  const navigation = useNavigation()
  const { t } = useTranslation()
  const params = new URLSearchParams(search)
  const confirming =
    params.get('confirmer') === 'supprimer' ? applications.find((a) => String(a.id) === params.get('id')) : undefined
  const cancelHref = urlWith(search, { confirmer: null, id: null })
  const deletion = (application: CatalogueApplication) => ({
    intent: 'supprimer',
    id: String(application.id),
    libelle: application.libelle,
    [FOCUS_FIELD]: neighbourAnchor(applications, application, ROW),
  })
  const deleteDescription = (application: CatalogueApplication) =>
    t('applications.deleteConfirm', { count: application.nbUtilisateurs })
  const busy = (application: CatalogueApplication) =>
    navigation.state !== 'idle' && navigation.formData?.get('id') === String(application.id)

  const columns: DataTableColumn<CatalogueApplication>[] = [
    {
      id: 'libelle',
      header: t('applications.libelle'),
      sort: 'libelle',
      cell: (application) => (
        <span className="flex items-start gap-2">
          <AppIcon name={application.icone} className="mt-0.5 size-4 shrink-0 text-muted-foreground" />
          <span className="min-w-0">
            <Link
              to={`/pages/admin/applications/${application.id}`}
              className="block font-medium underline underline-offset-4"
            >
              {application.libelle}
            </Link>
            {/* Narrower, the address rides under the name; on a phone the edit page shows it. */}
            <span className="hidden break-all text-muted-foreground sm:block lg:hidden">{application.url}</span>
            {application.actif ? null : <span className="block text-muted-foreground">{t('applications.off')}</span>}
          </span>
        </span>
      ),
    },
    {
      id: 'url',
      header: t('applications.url'),
      className: 'hidden lg:table-cell break-all text-muted-foreground',
      cell: (application) => application.url,
    },
    {
      id: 'fonctions',
      header: t('applications.fonctions'),
      className: 'hidden lg:table-cell',
      cell: (application) =>
        application.fonctions.length === 0 ? (
          <span className="text-muted-foreground">{t('applications.noFonction')}</span>
        ) : (
          <ul className="flex flex-col">
            {application.fonctions.map((f) => (
              <li key={f.id}>
                {f.libelle} <span className="text-muted-foreground">· {f.structure.nom}</span>
              </li>
            ))}
            {application.nbFonctions > application.fonctions.length ? (
              <li className="text-muted-foreground">
                {t('applications.moreFonctions', {
                  count: application.nbFonctions - application.fonctions.length,
                })}
              </li>
            ) : null}
          </ul>
        ),
    },
    {
      id: 'nbUtilisateurs',
      header: t('applications.users'),
      sort: 'nbUtilisateurs',
      className: 'tabular-nums text-right',
      cell: (application) => application.nbUtilisateurs,
    },
    {
      id: 'actions',
      header: <span className="sr-only">{t('applications.actions')}</span>,
      cell: (application) => (
        <div className="flex flex-wrap justify-end gap-1">
          <Link
            to={`/pages/admin/applications/${application.id}`}
            className={buttonVariants({ variant: 'ghost', size: 'sm' })}
            aria-label={t('applications.editLabel', { libelle: application.libelle })}
          >
            <Pencil aria-hidden />
            <span aria-hidden className="hidden lg:inline">
              {t('applications.edit')}
            </span>
          </Link>
          <Form method="post" preventScrollReset>
            <input type="hidden" name="intent" value={application.actif ? 'desactiver' : 'activer'} />
            <input type="hidden" name="id" value={application.id} />
            <input type="hidden" name={FOCUS_FIELD} value={anchorId('etat', application.id)} />
            <Button
              id={anchorId('etat', application.id)}
              type="submit"
              variant="ghost"
              size="sm"
              disabled={busy(application)}
              aria-label={t(application.actif ? 'applications.switchOffLabel' : 'applications.switchOnLabel', {
                libelle: application.libelle,
              })}
            >
              {application.actif ? <PowerOff aria-hidden /> : <Power aria-hidden />}
              <span aria-hidden className="hidden lg:inline">
                {t(application.actif ? 'applications.switchOff' : 'applications.switchOn')}
              </span>
            </Button>
          </Form>
          <RowDelete
            anchor="supprimer"
            id={application.id}
            search={search}
            title={t('applications.deleteTitle', { libelle: application.libelle })}
            description={deleteDescription(application)}
            confirmLabel={t('applications.delete')}
            pendingLabel={t('applications.deleting')}
            fields={deletion(application)}
            word={t('applications.delete')}
            name={t('applications.deleteLabel', { libelle: application.libelle })}
          />
        </div>
      ),
    },
  ]

  return (
    <AdminListPage
      title={t('applications.title')}
      intro={t('applications.intro')}
      create={{ to: '/pages/admin/applications/nouvelle', icon: Plus, label: t('applications.new') }}
      failure={
        failure?.error ? (
          <>
            <p className="font-medium">{t('applications.actionImpossible', { libelle: posted(failure, 'libelle') })}</p>
            <p>{t(failure.error.key, failure.error.values)}</p>
          </>
        ) : null
      }
      panels={
        confirming ? (
          <ConfirmPanel
            cancelHref={cancelHref}
            returnTo={anchorId('supprimer', confirming.id)}
            title={t('applications.deleteTitle', { libelle: confirming.libelle })}
            description={deleteDescription(confirming)}
            confirmLabel={t('applications.delete')}
            pendingLabel={t('applications.deleting')}
            fields={deletion(confirming)}
          />
        ) : null
      }
      search={<SearchForm label={t('applications.search')} />}
      count={t('applications.total', { count: total })}
      page={page}
      total={total}
    >
      <DataTable
        aria-label={t('applications.title')}
        columns={columns}
        rows={applications}
        rowKey={(application) => application.id}
        rowAnchor={ROW}
        defaultSort="libelle"
        empty={
          <EmptyState
            icon={AppWindow}
            title={t('applications.empty')}
            description={q ? t('applications.emptySearch', { q }) : undefined}
          />
        }
      />
    </AdminListPage>
  )
}
