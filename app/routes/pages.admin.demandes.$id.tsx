import { parseWithZod } from '@conform-to/zod/v4'
import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { Form, Link, useLoaderData } from '@remix-run/react'
import { ArrowLeft, Check, X } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { z } from 'zod'
import { DateRangeInput } from '~/components/date-range-input'
import { FieldMessages, fieldMessages } from '~/components/field'
import { FormError } from '~/components/form-error'
import { SearchForm } from '~/components/search-form'
import { SelectField } from '~/components/select-field'
import { SubmitButton } from '~/components/submit-button'
import { Alert } from '~/components/ui/alert'
import { buttonVariants } from '~/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '~/components/ui/card'
import { Label } from '~/components/ui/label'
import { Textarea } from '~/components/ui/textarea'
import { HeldPosts, requesterName } from '~/features/governance/request-cells'
import { requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { displayDate } from '~/lib/dates'
import { posted, useFieldErrors, useFormReply, usePendingIntent } from '~/lib/form'
import { carried, formFailure, readForm } from '~/lib/form.server'
import { idParam } from '~/lib/id-param'
import { pageTitle, titleMeta } from '~/lib/title'
import { readSearch } from '~/lib/url'
import { REQUEST_PROPOSALS_MAX } from '../../worker-api/contract/governance/access-requests'

export const handle: BreadcrumbHandle = { breadcrumb: 'nav.accessRequests' }
export const meta = titleMeta

/**
 * One access request and its decision (README, "Access requests"): who asks, what, why, for how long and what they
 * hold; granting chooses a function of the scope that opens the application (the requester's structures first,
 * `?q=` finds others) and the post's dates; refusing says why.
 */
export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const id = idParam(params.id)
  const q = readSearch(new URL(request.url).searchParams)
  const {
    auth,
    data: demande,
    t,
  } = await requireAdmin(request, context, {
    read: (auth) => auth.expect(auth.api.rest.bd.demande[':id'].$get({ param: { id }, query: q ? { q } : {} })),
  })
  return data(
    { demande, q, title: pageTitle(t, t('requests.detailTitle', { name: requesterName(demande) })) },
    { headers: await auth.headers() },
  )
}

/** The page's two forms: granting with a function and structure proposed (`<fonction>:<structure>`), or refusing. */
const decisionForms = z.discriminatedUnion('intent', [
  z.object({
    intent: z.literal('grant'),
    proposition: z.string('validation.required').regex(/^[1-9]\d{0,15}:[1-9]\d{0,15}$/, 'validation.required'),
    dateDebut: carried,
    dateFin: carried,
    commentaire: carried,
    nom: carried,
  }),
  z.object({ intent: z.literal('refuse'), motifRefus: carried, nom: carried }),
])
type Intent = z.infer<typeof decisionForms>['intent']

/** Grants or refuses the request (POST rest/bd/demande/:id/decision), then the list with a notice; a refusal stays on its form. */
export async function action({ request, context, params }: ActionFunctionArgs) {
  const id = idParam(params.id)
  const auth = await requireAdmin(request, context)
  const submission = parseWithZod(await readForm(request), { schema: decisionForms })
  const intent: Intent = submission.payload.intent === 'refuse' ? 'refuse' : 'grant'
  const headers = await auth.headers()
  if (submission.status !== 'success') return formFailure(intent, submission, { headers })
  const form = submission.value
  const json =
    form.intent === 'grant'
      ? {
          accord: true,
          fonction: { id: Number(form.proposition.split(':')[0]) },
          structure: { id: Number(form.proposition.split(':')[1]) },
          dateDebut: form.dateDebut,
          dateFin: form.dateFin,
          ...(form.commentaire ? { commentaire: form.commentaire } : {}),
        }
      : { accord: false, commentaire: form.motifRefus }
  const result = await auth.settle(auth.api.rest.bd.demande[':id'].decision.$post({ param: { id }, json }))
  if (result.ok) {
    return auth.redirectWithToast('/pages/admin/demandes', {
      type: 'success',
      key: form.intent === 'grant' ? 'requests.granted' : 'requests.refused',
      values: { name: form.nom },
    })
  }
  // The API names the body's fields: the chosen function and structure are the form's one choice, and a refusal's
  // reason is its `motifRefus`.
  const fieldNames: Record<string, string> =
    form.intent === 'grant' ? { fonction: 'proposition', structure: 'proposition' } : { commentaire: 'motifRefus' }
  return formFailure(intent, submission, { failure: result, fallback: 'errors.updateFailed', fieldNames, headers })
}

