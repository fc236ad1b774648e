import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { Form, Link, useActionData, useLoaderData, useLocation, useNavigation } from '@remix-run/react'
import type { TFunction } from 'i18next'
import { Check, CheckCheck, Download, Filter, Lock, X } from 'lucide-react'
import { useEffect, useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { ConfirmDialog } from '~/components/confirm-dialog'
import { EmptyState } from '~/components/empty-state'
import { Field } from '~/components/field'
import { FormError } from '~/components/form-error'
import { FormPanel } from '~/components/form-panel'
import { Pagination } from '~/components/pagination'
import { SelectField } from '~/components/select-field'
import { SubmitButton } from '~/components/submit-button'
import { Button, buttonVariants } from '~/components/ui/button'
import { Table, TableHead, TableHeader, TableRow } from '~/components/ui/table'
import { reviewAction, reviewData } from '~/features/governance/review.server'
import { ITEMS_PER_PAGE } from '~/features/governance/review-page'
import { Progress } from '~/features/governance/review-progress'
import { requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { displayDate, displayDateTime } from '~/lib/dates'
import { usePendingIntent } from '~/lib/form'
import { rowText } from '~/lib/i18n'
import { idParam } from '~/lib/id-param'
import { pageTitle, titleMeta } from '~/lib/title'
import { cn } from '~/lib/utils'
import {
  ITEM_STATES,
  type ItemState,
  type ReviewDetail,
  type ReviewItem,
} from '../../worker-api/contract/access-reviews'

export const handle: BreadcrumbHandle = { breadcrumb: 'nav.reviews' }
export const meta = titleMeta

/**
 * A campaign (README, "Access reviews"): its progress per structure of the administrator's scope, and its items there,
 * grouped by structure, those to review first, filtered and searched in the URL — each confirmed or ended, singly or
 * ticked together, ending after a confirmation; closed, the same page is its report.
 */
export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const id = idParam(params.id)
  const {
    auth,
    data: screen,
    t,
  } = await requireAdmin(request, context, { read: (auth) => reviewData(request, auth, id) })
  return data({ ...screen, me: auth.user.id, title: pageTitle(t, screen.revue.nom) }, { headers: await auth.headers() })
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const id = idParam(params.id)
  return reviewAction(request, await requireAdmin(request, context), id)
}

const fullName = (item: ReviewItem) => `${item.utilisateur.prenom} ${item.utilisateur.nom}`

/** The table's classes, as `TableRow` and `TableCell` write them, merged once for the 50 rows. */
const ROW = 'border-b transition-colors hover:bg-muted/50'
const CELL = 'p-2 align-top whitespace-normal break-words'
const ROW_BUTTON = cn(buttonVariants({ variant: 'outline', size: 'sm' }), 'px-2.5')

export default function ReviewCampaign() {
  const { revue, items, total, query, me } = useLoaderData<typeof loader>()
  const reply = useActionData<typeof action>()
  const { t } = useTranslation()
  const { pathname, search } = useLocation()
  const deciding = usePendingIntent('decider')
  const open = revue.etat === 'OUVERTE'
  const progress = revue.progression
  const closable = revue.etat === 'ECHUE' || (open && progress.total === progress.confirmes + progress.termines)
  const refused = reply?.kind === 'refused' ? reply : undefined
  const confirming = reply?.kind === 'confirm' ? reply : undefined
  const confirmingAll = reply?.kind === 'confirmAll' ? reply : undefined
  // Everything the filter keeps still to review: offered unless the filter shows decided items only.
  const allOffered = open && (query.etat === undefined || query.etat === 'A_REVOIR')
  const filterStructure = revue.structures.find((structure) => structure.id === query.structure)?.nom
  // A decision made, the focus leaves the row that was decided for the list's heading: a second Enter decides nothing
  // nobody looked at (a confirmation asked takes the focus itself).
  const navigation = useNavigation()
  const itemsHeading = useRef<HTMLHeadingElement>(null)
  const wasDeciding = useRef(false)
  useEffect(() => {
    if (deciding) wasDeciding.current = true
    else if (wasDeciding.current && navigation.state === 'idle') {
      wasDeciding.current = false
      if (!reply) itemsHeading.current?.focus()
    }
  }, [deciding, navigation.state, reply])
  const mine = (item: ReviewItem) => item.utilisateur.id === me
  const toReview = (item: ReviewItem) => open && item.etat === 'A_REVOIR' && !mine(item)
  const byId = new Map(items.map((item) => [item.id, item]))
  // A page of 50 items and up to 100 structures: each label is read from i18next once and filled row by row.
  const each = {
    select: rowText(t, 'reviews.selectOne', ['name']),
    confirm: rowText(t, 'reviews.confirmOne', ['name']),
    end: rowText(t, 'reviews.endOne', ['name']),
    opens: rowText(t, 'reviews.opens', ['applications']),
    lastSignIn: rowText(t, 'reviews.lastSignIn', ['date']),
    lastLaunch: rowText(t, 'reviews.lastLaunch', ['date']),
    progressOf: rowText(t, 'reviews.progressOf', ['name']),
    progressValue: rowText(t, 'reviews.progressValue', ['done', 'total', 'confirmes', 'termines']),
    decision: decisionTexts(t),
  }
  const confirmLabel = t('reviews.confirm')
  const endLabel = t('reviews.end')
  const never = t('reviews.never')
  const dayOr = (iso: string | null) => (iso ? displayDate(iso) : never)
  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div className="min-w-0">
          <h1 className="text-2xl font-semibold tracking-tight break-words">{revue.nom}</h1>
          <p className="text-muted-foreground">
            {t('reviews.summary', {
              structure: revue.structure.nom,
              due: revue.echeance,
              outcome: t(`reviews.outcomes.${revue.siNonRevu}`),
              state: t(`reviews.states.${revue.etat}`),
            })}
          </p>
        </div>
        <div className="flex flex-wrap gap-2">
          <a
            href={`/pages/admin/revues/${revue.id}/rapport`}
            className={buttonVariants({ variant: 'outline' })}
            download
          >
            <Download aria-hidden />
            {t('reviews.report')}
          </a>
          {closable ? (
            <ConfirmDialog
              id="cloturer"
              fallbackHref={`${pathname}?confirmer=cloture`}
              title={t('reviews.closeTitle', { name: revue.nom })}
              description={t('reviews.closeConfirm')}
              confirmLabel={t('reviews.close')}
              pendingLabel={t('reviews.closing')}
              fields={{ intent: 'cloture' }}
              variant="default"
              triggerVariant="default"
              triggerSize="default"
            >
              <Lock aria-hidden />
              {t('reviews.close')}
            </ConfirmDialog>
          ) : null}
        </div>
      </div>
      {new URLSearchParams(search).get('confirmer') === 'cloture' && closable ? (
        <FormPanel title={t('reviews.closeTitle', { name: revue.nom })} intro={t('reviews.closeConfirm')}>
          <Form method="post" action={pathname} className="flex flex-wrap gap-2">
            <input type="hidden" name="intent" value="cloture" />
            <SubmitButton pending={false}>{t('reviews.close')}</SubmitButton>
            <Link to={pathname} className={buttonVariants({ variant: 'outline' })}>
              {t('reviews.cancel')}
            </Link>
          </Form>
        </FormPanel>
      ) : null}
      <FormError message={refused ? t(refused.error.key, refused.error.values) : null} />

      {revue.etat === 'CLOTUREE' || revue.etat === 'ECHUE' ? <CampaignReport revue={revue} /> : null}

      <section aria-labelledby="progress" className="flex flex-col gap-3">
        <h2 id="progress" className="text-lg font-semibold">
          {t('reviews.progressTitle')}
        </h2>
        <div className="max-w-md">
          <Progress {...progress} label={t('reviews.progressAll')} />
        </div>
        {revue.structures.length > 1 ? (
          <ul className="grid gap-3 sm:grid-cols-2 lg:grid-cols-3">
            {revue.structures.map((structure) => (
              <li key={structure.id} className="flex flex-col gap-1 rounded-lg border bg-card p-3">
                <Link
                  to={`${pathname}?structure=${structure.id}`}
                  className="break-words font-medium text-primary underline-offset-4 hover:underline"
                >
                  {structure.nom}
                </Link>
                <Progress
                  {...structure}
                  label={each.progressOf({ name: structure.nom })}
                  valueText={each.progressValue({ ...structure, done: structure.confirmes + structure.termines })}
                />
              </li>
            ))}
          </ul>
        ) : null}
        {revue.structuresTronquees ? (
          <p className="text-sm text-muted-foreground">
            {t('reviews.structuresShown', { count: revue.structures.length })}
          </p>
        ) : null}
      </section>

      {confirming ? (
        <FormPanel
          tone="destructive"
          focusOnShow
          title={t('reviews.endTitle', { count: confirming.ids.length })}
          intro={t('reviews.endConfirm', { date: confirming.dateFin || t('reviews.today') })}
        >
          <ul className="list-disc pl-5 text-sm">
            {confirming.ids.map((id) => {
              const item = byId.get(id)
              return (
                <li key={id}>
                  {item ? `${fullName(item)}, ${item.poste.fonction.libelle}, ${item.poste.structure.nom}` : `#${id}`}
                </li>
              )
            })}
          </ul>
          <Form method="post" className="flex flex-wrap gap-2">
            <input type="hidden" name="intent" value="decider" />
            <input type="hidden" name="decision" value="TERMINER" />
            <input type="hidden" name="confirme" value="oui" />
            <input type="hidden" name="dateFin" value={confirming.dateFin} />
            <input type="hidden" name="commentaire" value={confirming.commentaire} />
            {confirming.ids.map((id) => (
              <input key={id} type="hidden" name="element" value={id} />
            ))}
            <SubmitButton variant="destructive" pending={deciding} pendingLabel={t('reviews.ending')}>
              {t('reviews.endConfirmButton', { count: confirming.ids.length })}
            </SubmitButton>
            <Link to={`${pathname}${search}`} className={buttonVariants({ variant: 'outline' })}>
              {t('reviews.cancel')}
            </Link>
          </Form>
        </FormPanel>
      ) : null}

      {confirmingAll ? (
        <FormPanel
          tone={confirmingAll.decision === 'TERMINER' ? 'destructive' : 'primary'}
          focusOnShow
          title={t(confirmingAll.decision === 'TERMINER' ? 'reviews.endAllTitle' : 'reviews.confirmAllTitle', {
            count: confirmingAll.count,
          })}
          intro={
            confirmingAll.decision === 'TERMINER'
              ? `${t('reviews.allScope')} ${t('reviews.endConfirm', { date: confirmingAll.dateFin || t('reviews.today') })}`
              : t('reviews.allScope')
          }
        >
          <p className="text-sm">
            {t('reviews.allFilter', {
              structure: filterStructure ?? t('reviews.allStructures'),
              q: query.q ?? '—',
            })}
          </p>
          <Form method="post" className="flex flex-wrap gap-2">
            <input type="hidden" name="intent" value="decider" />
            <input type="hidden" name="tous" value={confirmingAll.decision} />
            <input type="hidden" name="confirme" value="oui" />
            <input type="hidden" name="dateFin" value={confirmingAll.dateFin} />
            <input type="hidden" name="commentaire" value={confirmingAll.commentaire} />
            <SubmitButton
              variant={confirmingAll.decision === 'TERMINER' ? 'destructive' : 'default'}
              pending={deciding}
              pendingLabel={t('reviews.sending')}
            >
              {t(confirmingAll.decision === 'TERMINER' ? 'reviews.endAllButton' : 'reviews.confirmAllButton', {
                count: confirmingAll.count,
              })}
            </SubmitButton>
            <Link to={`${pathname}${search}`} className={buttonVariants({ variant: 'outline' })}>
              {t('reviews.cancel')}
            </Link>
          </Form>
        </FormPanel>
      ) : null}

      <section aria-labelledby="items" className="flex flex-col gap-3">
        <h2 id="items" ref={itemsHeading} tabIndex={-1} className="text-lg font-semibold">
          {t('reviews.itemsTitle')}
        </h2>
        <Form method="get" className="grid items-end gap-3 sm:grid-cols-2 lg:grid-cols-4">
          <SelectField
            label={t('reviews.structure')}
            options={revue.structures.map((structure) => ({ value: String(structure.id), label: structure.nom }))}
            placeholder={t('reviews.allStructures')}
            selectProps={{ id: 'filtre-structure', name: 'structure', defaultValue: String(query.structure ?? '') }}
          />
          <SelectField
            label={t('reviews.state')}
            options={(['A_REVOIR', 'CONFIRME', 'TERMINE'] as const).map((etat) => ({
              value: etat,
              label: t(`reviews.itemStates.${etat}`),
            }))}
            placeholder={t('reviews.allStates')}
            selectProps={{ id: 'filtre-etat', name: 'etat', defaultValue: query.etat ?? '' }}
          />
          <Field
            label={t('reviews.search')}
            inputProps={{ id: 'filtre-q', name: 'q', type: 'search', defaultValue: query.q ?? '', maxLength: 100 }}
          />
          <div>
            <Button type="submit" variant="outline">
              <Filter aria-hidden />
              {t('reviews.filter')}
            </Button>
          </div>
        </Form>
        <p className="text-sm text-muted-foreground" aria-live="polite">
          {t('reviews.itemsTotal', { count: total })}
        </p>
        {items.length === 0 ? (
          <EmptyState title={t('reviews.noItem')} />
        ) : (
          <Form method="post" className="flex flex-col gap-4">
            <input type="hidden" name="intent" value="decider" />
            <div className="overflow-hidden rounded-lg border bg-card">
              <Table aria-label={t('reviews.itemsTitle')}>
                <TableHeader>
                  <TableRow>
                    <TableHead className="w-10">
                      <span className="sr-only">{t('reviews.select')}</span>
                    </TableHead>
                    <TableHead>{t('reviews.who')}</TableHead>
                    <TableHead className="hidden lg:table-cell">{t('reviews.post')}</TableHead>
                    <TableHead className="hidden xl:table-cell">{t('reviews.activity')}</TableHead>
                    <TableHead>{t('reviews.decision')}</TableHead>
                  </TableRow>
                </TableHeader>
                {/* Plain rows, one markup at every width: 50 of them are the page's weight. */}
                <tbody className="[&_tr:last-child]:border-0">
                  {items.map((item) => {
                    const name = fullName(item)
                    const post = `${item.poste.fonction.libelle}, ${item.poste.structure.nom}`
                    return (
                      <tr key={item.id} id={`element-${item.id}`} className={ROW}>
                        <td className={CELL}>
                          {toReview(item) ? (
                            <input
                              type="checkbox"
                              name="element"
                              value={item.id}
                              aria-label={each.select({ name })}
                              className="mt-1 size-4 accent-primary"
                            />
                          ) : null}
                        </td>
                        <td className={CELL}>
                          <span className="font-medium">{name}</span>
                          <span className="block wrap-anywhere text-xs text-muted-foreground">
                            {item.utilisateur.login}
                          </span>
                          <span className="mt-1 block lg:hidden">{post}</span>
                        </td>
                        <td className={`${CELL} hidden lg:table-cell`}>
                          {post}
                          <span className="block text-xs tabular-nums text-muted-foreground">
                            {item.poste.dateDebut} → {item.poste.dateFin}
                          </span>
                          {item.applications.length > 0 ? (
                            <span className="block text-xs text-muted-foreground">
                              {each.opens({ applications: item.applications.join(', ') })}
                            </span>
                          ) : null}
                        </td>
                        <td className={`${CELL} hidden text-xs xl:table-cell`}>
                          <span className="block">
                            {each.lastSignIn({ date: dayOr(item.utilisateur.derniereConnexion) })}
                          </span>
                          <span className="block">
                            {each.lastLaunch({ date: dayOr(item.utilisateur.dernierLancement) })}
                          </span>
                        </td>
                        <td className={CELL}>
                          {toReview(item) ? (
                            <div className="flex flex-col gap-2 sm:flex-row sm:flex-wrap">
                              <button
                                type="submit"
                                name="un"
                                value={`CONFIRMER:${item.id}`}
                                className={ROW_BUTTON}
                                aria-label={each.confirm({ name })}
                              >
                                {confirmLabel}
                              </button>
                              <button
                                type="submit"
                                name="un"
                                value={`TERMINER:${item.id}`}
                                className={`${ROW_BUTTON} text-destructive`}
                                aria-label={each.end({ name })}
                              >
                                {endLabel}
                              </button>
                            </div>
                          ) : (
                            <ItemDecision
                              item={item}
                              own={mine(item) && item.etat === 'A_REVOIR'}
                              ending={revue.siNonRevu === 'TERMINER'}
                              texts={each.decision}
                            />
                          )}
                        </td>
                      </tr>
                    )
                  })}
                </tbody>
              </Table>
            </div>
            {open ? (
              <fieldset className="flex max-w-3xl flex-col gap-3 rounded-lg border bg-card p-4">
                <legend className="px-1 text-sm font-medium">{t('reviews.selection')}</legend>
                <div className="grid gap-3 sm:grid-cols-2">
                  <Field
                    label={t('reviews.endDate')}
                    hint={t('reviews.endDateHint')}
                    errors={refused?.fields.dateFin?.map((key) => t(key))}
                    inputProps={{
                      id: 'selection-fin',
                      name: 'dateFin',
                      inputMode: 'numeric',
                      pattern: String.raw`\d{2}/\d{2}/\d{4}`,
                      maxLength: 10,
                      placeholder: t('dateRange.placeholder'),
                      autoComplete: 'off',
                    }}
                  />
                  <Field
                    label={t('reviews.comment')}
                    errors={refused?.fields.commentaire?.map((key) => t(key))}
                    inputProps={{ id: 'selection-commentaire', name: 'commentaire', maxLength: 500 }}
                  />
                </div>
                <div className="flex flex-wrap gap-2">
                  <SubmitButton
                    name="decision"
                    value="CONFIRMER"
                    icon={Check}
                    pending={deciding}
                    pendingLabel={t('reviews.sending')}
                  >
                    {t('reviews.confirmSelection')}
                  </SubmitButton>
                  <SubmitButton
                    name="decision"
                    value="TERMINER"
                    icon={X}
                    variant="destructive"
                    pending={deciding}
                    pendingLabel={t('reviews.sending')}
                  >
                    {t('reviews.endSelection')}
                  </SubmitButton>
                </div>
                {allOffered ? (
                  <div className="flex flex-col gap-2 border-t pt-3">
                    <p className="text-sm text-muted-foreground">{t('reviews.allHint')}</p>
                    <div className="flex flex-wrap gap-2">
                      <SubmitButton
                        name="tous"
                        value="CONFIRMER"
                        variant="outline"
                        icon={CheckCheck}
                        pending={deciding}
                        pendingLabel={t('reviews.sending')}
                      >
                        {t('reviews.confirmAll')}
                      </SubmitButton>
                      <SubmitButton
                        name="tous"
                        value="TERMINER"
                        variant="outline"
                        icon={X}
                        pending={deciding}
                        pendingLabel={t('reviews.sending')}
                        className="text-destructive"
                      >
                        {t('reviews.endAll')}
                      </SubmitButton>
                    </div>
                  </div>
                ) : null}
              </fieldset>
            ) : null}
          </Form>
        )}
        <Pagination page={query.page} total={total} pageSize={ITEMS_PER_PAGE} />
      </section>
    </div>
  )
}

