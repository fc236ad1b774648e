import { Link } from '@remix-run/react'
import type * as React from 'react'
import { useTranslation } from 'react-i18next'
import { CenteredCard } from './centered-card'
import { LanguageSwitch } from './language-switch'

/** The frame of the public pages: a centred card, a way back to sign-in, the language switch. */
export function PublicPage({ title, children }: { title: string; children: React.ReactNode }) {
  const { t } = useTranslation()
  return (
    <CenteredCard eyebrow={t('app.tagline')} title={title} after={<LanguageSwitch />}>
      {children}
      <Link className="text-sm text-primary underline-offset-4 hover:underline" to="/login">
        {t('common.backToLogin')}
      </Link>
    </CenteredCard>
  )
}
