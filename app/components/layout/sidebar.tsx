import { NavLink } from '@remix-run/react'
import {
  AppWindow,
  Blocks,
  Building2,
  History,
  LayoutDashboard,
  LayoutTemplate,
  LockKeyhole,
  type LucideIcon,
  Settings,
  ShieldCheck,
  UserCircle,
  UserPlus,
  Users,
} from 'lucide-react'
import { useId } from 'react'
import { useTranslation } from 'react-i18next'
import { isRootOnlyPath } from '~/lib/admin-paths'
import type { SessionUser } from '~/lib/session.server'
import { cn } from '~/lib/utils'

/** `end`: active on its own path only (the home, whose path starts every other admin page's). */
type Item = { to: string; label: string; icon: LucideIcon; end?: boolean }

/** The pages of the whole organisation (`isRootOnlyPath`) are offered to the root's administrators only. */
const ADMIN_ITEMS: Item[] = [
  { to: '/pages/admin', label: 'nav.adminHome', icon: LayoutDashboard, end: true },
  { to: '/pages/admin/listeStructures', label: 'nav.structures', icon: Building2 },
  { to: '/pages/admin/user/new', label: 'nav.createUser', icon: UserPlus },
  { to: '/pages/admin/listeUtilisateurs', label: 'nav.manageUsers', icon: Users },
  { to: '/pages/admin/autorisation', label: 'nav.authorizeUser', icon: ShieldCheck },
  { to: '/pages/admin/listeLogs', label: 'nav.history', icon: History },
  { to: '/pages/admin/applications', label: 'nav.applications', icon: Blocks },
  { to: '/pages/admin/modeles', label: 'nav.templates', icon: LayoutTemplate },
  { to: '/pages/admin/securite', label: 'nav.securitySettings', icon: Settings },
]

const USER_ITEMS: Item[] = [
  { to: '/pages/user/me', label: 'nav.profile', icon: UserCircle },
  { to: '/pages/user/securite', label: 'nav.security', icon: LockKeyhole },
  { to: '/pages/user/acces', label: 'nav.myAccess', icon: AppWindow },
]

function Group({ title, items }: { title: string; items: Item[] }) {
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
                  'flex items-center gap-3 rounded-md px-3 py-2 text-sm transition-colors duration-[250ms] hover:bg-sidebar-accent',
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
          items={user.racine ? ADMIN_ITEMS : ADMIN_ITEMS.filter((item) => !isRootOnlyPath(item.to))}
        />
      ) : null}
      <Group title={`${user.prenom} ${user.nom}`} items={USER_ITEMS} />
    </nav>
  )
}
