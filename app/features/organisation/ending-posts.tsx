import { Form, Link, useActionData, useLocation } from '@remix-run/react'
import { CalendarClock, CalendarPlus } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { DataTable, type DataTableColumn } from '~/components/data-table'
import { DATE_PATTERN } from '~/components/date-range-input'
import { EmptyState } from '~/components/empty-state'
import { Field } from '~/components/field'
import { FormPanel, FormPanelButtons } from '~/components/form-panel'
import { Pagination } from '~/components/pagination'
import { Alert } from '~/components/ui/alert'
import { buttonVariants } from '~/components/ui/button'
import { translateError } from '~/lib/api-errors'
import { FOCUS_FIELD } from '~/lib/focus'
import { type FormReply, posted, usePendingIntent } from '~/lib/form'
import { urlWith } from '~/lib/url'
import { ENDING_POST_DAYS, ENDING_POSTS_PAGE, type EndingPost } from '../../../worker-api/contract/organisation/home'

/** The URL's name of the post whose extension is open (`?prolonger=12#prolongation`). */
export const EXTEND = 'prolonger'
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
 * The home's posts about to end (each row links to its user), the extension of the one whose panel
 * is open (`?prolonger=`), and the last failed action: a refused extension in its panel, anything
 * else above the list.
 */
export function EndingPosts({ postes, total, page }: { postes: EndingPost[]; total: number; page: number }) {
  const failure = useActionData() as FormReply | undefined
  const refused = failure?.intent === 'prolonger' ? failure : undefined
  const { search } = useLocation()
  const { t } = useTranslation()
  const params = new URLSearchParams(search)
  const extending =
    postes.find((p) => String(p.id) === params.get(EXTEND)) ??
    postes.find((p) => String(p.id) === posted(refused, 'id'))
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
    <>
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
        rows={postes}
        rowKey={(poste) => poste.id}
        empty={<EmptyState compact icon={CalendarClock} title={t('home.noEndingPost', { days: ENDING_POST_DAYS })} />}
      />
      <Pagination page={page} total={total} pageSize={ENDING_POSTS_PAGE} />
    </>
  )
}

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
