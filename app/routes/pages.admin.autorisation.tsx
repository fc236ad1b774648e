import { type ActionFunctionArgs, data, type LoaderFunctionArgs, redirect } from '@remix-run/cloudflare'
import { Form, Link, useActionData, useLoaderData, useLocation, useNavigation } from '@remix-run/react'
import { CircleCheck, Mail, Trash2, TriangleAlert, UserCheck } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { ConfirmDialog, ConfirmPanel } from '~/components/confirm-dialog'
import { DataTable, type DataTableColumn } from '~/components/data-table'
import { EmptyState } from '~/components/empty-state'
import { Pagination } from '~/components/pagination'
import { SearchForm } from '~/components/search-form'
import { Alert } from '~/components/ui/alert'
import { Button, buttonVariants } from '~/components/ui/button'
import { offeredValue, ValidatePanel, type ValidateValues } from '~/components/validate-panel'
import { apiMessage, fieldErrors, type Message } from '~/lib/api-errors'
import { adminRead, requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { displayDateTime } from '~/lib/dates'
import { anchorId, FOCUS_FIELD, neighbourAnchor } from '~/lib/focus'
import { type FormReply, posted, usePendingIntent } from '~/lib/form'
import { focusFragment, formReply, readForm, rowAction, submitted } from '~/lib/form.server'
import { DEFAULT_PAGE_SIZE, lastPageUrl, listQuery } from '~/lib/pagination'
import { pageTitle, titleMeta } from '~/lib/title'
import { pathWithout, urlWith } from '~/lib/url'
import { cn } from '~/lib/utils'
import { todayIso, toWireDate } from '../../worker-api/contract/dates'
import { type PendingUser, REGISTRATION_SORTS } from '../../worker-api/contract/registration'

export const handle: BreadcrumbHandle = { breadcrumb: 'nav.authorizeUser' }
export const meta = titleMeta

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
  } = await adminRead(request, context, (auth) =>
    Promise.all([
      auth.settle(auth.api.rest.bd.authorize.get.user.all.$get({ query })),
      Number.isSafeInteger(validating) && validating > 0
        ? auth.settle(auth.api.rest.bd.authorize.user[':id'].fonctions.$get({ param: { id: validating } }))
        : null,
    ]),
  )
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
  const last = lastPageUrl(url, query.page, total, result.data.length)
  if (last) throw redirect(last, { headers: await auth.headers() })
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

/** The post a validation gives (`avecPoste`): the function chosen (none: no post) and its period. */
function postFrom(form: FormData) {
  if (form.get('avecPoste') !== 'true') return undefined
  const fonction = String(form.get('fonction') ?? '')
  const [kind, ...rest] = fonction.split(':')
  const named = rest.join(':')
  if (fonction === '' || !named) return undefined
  const id = Number(named)
  const chosen = kind === 'id' && Number.isSafeInteger(id) && id > 0 ? { id } : { libelle: named }
  const dateDebut = String(form.get('dateDebut') ?? '').trim()
  const dateFin = String(form.get('dateFin') ?? '').trim()
  return { fonction: chosen, dateDebut, dateFin }
}

/**
 * The per-row validation (a new link, or a resend) and deletion (after its confirmation). The list is
 * read again after the redirect, so the row is gone or shows its new expiry, in its sorted place.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const auth = await requireAdmin(request, context)
  const form = await readForm(request)
  const submission = submitted(form)
  const mail = String(form.get('mail') ?? '')
  const row = rowAction(form, ['authorize', 'refuse'])
  if (!row) return formReply('', submission.reply(), { key: 'errors.technical' })
  const { intent, id } = row
  const poste = intent === 'authorize' ? postFrom(form) : undefined
  const result = await auth.settle(
    auth.api.rest.bd.authorize.user.$post({
      json: { user: { id }, authorize: intent === 'authorize', ...(poste ? { poste } : {}) },
    }),
  )
  const back = pathWithout(request.url, ['confirmer', 'id', POST_FOR, VALIDATE])
  if (!result.ok) {
    const refused = async (error: Message, onFields?: Record<string, string[]>) =>
      formReply(intent, submission.reply(onFields ? { fieldErrors: onFields } : undefined), error, await auth.headers())
    // The company it typed cannot be created under that name: said on the page, the row stays.
    if (result.error.businessCode === 'STRUCTURE_NOM_ALREADY_USED') {
      const nom = String(result.error.attributs[0] ?? '')
      return refused({ key: 'autorisation.companyNameTaken', values: { mail, nom } })
    }
    // Refused or accepted meanwhile (by another administrator), or out of scope: the list is read again.
    if (result.status === 404 || result.status === 409) {
      return auth.redirectWithToast(back, { type: 'error', key: 'autorisation.notPending', values: { mail } })
    }
    // The post refused (a period, a function no longer there): said on its fields, in the panel.
    const fields = fieldErrors(result)
    if (form.get('avecPoste') === 'true' && fields) {
      // The API names a field by its path in the request body (`poste.fonction.id`, `poste.dateDebut`):
      // the panel's field gathers what was said on it and under it.
      const onPost = (field: string) =>
        Object.entries(fields).flatMap(([path, said]) =>
          path === `poste.${field}` || path.startsWith(`poste.${field}.`) ? (said ?? []) : [],
        )
      return refused(
        { key: 'autorisation.postRefused' },
        { fonction: onPost('fonction'), dateDebut: onPost('dateDebut'), dateFin: onPost('dateFin') },
      )
    }
    return refused(
      result.error.businessCode === 'TOO_MANY_ATTEMPTS'
        ? { key: 'autorisation.tooManyMails', values: { mail } }
        : apiMessage(result, 'errors.LISTE_UPDATE_FAILED'),
    )
  }
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

/** The search param that names the company of a carrier just accepted, whose users page gives posts. */
const POST_FOR = 'poste'

