import { Link } from '@remix-run/react'
import { useTranslation } from 'react-i18next'
import { displayDateTime } from '~/lib/dates'
import { rowText } from '~/lib/i18n'
import type { ReviewDetail } from '../../../worker-api/contract/governance/access-reviews'
import { Progress } from './review-progress'

/** A campaign's progress in the administrator's scope: in all, then per structure (each a link to its items). */
export function CampaignProgress({ revue, pathname }: { revue: ReviewDetail; pathname: string }) {
  const { t } = useTranslation()
  const progress = revue.progression
  const progressOf = rowText(t, 'reviews.progressOf', ['name'])
  const progressValue = rowText(t, 'reviews.progressValue', ['done', 'total', 'confirmes', 'termines'])
  return (
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
                label={progressOf({ name: structure.nom })}
                valueText={progressValue({ ...structure, done: structure.confirmes + structure.termines })}
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
  )
}

/** What an auditor asks of a campaign once its due date is applied or it is closed: who opened, applied, closed it. */
export function CampaignReport({ revue }: { revue: ReviewDetail }) {
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