export default function AccessRequest() {
  const { demande, q } = useLoaderData<typeof loader>()
  const { t } = useTranslation()
  const granting = usePendingIntent('grant')
  const refusing = usePendingIntent('refuse')
  const name = requesterName(demande)
  const application = demande.application.libelle
  const replies = { grant: useFormReply<Intent>('grant'), refuse: useFormReply<Intent>('refuse') }
  const shown = { grant: useFieldErrors(replies.grant), refuse: useFieldErrors(replies.refuse) }
  const formError = (intent: Intent) => {
    const error = replies[intent]?.error
    return error ? t(error.key, error.values) : null
  }
  const errorsOf = (intent: Intent, field: string) => shown[intent].of(field)
  const value = (intent: Intent, field: string, fallback = '') =>
    replies[intent] ? posted(replies[intent], field) : fallback
  const waiting = demande.etat === 'EN_ATTENTE'
  const proposals = demande.propositions.map((p) => ({
    value: `${p.fonction.id}:${p.structure.id}`,
    // What else the post would open, said in the choice itself (a post grants every application of its function).
    label: `${p.fonction.libelle}, ${p.structure.nom}${p.actuelle ? ` ${t('requests.ownStructure')}` : ''} — ${
      p.ouvreAussi.length > 0
        ? t('requests.alsoOpens', { applications: p.ouvreAussi.join(', ') })
        : t('requests.opensOnly', { application })
    }`,
  }))
  const textarea = (id: string, field: string, intent: Intent, label: string, hint?: string, required = false) => {
    const errors = errorsOf(intent, field)
    const messages = fieldMessages(id, hint, errors)
    return (
      <div className="flex flex-col gap-1.5">
        <Label htmlFor={id}>{label}</Label>
        <Textarea
          id={id}
          name={field}
          rows={3}
          maxLength={500}
          required={required}
          defaultValue={value(intent, field)}
          aria-invalid={messages.invalid || undefined}
          aria-describedby={messages.describedBy}
        />
        <FieldMessages id={id} hint={hint} errors={errors} />
      </div>
    )
  }
  return (
    <div className="flex max-w-3xl flex-col gap-6">
      <div className="flex flex-col gap-2">
        <Link
          to="/pages/admin/demandes"
          className="inline-flex items-center gap-1 text-sm text-primary underline-offset-4 hover:underline"
        >
          <ArrowLeft aria-hidden className="size-4" />
          {t('requests.back')}
        </Link>
        <h1 className="text-2xl font-semibold tracking-tight break-words">{t('requests.detailTitle', { name })}</h1>
      </div>
      <Card>
        <CardHeader>
          <CardTitle className="break-words">{application}</CardTitle>
          <CardDescription className="break-all">{demande.utilisateur.mail}</CardDescription>
        </CardHeader>
        <CardContent>
          <dl className="grid gap-x-6 gap-y-3 sm:grid-cols-[max-content_1fr]">
            <dt className="font-medium">{t('requests.why')}</dt>
            <dd className="break-words whitespace-pre-line">{demande.motif}</dd>
            <dt className="font-medium">{t('requests.period')}</dt>
            <dd className="tabular-nums">
              {demande.dateDebut} → {demande.dateFin}
            </dd>
            <dt className="font-medium">{t('requests.asked')}</dt>
            <dd>
              {displayDate(demande.dateDemande)} · {t('requests.expires', { date: demande.expiration })}
            </dd>
            <dt className="font-medium">{t('requests.holds')}</dt>
            <dd>
              <HeldPosts postes={demande.postes} />
            </dd>
          </dl>
        </CardContent>
      </Card>
      {!waiting ? (
        <Alert role="status">{t('requests.alreadyDecided', { state: t(`requests.states.${demande.etat}`) })}</Alert>
      ) : (
        <>
          <Card>
            <CardHeader>
              <CardTitle>{t('requests.grantTitle')}</CardTitle>
              <CardDescription>{t('requests.grantIntro')}</CardDescription>
            </CardHeader>
            <CardContent className="flex flex-col gap-4">
              {proposals.length >= REQUEST_PROPOSALS_MAX || q ? <SearchForm label={t('requests.fonction')} /> : null}
              {proposals.length === 0 ? (
                <p className="text-sm">{t('requests.noProposal', { application })}</p>
              ) : (
                <Form method="post" className="flex flex-col gap-4" onInput={shown.grant.onInput}>
                  <input type="hidden" name="intent" value="grant" />
                  <input type="hidden" name="nom" value={name} />
                  <FormError message={formError('grant')} />
                  <SelectField
                    label={t('requests.fonction')}
                    hint={t('requests.fonctionHint', { application })}
                    errors={errorsOf('grant', 'proposition')}
                    options={proposals}
                    selectProps={{
                      id: 'proposition',
                      name: 'proposition',
                      required: true,
                      defaultValue: value('grant', 'proposition', proposals[0]?.value),
                    }}
                  />
                  <DateRangeInput
                    legend={t('requests.period')}
                    start={{
                      name: 'dateDebut',
                      id: 'grant-start',
                      label: t('requests.from'),
                      defaultValue: value('grant', 'dateDebut', demande.dateDebut),
                      errors: errorsOf('grant', 'dateDebut'),
                      required: true,
                    }}
                    end={{
                      name: 'dateFin',
                      id: 'grant-end',
                      label: t('requests.to'),
                      defaultValue: value('grant', 'dateFin', demande.dateFin),
                      errors: errorsOf('grant', 'dateFin'),
                      required: true,
                    }}
                  />
                  {textarea('grant-comment', 'commentaire', 'grant', t('requests.comment'))}
                  <div>
                    <SubmitButton icon={Check} pending={granting} pendingLabel={t('requests.granting')}>
                      {t('requests.grant')}
                    </SubmitButton>
                  </div>
                </Form>
              )}
            </CardContent>
          </Card>
          <Card>
            <CardHeader>
              <CardTitle>{t('requests.refuseTitle')}</CardTitle>
            </CardHeader>
            <CardContent>
              <Form method="post" className="flex flex-col gap-4" onInput={shown.refuse.onInput}>
                <input type="hidden" name="intent" value="refuse" />
                <input type="hidden" name="nom" value={name} />
                <FormError message={formError('refuse')} />
                {textarea(
                  'refuse-reason',
                  'motifRefus',
                  'refuse',
                  t('requests.refuseReason'),
                  t('requests.refuseHint'),
                  true,
                )}
                <div>
                  <SubmitButton icon={X} variant="destructive" pending={refusing} pendingLabel={t('requests.refusing')}>
                    {t('requests.refuse')}
                  </SubmitButton>
                </div>
              </Form>
            </CardContent>
          </Card>
        </>
      )}
      <div>
        <Link to="/pages/admin/demandes" className={buttonVariants({ variant: 'outline' })}>
          {t('requests.back')}
        </Link>
      </div>
    </div>
  )
}
