import { Link } from '@remix-run/react'
import { X } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { buttonVariants } from '~/components/ui/button'
import { urlWith } from '~/lib/url'
import { cn } from '~/lib/utils'

/** Spec §2 user list: the three toggle filters, each a URL param the API filters by in SQL. */
export const USER_FILTERS = ['poste', 'actif', 'supprime'] as const
type Filter = (typeof USER_FILTERS)[number]

/** The user list's three filters, from the page's search params (`search`). */
export function UserFilters({ search }: { search: string }) {
  return (
    <div className="flex flex-wrap gap-x-6 gap-y-2">
      {USER_FILTERS.map((name) => (
        <FilterToggle key={name} name={name} search={search} />
      ))}
    </div>
  )
}

/** One of the three filters: "yes" and "no" as links that toggle, and a reset when it is set. */
function FilterToggle({ name, search }: { name: Filter; search: string }) {
  const { t } = useTranslation()
  const current = new URLSearchParams(search).get(name)
  const choice = (value: 'true' | 'false') => {
    const active = current === value
    return (
      <Link
        to={urlWith(search, { [name]: active ? null : value, page: null })}
        aria-current={active ? 'true' : undefined}
        preventScrollReset
        className={cn(
          buttonVariants({ variant: active ? 'default' : 'outline', size: 'sm' }),
          'rounded-none first:rounded-l-md last:rounded-r-md',
        )}
      >
        {t(`users.filters.${name}.${value}`)}
      </Link>
    )
  }
  return (
    <fieldset className="flex flex-wrap items-center gap-2">
      <legend className="sr-only">{t(`users.filters.${name}.label`)}</legend>
      <span aria-hidden className="text-sm text-muted-foreground">
        {t(`users.filters.${name}.label`)}
      </span>
      <span className="inline-flex">
        {choice('true')}
        {choice('false')}
      </span>
      {current ? (
        <Link
          to={urlWith(search, { [name]: null, page: null })}
          preventScrollReset
          className={buttonVariants({ variant: 'ghost', size: 'sm' })}
          aria-label={t('users.filters.resetLabel', { filter: t(`users.filters.${name}.label`) })}
        >
          <X aria-hidden />
          {t('users.filters.reset')}
        </Link>
      ) : null}
    </fieldset>
  )
}
