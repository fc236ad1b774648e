import { Form, Link } from '@remix-run/react'
import { useTranslation } from 'react-i18next'
import { FormPanel } from '~/components/form-panel'
import { SubmitButton } from '~/components/submit-button'
import { buttonVariants } from '~/components/ui/button'
import { useFormReply, usePendingIntent } from '~/lib/form'
import type { ReviewItem } from '../../../worker-api/contract/access-reviews'
import type { DecisionConfirmation } from './review.server'

export const fullName = (item: ReviewItem) => `${item.utilisateur.prenom} ${item.utilisateur.nom}`

/**
 * What a decision asked to confirm (the action's `shown`): ending the items ticked, named, or deciding everything the
 * filter keeps, counted; the confirmation posts the same decision again with `confirme=oui`, and Cancel goes back to
 * the page as it was.
 */
export function DecisionConfirmations({
  items,
  filter,
  back,
}: {
  items: ReviewItem[]
  /** What the URL's filter keeps, as the confirmation of "everything" says it. */
  filter: { structure: string; q: string }
  back: string
}) {
  const { t } = useTranslation()
  const reply = useFormReply<'decider', DecisionConfirmation>('decider')
  const deciding = usePendingIntent('decider')
  const shown = reply?.shown
  const confirming = shown?.kind === 'confirm' ? shown : undefined
  const confirmingAll = shown?.kind === 'confirmAll' ? shown : undefined
  const byId = new Map(items.map((item) => [item.id, item]))
  return (
    <>
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
            <Link to={back} className={buttonVariants({ variant: 'outline' })}>
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
              structure: filter.structure,
              q: filter.q,
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
            <Link to={back} className={buttonVariants({ variant: 'outline' })}>
              {t('reviews.cancel')}
            </Link>
          </Form>
        </FormPanel>
      ) : null}
    </>
  )
}
