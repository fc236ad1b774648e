import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { Form, Link, useActionData, useLoaderData, useLocation } from '@remix-run/react'
import { Check, Download, Filter, Lock, X } from 'lucide-react'
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
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '~/components/ui/table'
import { reviewAction, reviewData, reviewId } from '~/features/governance/review.server'
import { ITEMS_PER_PAGE } from '~/features/governance/review-page'
import { Progress } from '~/features/governance/review-progress'
import { requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { displayDate, displayDateTime } from '~/lib/dates'
import { usePendingIntent } from '~/lib/form'
import { pageTitle, titleMeta } from '~/lib/title'
import type { ReviewDetail, ReviewItem } from '../../worker-api/contract/access-reviews'

export const handle: BreadcrumbHandle = { breadcrumb: 'nav.reviews' }
export const meta = titleMeta

/**
 * A campaign (README, "Access reviews"): its progress per structure of the administrator's scope, and its items there,
 * grouped by structure, those to review first, filtered and searched in the URL — each confirmed or ended, singly or
 * ticked together, ending after a confirmation; closed, the same page is its report.
 */
export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const id = reviewId(params.id)
  const {
    auth,
    data: screen,
    t,
  } = await requireAdmin(request, context, { read: (auth) => reviewData(request, auth, id) })
  return data({ ...screen, me: auth.user.id, title: pageTitle(t, screen.revue.nom) }, { headers: await auth.headers() })
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const id = reviewId(params.id)
  return reviewAction(request, await requireAdmin(request, context), id)
}

const fullName = (item: ReviewItem) => `${item.utilisateur.prenom} ${item.utilisateur.nom}`

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
  const mine = (item: ReviewItem) => item.utilisateur.id === me
  const toReview = (item: ReviewItem) => open && item.etat === 'A_REVOIR' && !mine(item)
  const byId = new Map(items.map((item) => [item.id, item]))
  /** An item's decision buttons, or how it was decided. */
  const decisionOf = (item: ReviewItem) => (
    <>
      {toReview(item) ? (
        <div className="flex flex-wrap gap-2">
          <Button
            type="submit"
            name="un"
            value={`CONFIRMER:${item.id}`}
            size="sm"
            variant="outline"
            aria-label={t('reviews.confirmOne', { name: fullName(item) })}
          >
            <Check aria-hidden />
            <span aria-hidden>{t('reviews.confirm')}</span>
          </Button>
          <Button
            type="submit"
            name="un"
            value={`TERMINER:${item.id}`}
            size="sm"
            variant="outline"
            className="text-destructive"
            aria-label={t('reviews.endOne', { name: fullName(item) })}
          >
            <X aria-hidden />
            <span aria-hidden>{t('reviews.end')}</span>
          </Button>
        </div>
      ) : (
        <ItemDecision item={item} own={mine(item) && item.etat === 'A_REVOIR'} />
      )}
    </>
  )
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
                <Progress {...structure} label={t('reviews.progressOf', { name: structure.nom })} />
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

      <section aria-labelledby="items" className="flex flex-col gap-3">
        <h2 id="items" className="text-lg font-semibold">
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
                    <TableHead className="hidden sm:table-cell">{t('reviews.decision')}</TableHead>
                  </TableRow>
                </TableHeader>
                <TableBody>
                  {items.map((item) => (
                    <TableRow key={item.id} id={`element-${item.id}`}>
                      <TableCell className="align-top">
                        {toReview(item) ? (
                          <input
                            type="checkbox"
                            name="element"
                            value={item.id}
                            aria-label={t('reviews.selectOne', { name: fullName(item) })}
                            className="mt-1 size-4 accent-primary"
                          />
                        ) : null}
                      </TableCell>
                      <TableCell className="align-top whitespace-normal break-words">
                        <span className="font-medium">{fullName(item)}</span>
                        <span className="block wrap-anywhere text-muted-foreground">{item.utilisateur.login}</span>
                        <span className="mt-1 block lg:hidden">
                          {item.poste.fonction.libelle}, {item.poste.structure.nom}
                        </span>
                        {/* On a phone the decision rides under the post: the table keeps the room for names. */}
                        <div className="mt-2 sm:hidden">{decisionOf(item)}</div>
                      </TableCell>
                      <TableCell className="hidden align-top whitespace-normal lg:table-cell">
                        {item.poste.fonction.libelle}, {item.poste.structure.nom}
                        <span className="block text-xs tabular-nums text-muted-foreground">
                          {item.poste.dateDebut} → {item.poste.dateFin}
                        </span>
                        {item.applications.length > 0 ? (
                          <span className="block text-xs text-muted-foreground">
                            {t('reviews.opens', { applications: item.applications.join(', ') })}
                          </span>
                        ) : null}
                      </TableCell>
                      <TableCell className="hidden align-top whitespace-normal text-xs xl:table-cell">
                        <span className="block">
                          {t('reviews.lastSignIn', {
                            date: item.utilisateur.derniereConnexion
                              ? displayDate(item.utilisateur.derniereConnexion)
                              : t('reviews.never'),
                          })}
                        </span>
                        <span className="block">
                          {t('reviews.lastLaunch', {
                            date: item.utilisateur.dernierLancement
                              ? displayDate(item.utilisateur.dernierLancement)
                              : t('reviews.never'),
                          })}
                        </span>
                      </TableCell>
                      <TableCell className="hidden align-top whitespace-normal sm:table-cell">
                        {decisionOf(item)}
                      </TableCell>
                    </TableRow>
                  ))}
                </TableBody>
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

/** How an item was decided (or why it is not the reviewer's to decide). */
function ItemDecision({ item, own }: { item: ReviewItem; own: boolean }) {
  const { t } = useTranslation()
  if (own) return <span className="text-sm text-muted-foreground">{t('reviews.own')}</span>
  const decision = item.decision
  return (
    <div className="flex flex-col gap-1 text-sm">
      <span className="font-medium">{t(`reviews.itemStates.${item.etat}`)}</span>
      {decision ? (
        <span className="text-xs text-muted-foreground">
          {decision.automatique
            ? t('reviews.automatic', { date: displayDate(decision.date) })
            : t('reviews.decidedBy', { name: decision.par ?? '', date: displayDate(decision.date) })}
          {decision.dateFin ? ` · ${t('reviews.endsOn', { date: decision.dateFin })}` : ''}
        </span>
      ) : null}
      {decision?.commentaire ? <span className="break-words text-xs">{decision.commentaire}</span> : null}
    </div>
  )
}
