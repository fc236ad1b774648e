import { Form } from '@remix-run/react'
import type { TFunction } from 'i18next'
import { Check, CheckCheck, X } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { Field } from '~/components/field'
import { SubmitButton } from '~/components/submit-button'
import { buttonVariants } from '~/components/ui/button'
import { Table, TableHead, TableHeader, TableRow } from '~/components/ui/table'
import { displayDate } from '~/lib/dates'
import { useFieldErrors, useFormReply, usePendingIntent } from '~/lib/form'
import { rowText } from '~/lib/i18n'
import { cn } from '~/lib/utils'
import { ITEM_STATES, type ItemState, type ReviewItem } from '../../../worker-api/contract/governance/access-reviews'
import { fullName } from './review-confirmations'

/** The table's classes, as `TableRow` and `TableCell` write them, merged once for the 50 rows. */
const ROW = 'border-b transition-colors hover:bg-muted/50'
const CELL = 'p-2 align-top whitespace-normal break-words'
const ROW_BUTTON = cn(buttonVariants({ variant: 'outline', size: 'sm' }), 'px-2.5')

/**
 * A page of a campaign's items, one form: each to review with its two buttons and a box to tick; the items ticked
 * decided together, with the end and the comment given for them; everything the filter keeps, when `allOffered`.
 */
export function ReviewItemsForm({
  items,
  open,
  allOffered,
  me,
  endingUnreviewed,
}: {
  items: ReviewItem[]
  open: boolean
  allOffered: boolean
  me: number
  /** The campaign ends the posts left unreviewed (`siNonRevu` TERMINER). */
  endingUnreviewed: boolean
}) {
  const { t } = useTranslation()
  const deciding = usePendingIntent('decider')
  const reply = useFormReply('decider')
  const shown = useFieldErrors(reply)
  const mine = (item: ReviewItem) => item.utilisateur.id === me
  const toReview = (item: ReviewItem) => open && item.etat === 'A_REVOIR' && !mine(item)
  // A page of 50 items: each label is read from i18next once and filled row by row.
  const each = {
    select: rowText(t, 'reviews.selectOne', ['name']),
    confirm: rowText(t, 'reviews.confirmOne', ['name']),
    end: rowText(t, 'reviews.endOne', ['name']),
    opens: rowText(t, 'reviews.opens', ['applications']),
    lastSignIn: rowText(t, 'reviews.lastSignIn', ['date']),
    lastLaunch: rowText(t, 'reviews.lastLaunch', ['date']),
    decision: decisionTexts(t),
  }
  const confirmLabel = t('reviews.confirm')
  const endLabel = t('reviews.end')
  const never = t('reviews.never')
  const dayOr = (iso: string | null) => (iso ? displayDate(iso) : never)
  return (
    <Form method="post" className="flex flex-col gap-4" onInput={shown.onInput}>
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
                    <span className="block wrap-anywhere text-xs text-muted-foreground">{item.utilisateur.login}</span>
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
                    <span className="block">{each.lastLaunch({ date: dayOr(item.utilisateur.dernierLancement) })}</span>
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
                        ending={endingUnreviewed}
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
              errors={shown.of('dateFin')}
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
              errors={shown.of('commentaire')}
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
