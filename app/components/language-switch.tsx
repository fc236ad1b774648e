import { Form, useLocation } from '@remix-run/react'
import { Languages } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { cn } from '~/lib/utils'

/** Switches the language with a plain form (works without JavaScript); the choice is kept in a cookie. */
export function LanguageSwitch({ className, iconClassName }: { className?: string; iconClassName?: string }) {
  const { t, i18n } = useTranslation()
  const location = useLocation()
  const current = i18n.language
  return (
    <Form method="post" action="/language" className={cn('flex items-center gap-1 text-sm', className)}>
      <Languages aria-hidden className={cn('size-4', iconClassName)} />
      <span className="sr-only">{t('common.language')}</span>
      <input type="hidden" name="redirectTo" value={`${location.pathname}${location.search}`} />
      {(['fr', 'en'] as const).map((lng) => (
        <button
          key={lng}
          type="submit"
          name="lng"
          value={lng}
          lang={lng}
          aria-pressed={current === lng}
          className={cn(
            'rounded px-1.5 py-0.5 uppercase',
            current === lng ? 'font-semibold underline underline-offset-4' : 'opacity-80 hover:opacity-100',
          )}
        >
          <span aria-hidden>{lng}</span>
          <span className="sr-only">{t(`common.${lng}`)}</span>
        </button>
      ))}
    </Form>
  )
}
