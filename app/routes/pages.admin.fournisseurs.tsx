import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { useActionData, useLoaderData, useLocation } from '@remix-run/react'
import { KeyRound, Plus } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { AdminListPage } from '~/components/admin-list-page'
import { ConfirmPanel } from '~/components/confirm-dialog'
import { DataTable } from '~/components/data-table'
import { EmptyState } from '~/components/empty-state'
import { SearchForm } from '~/components/search-form'
import {
  CREATE_INTENT,
  CREATE_SECTION,
  DELETE_INTENT,
  EDIT_INTENT,
  EDIT_PARAM,
  type ReplyChoices,
  ROW,
} from '~/features/federation/provider'
import { EditPanel } from '~/features/federation/provider-edit'
import { ProviderCreate } from '~/features/federation/provider-form'
import { providerRows } from '~/features/federation/provider-rows'
import { providersAction, providersData } from '~/features/federation/providers.server'
import { requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { anchorId } from '~/lib/focus'
import { type FormReply, posted } from '~/lib/form'
import { pageTitle, titleMeta } from '~/lib/title'
import { urlWith } from '~/lib/url'

export const handle: BreadcrumbHandle = { breadcrumb: 'nav.identityProviders' }
export const meta = titleMeta

/**
 * Partners' identity providers (root administrators, issue 63): the OpenID Connect providers whose users sign in to
 * the portal, searched and paged by the API, each with its issuer, its domains, what a first sign-in does, whether it
 * is on and how many users it links; registered below the list (its discovery document read and checked by the API),
 * changed (`?modifier=<id>`) or deleted after a confirmation. The addresses to declare at the provider are shown to
 * copy. Any other administrator gets the page that says it is the root's (the guard's 403, as the API answers).
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const {
    auth,
    data: screen,
    t,
  } = await requireAdmin(request, context, { read: (auth) => providersData(request, auth) })
  return data({ ...screen, title: pageTitle(t, t('fournisseurs.title')) }, { headers: await auth.headers() })
}

export async function action({ request, context }: ActionFunctionArgs) {
  return providersAction(request, await requireAdmin(request, context))
}

type Answer = (FormReply & ReplyChoices) | undefined

export default function IdentityProviders() {
  const { fournisseurs, total, page, q, choices, editing, addresses, constraint } = useLoaderData<typeof loader>()
  const answer = useActionData<typeof action>() as Answer
  const { t } = useTranslation()
  const { search } = useLocation()
  const params = new URLSearchParams(search)
  const confirming =
    params.get('confirmer') === DELETE_INTENT ? fournisseurs.find((f) => String(f.id) === params.get('id')) : undefined
  const { columns, deletion, deleteTexts } = providerRows(t, { search, fournisseurs })
  const failed = answer?.intent === DELETE_INTENT && answer.error ? answer : null
  const own = (intent: string) => (answer?.intent === intent ? answer.choices : undefined)
  return (
    <div className="flex flex-col gap-8">
      <AdminListPage
        title={t('fournisseurs.title')}
        intro={t('fournisseurs.intro')}
        create={{ to: `${urlWith(search, {})}#${CREATE_SECTION}`, icon: Plus, label: t('fournisseurs.new') }}
        failure={
          failed?.error ? (
            <>
              <p className="font-medium">{t('fournisseurs.actionImpossible', { nom: posted(failed, 'nom') })}</p>
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
                key={answer?.intent === EDIT_INTENT ? 'again' : 'new'}
                provider={editing.provider}
                choices={own(EDIT_INTENT) ?? editing.choices}
                constraint={constraint}
                addresses={addresses}
                cancelHref={urlWith(search, { [EDIT_PARAM]: null })}
                returnTo={anchorId('modifier', editing.provider.id)}
              />
            ) : null}
          </>
        }
        search={<SearchForm label={t('fournisseurs.search')} />}
        count={t('fournisseurs.total', { count: total })}
        page={page}
        total={total}
      >
        <DataTable
          aria-label={t('fournisseurs.title')}
          columns={columns}
          rows={fournisseurs}
          rowKey={(provider) => provider.id}
          rowAnchor={ROW}
          defaultSort="nom"
          empty={
            <EmptyState
              icon={KeyRound}
              title={t('fournisseurs.empty')}
              description={q ? t('fournisseurs.emptySearch', { q }) : t('fournisseurs.emptyHint')}
            />
          }
        />
      </AdminListPage>
      <ProviderCreate choices={own(CREATE_INTENT) ?? choices} constraint={constraint} addresses={addresses} />
    </div>
  )
}