/** The search param that opens the validation of a registration (its post, then the link). */
const VALIDATE = 'valider'

/** A post's default period at validation: from today, for a year (wire dates). */
function defaultPeriod() {
  const today = todayIso()
  const [year, month, day] = today.split('-').map(Number) as [number, number, number]
  const inAYear = new Date(Date.UTC(year + 1, month - 1, day)).toISOString().slice(0, 10)
  return { dateDebut: toWireDate(today), dateFin: toWireDate(inAYear) }
}

/** The prefix of the rows' ids (`inscription-11`). */
const ROW = 'inscription'

const fullName = (user: Pick<PendingUser, 'prenom' | 'nom'>) => `${user.prenom} ${user.nom}`

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
  const navigation = useNavigation()
  const authorizing = usePendingIntent('authorize')
  const sendingId = authorizing ? navigation.formData?.get('id') : null
  const params = new URLSearchParams(search)
  const confirming =
    params.get('confirmer') === 'refuse' ? users.find((u) => String(u.id) === params.get('id')) : undefined
  const cancelHref = urlWith(search, { confirmer: null, id: null })
  const validating = validation
    ? users.find((user) => user.id === validation.id && user.tokenRegister === null)
    : undefined
  const refusal = (user: PendingUser) => ({
    title: t('autorisation.deleteTitle', { mail: user.mail }),
    description: t('autorisation.deleteConfirm', { nom: fullName(user) }),
    confirmLabel: t('autorisation.delete'),
    pendingLabel: t('autorisation.deleting'),
    fields: {
      intent: 'refuse',
      id: String(user.id),
      mail: user.mail,
      // Without JavaScript focus then goes to the row that takes the refused one's place.
      [FOCUS_FIELD]: neighbourAnchor(users, user, ROW),
    },
  })

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
      cell: (user) => {
        const resend = user.tokenRegister !== null
        const sending = sendingId === String(user.id)
        return (
          <div className="flex flex-wrap justify-end gap-1">
            {resend ? (
              <Form method="post" preventScrollReset>
                <input type="hidden" name="intent" value="authorize" />
                <input type="hidden" name="id" value={user.id} />
                <input type="hidden" name="mail" value={user.mail} />
                <input type="hidden" name="renvoi" value="true" />
                {/* The row stays (its link sent, its expiry shown): focus comes back to this button. */}
                <input type="hidden" name={FOCUS_FIELD} value={anchorId('valider', user.id)} />
                <Button
                  id={anchorId('valider', user.id)}
                  type="submit"
                  variant="ghost"
                  size="sm"
                  // One mail at a time: a second click would send a second link.
                  disabled={authorizing}
                  aria-label={t('autorisation.resendLabel', { mail: user.mail })}
                >
                  <Mail aria-hidden />
                  <span className="hidden lg:inline">
                    {sending ? t('autorisation.sending') : t('autorisation.resend')}
                  </span>
                </Button>
              </Form>
            ) : (
              // The first validation gives the post the carrier starts with: a panel asks for it.
              <Link
                id={anchorId('valider', user.id)}
                to={`${urlWith(search, { [VALIDATE]: String(user.id), confirmer: null, id: null })}#validation`}
                preventScrollReset
                className={buttonVariants({ variant: 'ghost', size: 'sm' })}
                aria-label={t('autorisation.validateLabel', { mail: user.mail })}
              >
                <UserCheck aria-hidden />
                <span className="hidden lg:inline">{t('autorisation.validate')}</span>
              </Link>
            )}
            <ConfirmDialog
              id={anchorId('refuser', user.id)}
              fallbackHref={urlWith(search, { confirmer: 'refuse', id: String(user.id) })}
              {...refusal(user)}
              triggerVariant="ghost"
              triggerClassName="text-destructive"
            >
              <Trash2 aria-hidden />
              <span className="sr-only">{t('autorisation.deleteLabel', { mail: user.mail })}</span>
              <span aria-hidden className="hidden lg:inline">
                {t('autorisation.delete')}
              </span>
            </ConfirmDialog>
          </div>
        )
      },
    },
  ]

  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">{t('autorisation.title')}</h1>
        <p className="text-muted-foreground">{t('autorisation.intro')}</p>
      </div>
      {failure?.error ? (
        <Alert variant="destructive" role="alert">
          <p>{t(failure.error.key, failure.error.values)}</p>
        </Alert>
      ) : null}
      {confirming ? (
        <ConfirmPanel cancelHref={cancelHref} returnTo={anchorId('refuser', confirming.id)} {...refusal(confirming)} />
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
      <SearchForm label={t('autorisation.search')} />
      {failed ? (
        <EmptyState
          icon={TriangleAlert}
          title={t('errors.fetchFailed')}
          action={
            <Link to={urlWith(search, {})} className={buttonVariants({ variant: 'outline' })}>
              {t('autorisation.retry')}
            </Link>
          }
        />
      ) : (
        <>
          <p className="text-sm text-muted-foreground" aria-live="polite">
            {t('autorisation.total', { count: total })}
          </p>
          <div className="overflow-hidden rounded-lg border bg-card">
            <DataTable
              aria-label={t('autorisation.tableLabel')}
              columns={columns}
              rows={users}
              rowKey={(user) => user.id}
              rowAnchor={ROW}
              defaultSort="expiry"
              empty={
                <EmptyState
                  icon={CircleCheck}
                  title={t('autorisation.empty')}
                  description={q ? t('autorisation.emptySearch', { q }) : undefined}
                />
              }
            />
          </div>
          <Pagination page={page} total={total} pageSize={DEFAULT_PAGE_SIZE} />
        </>
      )}
    </div>
  )
}

