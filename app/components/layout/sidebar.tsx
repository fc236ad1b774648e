import { NavLink } from '@remix-run/react'
import { useId } from 'react'
import { useTranslation } from 'react-i18next'
import { ADMIN_MENU, type MenuItem, USER_MENU } from '~/lib/menu'
import type { SessionUser } from '~/lib/session.server'
import { cn } from '~/lib/utils'

function Group({ title, items }: { title: string; items: readonly MenuItem[] }) {
  const { t } = useTranslation()
  // The navigation is rendered twice (the phone's disclosure, the wide sidebar): ids stay unique.
  const id = useId()
  return (
    <section aria-labelledby={id} className="flex flex-col gap-1">
      <h2 id={id} className="px-3 pt-4 pb-1 text-xs font-semibold uppercase tracking-wide opacity-75">
        {title}
      </h2>
      <ul className="flex flex-col gap-0.5">
        {items.map(({ to, label, icon: Icon, end }) => (
          <li key={to}>
            <NavLink
              to={to}
              end={end}
              className={({ isActive }) =>
                cn(
                  'flex items-center gap-3 rounded-md px-3 py-1 text-sm transition-colors duration-[250ms] hover:bg-sidebar-accent',
                  isActive && 'bg-sidebar-accent font-semibold',
                )
              }
            >
              <Icon aria-hidden className="size-4" />
              {t(label)}
            </NavLink>
          </li>
        ))}
      </ul>
    </section>
  )
}

/** Spec §2: the Administration group for admins only; the user group names the user. */
export function SidebarNav({ user }: { user: SessionUser & { racine?: boolean } }) {
  const { t } = useTranslation()
  return (
    <nav aria-label={t('common.mainNavigation')} className="flex flex-col gap-2 p-3">
      {user.admin ? (
        <Group
          title={t('nav.administration')}
          items={user.racine ? ADMIN_MENU : ADMIN_MENU.filter((item) => !item.root)}
        />
      ) : null}
      <Group title={`${user.prenom} ${user.nom}`} items={USER_MENU} />
    </nav>
  )
}
