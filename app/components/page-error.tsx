import { isRouteErrorResponse, Link, useRouteError } from '@remix-run/react'
import { useTranslation } from 'react-i18next'
import { buttonVariants } from './ui/button'

/**
 * Why a page of the authenticated area cannot be shown: 403, a part of the organisation outside the
 * caller's scope; 404; anything else a technical error; with the way out.
 */
export function PageError() {
  const error = useRouteError()
  const { t } = useTranslation()
  const status = isRouteErrorResponse(error) ? error.status : 500
  if (!isRouteErrorResponse(error)) console.error(error)
  const [title, text] =
    status === 403
      ? [t('pageError.forbiddenTitle'), t('pageError.forbidden')]
      : status === 404
        ? [t('common.notFoundTitle'), t('pageError.notFound')]
        : [t('common.errorTitle'), t('errors.technical')]
  return (
    <div className="mx-auto flex max-w-xl flex-col items-start gap-4 py-6">
      <h1 className="text-2xl font-semibold">{title}</h1>
      <p className="text-muted-foreground">{text}</p>
      <Link to="/pages/user/acces" className={buttonVariants({ variant: 'outline' })}>
        {t('pageError.toAccess')}
      </Link>
    </div>
  )
}
