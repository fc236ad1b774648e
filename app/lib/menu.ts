import {
  AppWindow,
  Blocks,
  Bot,
  Building2,
  ClipboardCheck,
  FileUp,
  History,
  Inbox,
  KeyRound,
  LayoutDashboard,
  LayoutTemplate,
  LockKeyhole,
  type LucideIcon,
  Settings,
  ShieldCheck,
  UserCircle,
  UserPlus,
  Users,
  Webhook,
} from 'lucide-react'

/**
 * An entry of the sidebar. `end`: active on its own path only (the home, whose path starts every other
 * admin page's). `root`: a page that acts on the whole organisation, for the administrators of the whole
 * tree alone (a current post on the root structure).
 */
export type MenuItem = { to: string; label: string; icon: LucideIcon; end?: boolean; root?: boolean }

/**
 * The administration's pages, in the menu's order. A `root` page is offered to the root's
 * administrators only, and its guard (`requireAdmin`) refuses any other on that path and below it,
 * its forms' posts included.
 */
export const ADMIN_MENU: readonly MenuItem[] = [
  { to: '/pages/admin', label: 'nav.adminHome', icon: LayoutDashboard, end: true },
  { to: '/pages/admin/listeStructures', label: 'nav.structures', icon: Building2 },
  { to: '/pages/admin/user/new', label: 'nav.createUser', icon: UserPlus },
  { to: '/pages/admin/listeUtilisateurs', label: 'nav.manageUsers', icon: Users },
  { to: '/pages/admin/autorisation', label: 'nav.authorizeUser', icon: ShieldCheck },
  { to: '/pages/admin/demandes', label: 'nav.accessRequests', icon: Inbox },
  { to: '/pages/admin/revues', label: 'nav.reviews', icon: ClipboardCheck },
  { to: '/pages/admin/listeLogs', label: 'nav.history', icon: History },
  { to: '/pages/admin/import', label: 'nav.bulk', icon: FileUp },
  { to: '/pages/admin/comptesService', label: 'nav.serviceAccounts', icon: Bot },
  { to: '/pages/admin/webhooks', label: 'nav.webhooks', icon: Webhook },
  { to: '/pages/admin/applications', label: 'nav.applications', icon: Blocks, root: true },
  { to: '/pages/admin/modeles', label: 'nav.templates', icon: LayoutTemplate, root: true },
  { to: '/pages/admin/fournisseurs', label: 'nav.identityProviders', icon: KeyRound, root: true },
  { to: '/pages/admin/securite', label: 'nav.securitySettings', icon: Settings, root: true },
]

/** One's own pages. */
export const USER_MENU: readonly MenuItem[] = [
  { to: '/pages/user/me', label: 'nav.profile', icon: UserCircle },
  { to: '/pages/user/securite', label: 'nav.security', icon: LockKeyhole },
  { to: '/pages/user/acces', label: 'nav.myAccess', icon: AppWindow },
]

/** Spec §6: paths containing 'admin' are for administrators only. */
export const isAdminPath = (pathname: string) => pathname.split('/').includes('admin')

const ROOT_ONLY_PATHS = ADMIN_MENU.filter((item) => item.root).map((item) => item.to)

/** Whether `pathname` is a root-only page (`ADMIN_MENU`'s `root`) or below one. */
export const isRootOnlyPath = (pathname: string) =>
  ROOT_ONLY_PATHS.some((path) => pathname === path || pathname.startsWith(`${path}/`))

/** What the guard's 403 says on a root-only page, so that the page tells why (`PageError`). */
export const ROOT_ONLY = 'ROOT_ONLY'