/** What an auditor asks of a campaign once its due date is applied or it is closed: who opened, applied, closed it. */
function CampaignReport({ revue }: { revue: ReviewDetail }) {
  const { t } = useTranslation()
  const { total, confirmes, termines } = revue.progression
  const someone = t('reviews.reportSomeone')
  return (
    <section aria-labelledby="rapport" className="flex flex-col gap-2 rounded-lg border bg-card p-4">
      <h2 id="rapport" className="text-lg font-semibold">
        {t('reviews.reportTitle')}
      </h2>
      <p className="text-sm text-muted-foreground">{t('reviews.reportIntro')}</p>
      <ul className="flex flex-col gap-1 text-sm">
        <li>
          {t('reviews.reportOpened', { date: displayDateTime(revue.dateCreation), name: revue.auteur ?? someone })}
        </li>
        {revue.dateEcheanceAppliquee ? (
          <li>
            {t('reviews.reportApplied', {
              due: revue.echeance,
              date: displayDateTime(revue.dateEcheanceAppliquee),
              outcome: t(`reviews.outcomes.${revue.siNonRevu}`),
            })}
          </li>
        ) : null}
        {revue.dateCloture ? (
          <li>
            {t('reviews.reportClosed', { date: displayDateTime(revue.dateCloture), name: revue.cloturePar ?? someone })}
          </li>
        ) : null}
        <li className="font-medium">{t('reviews.reportCounts', { total, confirmes, termines })}</li>
      </ul>
    </section>
  )
}

