import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react'
import { ClipboardCheck, Play } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { DataTable, type DataTableColumn } from '~/components/data-table'
import { EmptyState } from '~/components/empty-state'
import { Field } from '~/components/field'
import { FormError } from '~/components/form-error'
import { Pagination } from '~/components/pagination'
import { SubmitButton } from '~/components/submit-button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '~/components/ui/card'
import { OPEN_INTENT, REVIEW_SEARCH_INTENT } from '~/features/governance/review-page'
import { Progress } from '~/features/governance/review-progress'
import { reviewsAction, reviewsData } from '~/features/governance/reviews.server'
import { StructureSelect } from '~/features/organisation/structure-select'
import { requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { posted, useFieldErrors, usePendingIntent } from '~/lib/form'
import { DEFAULT_PAGE_SIZE } from '~/lib/pagination'
import { pageTitle, titleMeta } from '~/lib/title'
import type { Review } from '../../worker-api/contract/governance/access-reviews'

export const handle: BreadcrumbHandle = { breadcrumb: 'nav.reviews' }
export const meta = titleMeta

/** The access review campaigns the administrator sees, with their progress in their scope, and the form to open one. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const { auth, data: screen, t } = await requireAdmin(request, context, { read: (auth) => reviewsData(request, auth) })
  return data({ ...screen, title: pageTitle(t, t('reviews.title')) }, { headers: await auth.headers() })
}

export async function action({ request, context }: ActionFunctionArgs) {
  return reviewsAction(request, await requireAdmin(request, context))
}

export default function Reviews() {
  const { revues, total, page, choices } = useLoaderData<typeof loader>()
  const reply = useActionData<typeof action>()
  const { t } = useTranslation()
  const pending = usePendingIntent(OPEN_INTENT)
  const shown = useFieldErrors(reply)
  const errors = shown.of
  const value = (field: string, fallback = '') => posted(reply, field) || fallback
  const columns: DataTableColumn<Review>[] = [
    {
      id: 'nom',
      header: t('reviews.name'),
      className: 'min-w-0 whitespace-normal break-words',
      cell: (review) => (
        <>
          <Link
            to={`/pages/admin/revues/${review.id}`}
            className="font-medium text-primary underline-offset-4 hover:underline"
          >
            {review.nom}
          </Link>
          <span className="block text-muted-foreground">{review.structure.nom}</span>
        </>
      ),
    },
    {
      id: 'echeance',
      header: t('reviews.due'),
      className: 'hidden sm:table-cell tabular-nums',
      cell: (review) => review.echeance,
    },
    {
      id: 'etat',
      header: t('reviews.state'),
      className: 'hidden md:table-cell',
      cell: (review) => t(`reviews.states.${review.etat}`),
    },
    {
      id: 'progress',
      header: t('reviews.progress'),
      className: 'w-40',
      cell: (review) => <Progress {...review.progression} />,
    },
  ]
  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">{t('reviews.title')}</h1>
        <p className="max-w-prose text-muted-foreground">{t('reviews.intro')}</p>
      </div>
      <section aria-labelledby="campaigns" className="flex flex-col gap-3">
        <h2 id="campaigns" className="text-lg font-semibold">
          {t('reviews.listTitle')}
        </h2>
        <p className="text-sm text-muted-foreground" aria-live="polite">
          {t('reviews.total', { count: total })}
        </p>
        <div className="overflow-hidden rounded-lg border bg-card">
          <DataTable
            aria-label={t('reviews.listTitle')}
            columns={columns}
            rows={revues}
            rowKey={(review) => review.id}
            empty={<EmptyState icon={ClipboardCheck} title={t('reviews.empty')} />}
          />
        </div>
        <Pagination page={page} total={total} pageSize={DEFAULT_PAGE_SIZE} />
      </section>
      <Card className="max-w-3xl">
        <CardHeader>
          <CardTitle id="open-review">{t('reviews.openTitle')}</CardTitle>
          <CardDescription>{t('reviews.openIntro')}</CardDescription>
        </CardHeader>
        <CardContent>
          <Form method="post" className="flex flex-col gap-4" aria-labelledby="open-review" onInput={shown.onInput}>
            <input type="hidden" name="intent" value={OPEN_INTENT} />
            <FormError message={reply?.error ? t(reply.error.key, reply.error.values) : null} />
            <Field
              label={t('reviews.name')}
              errors={errors('nom')}
              inputProps={{
                id: 'review-name',
                name: 'nom',
                required: true,
                maxLength: 100,
                defaultValue: value('nom'),
              }}
            />
            <StructureSelect
              id="review-structure"
              name="structure"
              label={t('reviews.structure')}
              choices={reply?.choices ?? choices}
              defaultValue={value('structure')}
              placeholder={t('reviews.chooseStructure')}
              emptyMessage={t('reviews.noStructure')}
              required
              errors={errors('structure')}
              intent={REVIEW_SEARCH_INTENT}
            />
            <Field
              label={t('reviews.due')}
              hint={t('reviews.dueHint')}
              errors={errors('echeance')}
              inputProps={{
                id: 'review-due',
                name: 'echeance',
                required: true,
                inputMode: 'numeric',
                pattern: String.raw`\d{2}/\d{2}/\d{4}`,
                maxLength: 10,
                placeholder: t('dateRange.placeholder'),
                defaultValue: value('echeance'),
                autoComplete: 'off',
              }}
            />
            <fieldset
              className="flex flex-col gap-2"
              aria-describedby={errors('siNonRevu') ? 'review-outcome-error' : undefined}
            >
              <legend className="mb-1 text-sm font-medium">{t('reviews.outcome')}</legend>
              {(['CONSERVER', 'TERMINER'] as const).map((outcome) => (
                <label key={outcome} className="flex items-start gap-2 text-sm">
                  <input
                    type="radio"
                    name="siNonRevu"
                    value={outcome}
                    required
                    defaultChecked={value('siNonRevu', 'CONSERVER') === outcome}
                    className="mt-0.5 size-4 accent-primary"
                  />
                  {t(`reviews.outcomes.${outcome}`)}
                </label>
              ))}
              {errors('siNonRevu') ? (
                <p id="review-outcome-error" className="text-sm text-destructive">
                  {errors('siNonRevu')?.join(' ')}
                </p>
              ) : null}
            </fieldset>
            <div>
              <SubmitButton icon={Play} pending={pending} pendingLabel={t('reviews.opening')}>
                {t('reviews.open')}
              </SubmitButton>
            </div>
          </Form>
        </CardContent>
      </Card>
    </div>
  )
}
