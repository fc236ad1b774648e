import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/cloudflare'
import { useLoaderData } from '@remix-run/react'
import { AdminProfile } from '~/features/organisation/admin-profile'
import { adminProfileAction, adminProfileLoader } from '~/features/organisation/admin-profile.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { titleMeta } from '~/lib/title'
import type { User } from '../../worker-api/contract/organisation/user'

/** Spec §2 admin/detail/user/{idUser}: a user's profile seen by an admin, reached from the user list. */
export const handle: BreadcrumbHandle = {
  breadcrumb: (data, t) => {
    const user = (data as { user?: User } | undefined)?.user
    return [
      { label: t('nav.manageUsers'), to: '/pages/admin/listeUtilisateurs' },
      { label: user ? `${user.prenom} ${user.nom}` : t('adminProfile.crumb') },
    ]
  },
}
export const meta = titleMeta

export const loader = (args: LoaderFunctionArgs) => adminProfileLoader(args)
export const action = (args: ActionFunctionArgs) => adminProfileAction(args)

export default function AdminUserDetail() {
  // The profile takes the loader's data as it is (its title aside).
  return <AdminProfile {...useLoaderData<typeof loader>()} />
}
