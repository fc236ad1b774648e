import { isRouteErrorResponse, Link, useRouteError } from '@remix-run/react'
import { useTranslation } from 'react-i18next'
import { pageErrorKeys } from '~/lib/page-error'
import { buttonVariants } from './ui/button'

/**
 * Why a page of the authenticated area cannot be shown (`pageErrorKeys`), with the way out, laid out
 * as every page is; its title says the same (`errorMeta`).
 */
export function PageError() {
  const error = useRouteError()
  const { t } = useTranslation()
  if (!isRouteErrorResponse(error)) console.error(error)
  const [title, text] = pageErrorKeys(error)
  return (
    <div className="flex max-w-3xl flex-col items-start gap-6">
      <div className="flex flex-col gap-2">
        <h1 className="text-2xl font-semibold tracking-tight">{t(title)}</h1>
        <p className="max-w-prose text-muted-foreground">{t(text)}</p>
      </div>
      <Link to="/pages/user/acces" className={buttonVariants({ variant: 'outline' })}>
        {t('pageError.toAccess')}
      </Link>
    </div>
  )
}
