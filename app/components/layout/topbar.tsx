import { Form, Link, useMatches, useNavigate } from '@remix-run/react'
import { ArrowLeft, BookOpen, LogOut } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { Button, buttonVariants } from '~/components/ui/button'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { cn } from '~/lib/utils'
import { LanguageSwitch } from '../language-switch'

/** Spec §2: breadcrumb from Home, built from the `handle.breadcrumb` of the matched routes. */
export function Breadcrumb() {
  const { t } = useTranslation()
  const crumbs = useMatches().flatMap((match) => {
    const breadcrumb = (match.handle as BreadcrumbHandle | undefined)?.breadcrumb
    if (!breadcrumb) return []
    if (typeof breadcrumb === 'string') return [{ path: match.pathname, label: t(breadcrumb) }]
    return breadcrumb(match.data, t).map((crumb) => ({ path: crumb.to ?? match.pathname, label: crumb.label }))
  })
  return (
    // On a phone, a line of its own under the bar's buttons: Home, the page's parent and the page, each
    // but Home cut short if need be (the whole path from sm, beside the buttons).
    <nav aria-label={t('common.breadcrumb')} className="min-w-0 max-sm:order-last max-sm:basis-full">
      <ol className="flex items-center gap-1 text-sm text-muted-foreground max-sm:flex-nowrap sm:flex-wrap">
        <li className="shrink-0">
          <Link to="/pages/user/acces" className="hover:text-foreground hover:underline">
            {t('common.home')}
          </Link>
        </li>
        {crumbs.map((crumb, index) => (
          <li
            key={crumb.path}
            className={cn(
              'flex min-w-0 items-center gap-1',
              index < crumbs.length - 2 && 'max-sm:hidden',
              // The page's own name keeps most of the line.
              index === crumbs.length - 1 && 'max-sm:max-w-[65%] max-sm:shrink-0',
            )}
          >
            <span aria-hidden>/</span>
            {index === crumbs.length - 1 ? (
              <span aria-current="page" className="truncate font-medium text-foreground">
                {crumb.label}
              </span>
            ) : (
              <Link to={crumb.path} className="truncate hover:text-foreground hover:underline">
                {crumb.label}
              </Link>
            )}
          </li>
        ))}
      </ol>
    </nav>
  )
}

/**
 * Whether the entry before this one is a page of the portal: one the app navigated from (the router
 * numbers its entries from the page it was loaded on), or, for a page loaded as a whole document,
 * one whose address it came from. `history.length` alone also counts other sites and a fresh tab's
 * blank page.
 */
function portalPageBehind(): boolean {
  const index = (window.history.state as { idx?: unknown } | null)?.idx
  if (typeof index === 'number' && index > 0) return true
  if (window.history.length < 2 || !document.referrer) return false
  return new URL(document.referrer).origin === window.location.origin
}

/** Back in the portal's history, or to / when there is none (spec §2). A plain link to / without JavaScript. */
export function BackButton() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  return (
    <a
      href="/"
      className={buttonVariants({ variant: 'ghost', size: 'sm' })}
      onClick={(event) => {
        if (portalPageBehind()) {
          event.preventDefault()
          navigate(-1)
        }
      }}
    >
      <ArrowLeft aria-hidden />
      <span className="max-sm:sr-only">{t('common.back')}</span>
    </a>
  )
}

/**
 * The bar above every page. On a phone the back, documentation and logout buttons show their icon
 * (their names stay for screen readers) on one line, and the breadcrumb has the line under them.
 */
export function Topbar() {
  const { t } = useTranslation()
  return (
    <div className="flex flex-wrap items-center gap-x-1 sm:gap-3">
      <BackButton />
      <Breadcrumb />
      <div className="ml-auto flex shrink-0 items-center justify-end gap-1 sm:flex-wrap sm:gap-2">
        <LanguageSwitch iconClassName="max-sm:hidden" />
        <Link to="/pages/documentation" className={buttonVariants({ variant: 'ghost', size: 'sm' })}>
          <BookOpen aria-hidden />
          <span className="max-sm:sr-only">{t('common.documentation')}</span>
        </Link>
        <Form method="post" action="/logout">
          <Button type="submit" variant="outline" size="sm">
            <LogOut aria-hidden />
            <span className="max-sm:sr-only">{t('common.logout')}</span>
          </Button>
        </Form>
      </div>
    </div>
  )
}
