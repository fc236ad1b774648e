import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { Form, Link, useActionData, useLoaderData, useLocation, useNavigation } from '@remix-run/react'
import { Download, Filter, Lock } from 'lucide-react'
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
import { reviewAction, reviewData } from '~/features/governance/review.server'
import { DecisionConfirmations } from '~/features/governance/review-confirmations'
import { ReviewItemsForm } from '~/features/governance/review-items'
import { ITEMS_PER_PAGE } from '~/features/governance/review-page'
import { CampaignProgress, CampaignReport } from '~/features/governance/review-report'
import { requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { usePendingIntent } from '~/lib/form'
import { idParam } from '~/lib/id-param'
import { pageTitle, titleMeta } from '~/lib/title'

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

export default function ReviewCampaign() {
  const { revue, items, total, query, me } = useLoaderData<typeof loader>()
  const reply = useActionData<typeof action>()
  const { t } = useTranslation()
  const { pathname, search } = useLocation()
  const deciding = usePendingIntent('decider')
  const open = revue.etat === 'OUVERTE'
  const progress = revue.progression
  const closable = revue.etat === 'ECHUE' || (open && progress.total === progress.confirmes + progress.termines)
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
      <FormError message={reply?.error ? t(reply.error.key, reply.error.values) : null} />

      {revue.etat === 'CLOTUREE' || revue.etat === 'ECHUE' ? <CampaignReport revue={revue} /> : null}

      <CampaignProgress revue={revue} pathname={pathname} />

      <DecisionConfirmations
        items={items}
        back={`${pathname}${search}`}
        filter={{ structure: filterStructure ?? t('reviews.allStructures'), q: query.q ?? '—' }}
      />

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
          <ReviewItemsForm
            items={items}
            open={open}
            allOffered={allOffered}
            me={me}
            endingUnreviewed={revue.siNonRevu === 'TERMINER'}
          />
        )}
        <Pagination page={query.page} total={total} pageSize={ITEMS_PER_PAGE} />
      </section>
    </div>
  )
}
