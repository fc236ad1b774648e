import { Form, Link } from '@remix-run/react'
import type { ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { FormPanel } from '~/components/form-panel'
import { SubmitButton } from '~/components/submit-button'
import { buttonVariants } from '~/components/ui/button'
import { useFormReply, usePendingIntent } from '~/lib/form'
import type { ReviewItem } from '../../../worker-api/contract/governance/access-reviews'
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
  const shown = useFormReply<'decider', DecisionConfirmation>('decider')?.shown
  if (shown?.kind === 'confirm') {
    const byId = new Map(items.map((item) => [item.id, item]))
    return (
      <Confirmation
        tone="destructive"
        title={t('reviews.endTitle', { count: shown.ids.length })}
        intro={t('reviews.endConfirm', { date: shown.dateFin || t('reviews.today') })}
        fields={[
          ['decision', 'TERMINER'],
          ...decided(shown),
          ...shown.ids.map((id) => ['element', String(id)] as const),
        ]}
        label={t('reviews.endConfirmButton', { count: shown.ids.length })}
        pendingLabel={t('reviews.ending')}
        back={back}
      >
        <ul className="list-disc pl-5 text-sm">
          {shown.ids.map((id) => {
            const item = byId.get(id)
            return (
              <li key={id}>
                {item ? `${fullName(item)}, ${item.poste.fonction.libelle}, ${item.poste.structure.nom}` : `#${id}`}
              </li>
            )
          })}
        </ul>
      </Confirmation>
    )
  }
  if (shown?.kind === 'confirmAll') {
    const ending = shown.decision === 'TERMINER'
    return (
      <Confirmation
        tone={ending ? 'destructive' : 'primary'}
        title={t(ending ? 'reviews.endAllTitle' : 'reviews.confirmAllTitle', { count: shown.count })}
        intro={
          ending
            ? `${t('reviews.allScope')} ${t('reviews.endConfirm', { date: shown.dateFin || t('reviews.today') })}`
            : t('reviews.allScope')
        }
        fields={[['tous', shown.decision], ...decided(shown)]}
        label={t(ending ? 'reviews.endAllButton' : 'reviews.confirmAllButton', { count: shown.count })}
        pendingLabel={t('reviews.sending')}
        back={back}
      >
        <p className="text-sm">{t('reviews.allFilter', filter)}</p>
      </Confirmation>
    )
  }
  return null
}

/** The end and the comment given with a decision, posted again with its confirmation. */
const decided = (shown: DecisionConfirmation) =>
  [
    ['dateFin', shown.dateFin],
    ['commentaire', shown.commentaire],
  ] as const

/** A decision shown before it is made: what it decides (`children`), the same decision confirmed (`confirme=oui`), or Cancel. */
function Confirmation({
  tone,
  title,
  intro,
  fields,
  label,
  pendingLabel,
  back,
  children,
}: {
  tone: 'primary' | 'destructive'
  title: string
  intro: string
  /** The decision's fields, as its form posted them. */
  fields: ReadonlyArray<readonly [string, string]>
  label: string
  pendingLabel: string
  back: string
  children: ReactNode
}) {
  const { t } = useTranslation()
  const deciding = usePendingIntent('decider')
  return (
    <FormPanel tone={tone} focusOnShow title={title} intro={intro}>
      {children}
      <Form method="post" className="flex flex-wrap gap-2">
        <input type="hidden" name="intent" value="decider" />
        <input type="hidden" name="confirme" value="oui" />
        {fields.map(([name, value]) => (
          <input key={`${name}:${value}`} type="hidden" name={name} value={value} />
        ))}
        <SubmitButton
          variant={tone === 'destructive' ? 'destructive' : 'default'}
          pending={deciding}
          pendingLabel={pendingLabel}
        >
          {label}
        </SubmitButton>
        <Link to={back} className={buttonVariants({ variant: 'outline' })}>
          {t('reviews.cancel')}
        </Link>
      </Form>
    </FormPanel>
  )
}
