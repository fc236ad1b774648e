import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { useActionData, useLoaderData, useLocation } from '@remix-run/react'
import { CircleCheck } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { AdminListPage, ListUnreadable } from '~/components/admin-list-page'
import { ConfirmPanel } from '~/components/confirm-dialog'
import { DataTable, type DataTableColumn } from '~/components/data-table'
import { EmptyState } from '~/components/empty-state'
import { SearchForm } from '~/components/search-form'
import { defaultPeriod, postFrom, registrationRefusal } from '~/features/organisation/authorisation.server'
import {
  Company,
  Expiry,
  fullName,
  REGISTRATION_ROW,
  RegistrationActions,
  refusal,
  VALIDATE,
} from '~/features/organisation/registration-cells'
import { NeedsPost, offeredValue, ValidatePanel, type ValidateValues } from '~/features/organisation/validate-panel'
import { requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { anchorId } from '~/lib/focus'
import { type FormReply, posted } from '~/lib/form'
import { focusFragment, formReply, readForm, rowAction, submitted } from '~/lib/form.server'
import { listQuery } from '~/lib/pagination'
import { redirectPastLast } from '~/lib/pagination.server'
import { pageTitle, titleMeta } from '~/lib/title'
import { pathWithout, urlWith } from '~/lib/url'
import { type PendingUser, REGISTRATION_SORTS } from '../../worker-api/contract/organisation/registration'

export const handle: BreadcrumbHandle = { breadcrumb: 'nav.authorizeUser' }
export const meta = titleMeta

/** The search param that names the company of a carrier just accepted, whose users page gives posts. */
const POST_FOR = 'poste'

/**
 * Spec §2 admin/autorisation: the pending registrations of the scope, searched, sorted (by default
 * those with a link first, soonest expiry first) and paged by the API. Spec §8: a failed read says
 * 'Echec de la récupération des données' rather than ending on the error page.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const url = new URL(request.url)
  const query = listQuery(url.searchParams, REGISTRATION_SORTS)
  const validating = Number(url.searchParams.get(VALIDATE))
  const {
    auth,
    data: [result, offered],
    t,
  } = await requireAdmin(request, context, {
    read: (auth) =>
      Promise.all([
        auth.settle(auth.api.rest.bd.authorize.get.user.all.$get({ query })),
        Number.isSafeInteger(validating) && validating > 0
          ? auth.settle(auth.api.rest.bd.authorize.user[':id'].fonctions.$get({ param: { id: validating } }))
          : null,
      ]),
  })
  // The registration being validated, on this page and still to validate: the post it may start with.
  const validation = offered?.ok ? { id: validating, fonctions: offered.data, ...defaultPeriod() } : null
  const title = pageTitle(t, t('autorisation.title'))
  if (!result.ok) {
    return data(
      {
        users: [] as PendingUser[],
        total: 0,
        page: 1,
        q: query.q ?? '',
        now: Date.now(),
        failed: true,
        title,
        validation: null,
        // Spec §8: said as a 5 s toast too (the root shows a page's notice).
        notice: { type: 'error' as const, key: 'errors.fetchFailed' },
      },
      { headers: await auth.headers() },
    )
  }
  const total = result.total ?? 0
  // The last row of the last page handled: on to the page that is now the last, not an empty one.
  redirectPastLast(url, query.page, total, result.data.length, await auth.headers())
  return data(
    // The time the expiries are judged against: the server's, so that both renders agree.
    {
      users: result.data,
      total,
      page: query.page,
      q: query.q ?? '',
      now: Date.now(),
      failed: false,
      title,
      validation,
    },
    { headers: await auth.headers() },
  )
}

/**
 * The per-row validation (a new link, or a resend) and deletion (after its confirmation). The list is
 * read again after the redirect, so the row is gone or shows its new expiry, in its sorted place.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const auth = await requireAdmin(request, context)
  const form = await readForm(request)
  const row = rowAction(form, ['authorize', 'refuse'])
  if (!row) return formReply('', submitted(form).reply(), { key: 'errors.technical' }, await auth.headers())
  const { intent, id } = row
  const poste = intent === 'authorize' ? postFrom(form) : undefined
  const result = await auth.settle(
    auth.api.rest.bd.authorize.user.$post({
      json: { user: { id }, authorize: intent === 'authorize', ...(poste ? { poste } : {}) },
    }),
  )
  const back = pathWithout(request.url, ['confirmer', 'id', POST_FOR, VALIDATE])
  if (!result.ok) return registrationRefusal(auth, intent, form, result, back)
  const resent = form.get('renvoi') === 'true'
  const company = result.data.user.structure?.id
  // A carrier accepted has no post yet: the page then says so, with the way to give one.
  const to = new URL(back, request.url)
  if (!result.data.supprime && !resent && !poste && company) to.searchParams.set(POST_FOR, String(company))
  return auth.redirectWithToast(`${to.pathname}${to.search}${focusFragment(form)}`, {
    type: 'success',
    key: result.data.supprime
      ? 'autorisation.deleted'
      : resent
        ? 'autorisation.resent'
        : poste
          ? 'autorisation.validatedWithPost'
          : 'autorisation.validated',
    values: { mail: result.data.user.mail },
  })
}

/** What a refused validation chose, shown again in its panel (none for a resend or a deletion). */
function refusedValidation(reply: FormReply | undefined): ValidateValues | undefined {
  if (reply?.intent !== 'authorize' || posted(reply, 'avecPoste') !== 'true') return undefined
  const said = reply.result.error ?? {}
  return {
    fonction: posted(reply, 'fonction'),
    dateDebut: posted(reply, 'dateDebut').trim(),
    dateFin: posted(reply, 'dateFin').trim(),
    errors: { fonction: said.fonction ?? [], dateDebut: said.dateDebut ?? [], dateFin: said.dateFin ?? [] },
  }
}

export default function Authorisation() {
  const { users, total, page, q, now, failed, validation } = useLoaderData<typeof loader>()
  const failure = useActionData<typeof action>()
  const refused = refusedValidation(failure)
  const { search } = useLocation()
  const { t } = useTranslation()
  const params = new URLSearchParams(search)
  const confirming =
    params.get('confirmer') === 'refuse' ? users.find((u) => String(u.id) === params.get('id')) : undefined
  const validating = validation
    ? users.find((user) => user.id === validation.id && user.tokenRegister === null)
    : undefined

  const columns: DataTableColumn<PendingUser>[] = [
    {
      id: 'mail',
      header: t('autorisation.mail'),
      sort: 'mail',
      className: 'break-all',
      cell: (user) => (
        <>
          <span className="font-medium">{user.mail}</span>
          {/* Narrower than `lg` the name columns are hidden, and below `sm` the expiry's: they ride under
              the address, which keeps the row's width (a 50-character address on two lines at most). */}
          <span className="block break-words text-muted-foreground lg:hidden">{fullName(user)}</span>
          <span className="mt-1 block sm:hidden">
            <Expiry expiry={user.tokenRegister} now={now} />
          </span>
        </>
      ),
    },
    { id: 'nom', header: t('autorisation.nom'), sort: 'nom', className: 'hidden lg:table-cell', cell: (u) => u.nom },
    {
      id: 'prenom',
      header: t('autorisation.prenom'),
      sort: 'prenom',
      className: 'hidden lg:table-cell',
      cell: (user) => user.prenom,
    },
    {
      id: 'structure',
      header: t('autorisation.structure'),
      className: 'hidden lg:table-cell',
      cell: (user) => <Company structure={user.structure} />,
    },
    {
      id: 'expiry',
      header: t('autorisation.expiry'),
      sort: 'expiry',
      className: 'hidden sm:table-cell whitespace-normal',
      cell: (user) => <Expiry expiry={user.tokenRegister} now={now} />,
    },
    {
      id: 'actions',
      header: <span className="sr-only">{t('autorisation.actions')}</span>,
      cell: (user) => <RegistrationActions user={user} rows={users} />,
    },
  ]

  return (
    <AdminListPage
      title={t('autorisation.title')}
      intro={t('autorisation.intro')}
      failure={failure?.error ? <p>{t(failure.error.key, failure.error.values)}</p> : null}
      panels={
        <>
          {confirming ? (
            <ConfirmPanel
              cancelHref={urlWith(search, { confirmer: null, id: null })}
              returnTo={anchorId('refuser', confirming.id)}
              {...refusal(t, users, confirming)}
            />
          ) : null}
          {validating && validation ? (
            <ValidatePanel
              // A refused validation comes back with what was chosen: the panel shows it again.
              key={refused ? 'again' : 'new'}
              id={validating.id}
              mail={validating.mail}
              company={validating.structure?.nom ?? null}
              fonctions={validation.fonctions}
              values={
                refused ?? {
                  fonction: validation.fonctions[0] ? offeredValue(validation.fonctions[0]) : '',
                  dateDebut: validation.dateDebut,
                  dateFin: validation.dateFin,
                  errors: {},
                }
              }
              cancelHref={`${urlWith(search, { [VALIDATE]: null })}#${anchorId('valider', validating.id)}`}
              focusAfter={anchorId('valider', validating.id)}
            />
          ) : null}
          <NeedsPost structureId={params.get(POST_FOR)} closeHref={urlWith(search, { [POST_FOR]: null })} />
        </>
      }
      search={<SearchForm label={t('autorisation.search')} />}
      unreadable={failed ? <ListUnreadable retry={t('autorisation.retry')} /> : null}
      count={t('autorisation.total', { count: total })}
      page={page}
      total={total}
    >
      <DataTable
        aria-label={t('autorisation.tableLabel')}
        columns={columns}
        rows={users}
        rowKey={(user) => user.id}
        rowAnchor={REGISTRATION_ROW}
        defaultSort="expiry"
        empty={
          <EmptyState
            icon={CircleCheck}
            title={t('autorisation.empty')}
            description={q ? t('autorisation.emptySearch', { q }) : undefined}
          />
        }
      />
    </AdminListPage>
  )
}
