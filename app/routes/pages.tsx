import { data, type LoaderFunctionArgs, redirect, type SerializeFrom } from '@remix-run/cloudflare'
import { Outlet, useLoaderData, useRouteLoaderData } from '@remix-run/react'
import { Menu } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { SidebarNav } from '~/components/layout/sidebar'
import { Topbar } from '~/components/layout/topbar'
import { PageError } from '~/components/page-error'
import { currentSession, requireUser } from '~/lib/auth.server'
import { isAdminPath } from '~/lib/menu'
import { errorMeta } from '~/lib/title'

/**
 * The authenticated area (spec §2). The guard asks the API who the session is whenever this loader runs
 * (document requests and revalidations), so an ended or disabled session leaves at once; admin paths
 * send non-admins to their access page. Admin screens also guard themselves (`requireAdmin`), since
 * client-side navigation between child routes does not re-run this loader.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = await requireUser(request, context)
  // Answered from the token check the page's own API calls share: no read of its own.
  const user = await currentSession(request, auth, context)
  if (isAdminPath(new URL(request.url).pathname) && !user.admin) {
    throw redirect('/pages/user/acces', { headers: await auth.headers() })
  }
  return data({ user }, { headers: await auth.headers() })
}

/** Titles the pages it shows in place of a child that could not be shown; each child titles itself. */
export const meta = errorMeta

type SignedIn = SerializeFrom<typeof loader>['user']

export default function PagesLayout() {
  const { user } = useLoaderData<typeof loader>()
  return (
    <Shell user={user}>
      <Outlet />
    </Shell>
  )
}

/**
 * A page that could not be shown (outside the caller's scope, unknown, failed) says so inside the
 * usual layout, the same way on every page of the area; only when the layout itself could not be
 * read does the message stand alone.
 */
export function ErrorBoundary() {
  const layout = useRouteLoaderData<typeof loader>('routes/pages')
  if (!layout) {
    return (
      <main className="p-6">
        <PageError />
      </main>
    )
  }
  return (
    <Shell user={layout.user}>
      <PageError />
    </Shell>
  )
}

function Shell({ user, children }: { user: SignedIn; children: React.ReactNode }) {
  const { t } = useTranslation()
  return (
    <div className="flex min-h-screen flex-col md:flex-row">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-card focus:p-2"
      >
        {t('app.skipToContent')}
      </a>
      <aside className="relative bg-sidebar text-sidebar-foreground md:sticky md:top-0 md:flex md:h-screen md:w-64 md:shrink-0 md:flex-col">
        <div className="flex items-center justify-between px-4 py-2 md:px-6 md:py-4">
          <span className="text-lg font-semibold">{t('app.name')}</span>
        </div>
        {/* A disclosure on small screens, its button on the name's line: works without JavaScript. It
            opens the one navigation that follows it, always shown on wider screens (written once). */}
        <details className="peer md:hidden">
          <summary className="absolute top-1 right-2 flex cursor-pointer list-none items-center gap-2 rounded-md px-3 py-2 text-sm hover:bg-sidebar-accent">
            <Menu aria-hidden className="size-4" />
            {t('common.menu')}
          </summary>
        </details>
        <div className="hidden peer-open:block md:block md:min-h-0 md:flex-1 md:overflow-y-auto">
          <SidebarNav user={user} />
        </div>
        {/* While a notice is shown at the sidebar's foot (root.tsx), the foot is its height: the menu
            ends above it. */}
        <div className="hidden md:block md:h-(--notices-room) md:shrink-0" />
      </aside>
      <div className="flex min-w-0 flex-1 flex-col">
        <header className="border-b bg-card px-4 py-2 md:px-6 md:py-3">
          <Topbar />
        </header>
        <main id="main" className="flex-1 p-4 md:p-6">
          {children}
        </main>
      </div>
    </div>
  )
}