/**
 * Spec §2: the link's expiry as DD/MM/YYYY HH:mm, red once it has passed and green while it works,
 * with a word saying which (the colour is not the only cue); a registration not yet validated has none.
 */
function Expiry({ expiry, now }: { expiry: number | null; now: number }) {
  const { t } = useTranslation()
  if (expiry === null) {
    return (
      <span className="text-muted-foreground">
        <span aria-hidden>— </span>
        {t('autorisation.notValidated')}
      </span>
    )
  }
  const expired = expiry < now
  return (
    <span className="flex flex-wrap items-center gap-x-2 gap-y-1">
      <time
        dateTime={new Date(expiry).toISOString()}
        className={cn('tabular-nums', expired ? 'text-destructive' : 'text-green-700')}
      >
        {displayDateTime(new Date(expiry).toISOString())}
      </time>
      <span
        className={cn(
          'inline-flex items-center rounded-full border px-2 py-0.5 text-xs font-medium',
          expired ? 'border-destructive/40 bg-destructive/10 text-destructive' : 'border-green-700/40 text-green-700',
        )}
      >
        {t(expired ? 'autorisation.expired' : 'autorisation.valid')}
      </span>
    </span>
  )
}

/** The company of a registration: a carrier, or a name typed at registration, created on validation. */
function Company({ structure }: { structure: PendingUser['structure'] }) {
  const { t } = useTranslation()
  if (!structure) return <span className="text-muted-foreground">—</span>
  return (
    <>
      <span className="break-words">{structure.nom}</span>
      {structure.id === null ? (
        <span className="block text-xs text-muted-foreground">{t('autorisation.newCompany')}</span>
      ) : null}
    </>
  )
}

/**
 * After a validation: the carrier still needs a post to reach any application, given from their
 * company's users page (once they have chosen their password: until then they are no user to post).
 */
function NeedsPost({ structureId, closeHref }: { structureId: string | null; closeHref: string }) {
  const { t } = useTranslation()
  if (!structureId || !/^[1-9][0-9]{0,15}$/.test(structureId)) return null
  return (
    <Alert role="status" className="flex flex-col gap-2">
      <p>{t('autorisation.needsPost')}</p>
      <div className="flex flex-wrap gap-2">
        <Link
          to={`/pages/admin/user/structure/${structureId}?ajouter=1`}
          className={buttonVariants({ variant: 'outline', size: 'sm' })}
        >
          {t('autorisation.givePost')}
        </Link>
        <Link to={closeHref} className={buttonVariants({ variant: 'ghost', size: 'sm' })}>
          {t('autorisation.dismiss')}
        </Link>
      </div>
    </Alert>
  )
}