/** What says how an item was decided, read once for the page. */
function decisionTexts(t: TFunction) {
  return {
    own: t('reviews.own'),
    states: Object.fromEntries(ITEM_STATES.map((etat) => [etat, t(`reviews.itemStates.${etat}`)])) as Record<
      ItemState,
      string
    >,
    automatic: rowText(t, 'reviews.automatic', ['date']),
    automaticKept: rowText(t, 'reviews.automaticKept', ['date']),
    decidedBy: rowText(t, 'reviews.decidedBy', ['name', 'date']),
    endsOn: rowText(t, 'reviews.endsOn', ['date']),
  }
}

/** How an item was decided (or why it is not the reviewer's to decide). */
function ItemDecision({
  item,
  own,
  ending,
  texts,
}: {
  item: ReviewItem
  own: boolean
  /** The campaign ends the posts left unreviewed: one confirmed at the due date was kept, its author unable to end it. */
  ending: boolean
  texts: ReturnType<typeof decisionTexts>
}) {
  if (own) return <span className="text-sm text-muted-foreground">{texts.own}</span>
  const decision = item.decision
  return (
    <div className="flex flex-col gap-1 text-sm">
      <span className="font-medium">{texts.states[item.etat]}</span>
      {decision ? (
        <span className="text-xs text-muted-foreground">
          {decision.automatique
            ? (ending && item.etat === 'CONFIRME' ? texts.automaticKept : texts.automatic)({
                date: displayDate(decision.date),
              })
            : texts.decidedBy({ name: decision.par ?? '', date: displayDate(decision.date) })}
          {decision.dateFin ? ` · ${texts.endsOn({ date: decision.dateFin })}` : ''}
        </span>
      ) : null}
      {decision?.commentaire ? <span className="break-words text-xs">{decision.commentaire}</span> : null}
    </div>
  )
}
