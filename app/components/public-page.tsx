import { Link } from '@remix-run/react'
import type * as React from 'react'
import { useTranslation } from 'react-i18next'
import { LanguageSwitch } from './language-switch'
import { Card, CardContent, CardHeader } from './ui/card'

/** The frame of the public pages: a centred card, a way back to sign-in, the language switch. */
export function PublicPage({ title, children }: { title: string; children: React.ReactNode }) {
  const { t } = useTranslation()
  return (
    <main id="main" className="flex min-h-screen flex-col items-center justify-center gap-6 bg-muted p-4">
      <Card className="w-full max-w-md">
        <CardHeader>
          <p className="text-sm font-medium text-primary">{t('app.tagline')}</p>
          <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
        </CardHeader>
        <CardContent className="flex flex-col gap-4">
          {children}
          <Link className="text-sm text-primary underline-offset-4 hover:underline" to="/login">
            {t('common.backToLogin')}
          </Link>
        </CardContent>
      </Card>
      <LanguageSwitch />
    </main>
  )
}
