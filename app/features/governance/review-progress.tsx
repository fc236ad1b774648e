import { useTranslation } from 'react-i18next'

/**
 * A campaign's progress: a bar of the items decided out of all, with the figures beside it for the eye and in its
 * accessible value for a screen reader.
 */
export function Progress({
  total,
  confirmes,
  termines,
  label,
  valueText,
}: {
  total: number
  confirmes: number
  termines: number
  label?: string
  /** Its accessible value, for a list of many bars that reads the translation once (`rowText`). */
  valueText?: string
}) {
  const { t } = useTranslation()
  const done = confirmes + termines
  const share = total === 0 ? 0 : Math.round((done / total) * 100)
  const text = valueText ?? t('reviews.progressValue', { done, total, confirmes, termines })
  return (
    <div className="flex min-w-0 flex-col gap-1">
      <div
        role="progressbar"
        aria-label={label ?? t('reviews.progress')}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={share}
        aria-valuetext={text}
        className="h-2 w-full overflow-hidden rounded-full bg-muted"
      >
        <div className="h-full bg-primary" style={{ width: `${share}%` }} />
      </div>
      <span className="text-xs tabular-nums text-muted-foreground">
        {done} / {total}
      </span>
    </div>
  )
}
