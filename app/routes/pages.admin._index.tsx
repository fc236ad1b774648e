import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { Form, Link, useActionData, useLoaderData, useLocation } from '@remix-run/react'
import { CalendarClock, CalendarPlus } from 'lucide-react'
import { type ReactNode, useId } from 'react'
import { useTranslation } from 'react-i18next'
import { BarList, ChartTable, ColumnChart } from '~/components/charts'
import { DataTable, type DataTableColumn } from '~/components/data-table'
import { DATE_PATTERN } from '~/components/date-range-input'
import { EmptyState } from '~/components/empty-state'
import { Field } from '~/components/field'
import { FormPanel, FormPanelButtons } from '~/components/form-panel'
import { Pagination } from '~/components/pagination'
import { Alert } from '~/components/ui/alert'
import { buttonVariants } from '~/components/ui/button'
import { apiMessage, fieldErrors, translateError } from '~/lib/api-errors'
import { adminRead, requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { FOCUS_FIELD } from '~/lib/focus'
import { type FormReply, posted, usePendingIntent } from '~/lib/form'
import { focusFragment, formReply, readForm, submitted } from '~/lib/form.server'
import { readPage } from '~/lib/pagination'
import { pageTitle, titleMeta } from '~/lib/title'
import { pathWithout, urlWith } from '~/lib/url'
import {
  ENDING_POST_DAYS,
  ENDING_POSTS_PAGE,
  type EndingPost,
  EXPIRING_LINK_HOURS,
  HOME_DAYS,
  HOME_USER_LISTS,
} from '../../worker-api/contract/home'

export const handle: BreadcrumbHandle = { breadcrumb: 'nav.adminHome' }
export const meta = titleMeta

/** The URL's name of the post whose extension is open (`?prolonger=12#prolongation`). */
const EXTEND = 'prolonger'
const PANEL = 'prolongation'

/** A wire date ('dd/MM/yyyy') a year later; the 29th of February falls on the 28th. */
function aYearAfter(wire: string): string {
  const [day, month, year] = wire.split('/').map(Number) as [number, number, number]
  const next = new Date(Date.UTC(year + 1, month - 1, day))
  if (next.getUTCMonth() !== month - 1) next.setUTCDate(0)
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${pad(next.getUTCDate())}/${pad(next.getUTCMonth() + 1)}/${next.getUTCFullYear()}`
}

/**
 * The administration home (/pages/admin): what needs the administrator in their scope — users with
 * and without a post, inactive ones, registrations waiting and links about to expire, posts about to
 * end (each extended here), sign-ins and launches of the last month — from one API call.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const page = readPage(new URL(request.url).searchParams.get('page'))
  const {
    auth,
    data: home,
    t,
  } = await adminRead(request, context, (auth) => auth.expect(auth.api.rest.bd.accueil.$get({ query: { page } })))
  return data({ home, page, title: pageTitle(t, t('home.title')) }, { headers: await auth.headers() })
}

/** "Prolonger": the post's new end (PUT rest/bd/poste, its start kept); a refusal said on the field. */
export async function action({ request, context }: ActionFunctionArgs) {
  const auth = await requireAdmin(request, context)
  const form = await readForm(request)
  const submission = submitted(form)
  const id = Number(form.get('id'))
  const dateDebut = String(form.get('dateDebut') ?? '')
  const dateFin = String(form.get('dateFin') ?? '').trim()
  const nom = String(form.get('nom') ?? '')
  if (form.get('intent') !== 'prolonger' || !Number.isSafeInteger(id) || id <= 0) {
    return formReply('', submission.reply(), { key: 'errors.technical' })
  }
  const back = pathWithout(request.url, [EXTEND])
  const result = await auth.settle(auth.api.rest.bd.poste.$put({ json: { id, dateDebut, dateFin } }))
  if (result.ok) {
    return auth.redirectWithToast(`${back}${focusFragment(form)}`, {
      type: 'success',
      key: 'home.extended',
      values: { nom, dateFin },
    })
  }
  // Gone meanwhile, or no longer the caller's to change: the list is read again.
  if (result.status === 404 || result.status === 403) {
    return auth.redirectWithToast(back, { type: 'error', key: 'home.extendGone', values: { nom } })
  }
  // Said on the new end, whichever of the post's dates the API refused, or the refusal itself.
  const fields = fieldErrors(result)
  const said = fields ? [...(fields.dateFin ?? []), ...(fields.dateDebut ?? [])] : []
  const error = apiMessage(result, 'errors.updateFailed')
  const errors = said.length > 0 ? said : [error.key]
  return formReply('prolonger', submission.reply({ fieldErrors: { dateFin: errors } }), error, await auth.headers())
}

/** A figure that links to the list it counts. */
function Figure({ to, value, label, hint }: { to: string; value: number; label: string; hint?: string }) {
  return (
    <li>
      <Link
        to={to}
        className="flex h-full flex-col gap-1 rounded-lg border bg-card p-4 shadow-sm transition-colors hover:bg-accent focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
      >
        <span className="text-3xl font-semibold tabular-nums">{value}</span>
        <span className="font-medium">{label}</span>
        {hint ? <span className="text-sm text-muted-foreground">{hint}</span> : null}
      </Link>
    </li>
  )
}

function Section({ title, children, action }: { title: string; children: ReactNode; action?: ReactNode }) {
  const id = useId()
  return (
    <section aria-labelledby={id} className="flex flex-col gap-3">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 id={id} className="text-lg font-semibold">
          {title}
        </h2>
        {action}
      </div>
      {children}
    </section>
  )
}

const usersUrl = (filters: Record<string, string>) =>
  `/pages/admin/listeUtilisateurs?${new URLSearchParams(filters).toString()}`

/** The extension of a post: its new end, a year after the current one unless typed otherwise. */
function ExtendPanel({ poste, reply, cancelHref }: { poste: EndingPost; reply?: FormReply; cancelHref: string }) {
  const { t } = useTranslation()
  const pending = usePendingIntent('prolonger')
  const nom = `${poste.utilisateur.prenom} ${poste.utilisateur.nom}`
  return (
    <FormPanel
      id={PANEL}
      heading="h3"
      title={t('home.extendTitle', { nom })}
      intro={t('home.extendIntro', {
        fonction: poste.fonction.libelle,
        structure: poste.structure.nom,
        debut: poste.dateDebut,
        fin: poste.dateFin,
      })}
    >
      <Form method="post" preventScrollReset className="flex flex-col gap-4">
        <input type="hidden" name="intent" value="prolonger" />
        <input type="hidden" name="id" value={poste.id} />
        <input type="hidden" name="dateDebut" value={poste.dateDebut} />
        <input type="hidden" name="nom" value={nom} />
        <input type="hidden" name={FOCUS_FIELD} value={`poste-${poste.id}`} />
        <div className="max-w-xs">
          <Field
            label={t('home.newEnd')}
            hint={t('dateRange.hint')}
            errors={reply?.result.error?.dateFin?.map((e) => translateError(t, e))}
            inputProps={{
              id: 'prolongation-fin',
              name: 'dateFin',
              type: 'text',
              inputMode: 'numeric',
              pattern: DATE_PATTERN,
              maxLength: 10,
              required: true,
              autoComplete: 'off',
              placeholder: t('dateRange.placeholder'),
              defaultValue: reply ? posted(reply, 'dateFin').trim() : aYearAfter(poste.dateFin),
            }}
          />
        </div>
        <FormPanelButtons
          icon={CalendarPlus}
          label={t('home.extend')}
          pendingLabel={t('home.extending')}
          pending={pending}
          cancelHref={cancelHref}
        />
      </Form>
    </FormPanel>
  )
}

export default function AdminHome() {
  const { home, page } = useLoaderData<typeof loader>()
  const failure = useActionData<typeof action>()
  // A refused extension comes back in its panel; any other failure is said above the list.
  const refused = failure?.intent === 'prolonger' ? failure : undefined
  const { search } = useLocation()
  const { t } = useTranslation()
  const params = new URLSearchParams(search)
  const extending =
    home.postesFinissant.items.find((p) => String(p.id) === params.get(EXTEND)) ??
    home.postesFinissant.items.find((p) => String(p.id) === posted(refused, 'id'))
  const { utilisateurs, inscriptions, postesFinissant, connexions, lancements } = home
  const first = connexions[0]?.jour ?? ''
  const last = connexions[connexions.length - 1]?.jour ?? ''
  const signIns = connexions.map((day) => ({ label: day.jour, value: day.nombre }))
  const signInTotal = signIns.reduce((sum, day) => sum + day.value, 0)
  const launches = lancements.map((row) => ({ label: row.application, value: row.nombre }))
  const history = `/pages/admin/listeLogs?${new URLSearchParams({ type: 'CONNEXION', du: first, au: last }).toString()}`

  const columns: DataTableColumn<EndingPost>[] = [
    {
      id: 'utilisateur',
      header: t('home.who'),
      // A long name or structure wraps anywhere rather than widen a phone's page.
      className: '[overflow-wrap:anywhere]',
      cell: (poste) => (
        <span className="flex flex-col">
          <Link
            to={`/pages/admin/detail/user/${poste.utilisateur.id}`}
            className="font-medium underline-offset-4 hover:underline"
          >
            {poste.utilisateur.prenom} {poste.utilisateur.nom}
          </Link>
          <span className="text-muted-foreground sm:hidden">
            {poste.fonction.libelle} · {poste.structure.nom}
          </span>
          <span className="tabular-nums text-muted-foreground sm:hidden">
            {t('home.ends')} {poste.dateFin}
          </span>
        </span>
      ),
    },
    {
      id: 'poste',
      header: t('home.where'),
      className: 'hidden sm:table-cell [overflow-wrap:anywhere]',
      cell: (poste) => (
        <span>
          {poste.fonction.libelle} <span className="text-muted-foreground">· {poste.structure.nom}</span>
        </span>
      ),
    },
    {
      id: 'fin',
      header: t('home.ends'),
      className: 'hidden sm:table-cell tabular-nums',
      cell: (poste) => poste.dateFin,
    },
    {
      id: 'actions',
      header: <span className="sr-only">{t('home.actions')}</span>,
      className: 'text-right',
      cell: (poste) =>
        poste.modification ? (
          <Link
            id={`poste-${poste.id}`}
            to={`${urlWith(search, { [EXTEND]: String(poste.id) })}#${PANEL}`}
            preventScrollReset
            className={buttonVariants({ variant: 'outline', size: 'sm' })}
            aria-label={t('home.extendLabel', { nom: `${poste.utilisateur.prenom} ${poste.utilisateur.nom}` })}
          >
            <CalendarPlus aria-hidden />
            <span aria-hidden className="hidden md:inline">
              {t('home.extend')}
            </span>
          </Link>
        ) : null,
    },
  ]

  return (
    <div className="flex flex-col gap-8">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">{t('home.title')}</h1>
        <p className="text-muted-foreground">{t('home.intro')}</p>
      </div>

      <Section title={t('home.users')}>
        <ul className="grid gap-3 sm:grid-cols-3">
          <Figure to={usersUrl(HOME_USER_LISTS.avecPoste)} value={utilisateurs.avecPoste} label={t('home.withPost')} />
          <Figure
            to={usersUrl(HOME_USER_LISTS.sansPoste)}
            value={utilisateurs.sansPoste}
            label={t('home.withoutPost')}
          />
          <Figure to={usersUrl(HOME_USER_LISTS.inactifs)} value={utilisateurs.inactifs} label={t('home.inactive')} />
        </ul>
      </Section>

      <Section title={t('home.registrations')}>
        <ul className="grid gap-3 sm:grid-cols-2">
          <Figure to="/pages/admin/autorisation" value={inscriptions.enAttente} label={t('home.waiting')} />
          <Figure
            to="/pages/admin/autorisation"
            value={inscriptions.liensExpirant}
            label={t('home.expiring', { hours: EXPIRING_LINK_HOURS })}
            hint={t('home.expiringHint')}
          />
        </ul>
      </Section>

      <Section title={t('home.endingPosts', { days: ENDING_POST_DAYS, count: postesFinissant.total })}>
        {failure?.error && !refused ? (
          <Alert variant="destructive" role="alert">
            {t(failure.error.key, failure.error.values)}
          </Alert>
        ) : null}
        {extending ? (
          <ExtendPanel
            poste={extending}
            reply={posted(refused, 'id') === String(extending.id) ? refused : undefined}
            cancelHref={`${urlWith(search, { [EXTEND]: null })}#poste-${extending.id}`}
          />
        ) : null}
        <DataTable
          caption={t('home.endingCaption', { days: ENDING_POST_DAYS })}
          columns={columns}
          rows={postesFinissant.items}
          rowKey={(poste) => poste.id}
          empty={<EmptyState compact icon={CalendarClock} title={t('home.noEndingPost', { days: ENDING_POST_DAYS })} />}
        />
        <Pagination page={page} total={postesFinissant.total} pageSize={ENDING_POSTS_PAGE} />
      </Section>

      <div className="grid gap-8 lg:grid-cols-2">
        <Section
          title={t('home.signIns', { days: HOME_DAYS })}
          action={
            <Link to={history} className="text-sm underline underline-offset-4">
              {t('home.signInsHistory')}
            </Link>
          }
        >
          <p className="text-sm text-muted-foreground">{t('home.signInsTotal', { count: signInTotal })}</p>
          <ColumnChart
            points={signIns}
            max={t('home.scale', { count: Math.max(0, ...signIns.map((day) => day.value)) })}
            first={first}
            last={last}
          />
          <ChartTable
            caption={t('home.signIns', { days: HOME_DAYS })}
            headers={[t('home.day'), t('home.signInCount')]}
            points={signIns}
          />
        </Section>
        <Section title={t('home.launches', { days: HOME_DAYS })}>
          {launches.length === 0 ? (
            <p className="text-sm text-muted-foreground">{t('home.noLaunch')}</p>
          ) : (
            <>
              <BarList points={launches} />
              <ChartTable
                caption={t('home.launches', { days: HOME_DAYS })}
                headers={[t('home.application'), t('home.launchCount')]}
                points={launches}
              />
            </>
          )}
        </Section>
      </div>
    </div>
  )
}
