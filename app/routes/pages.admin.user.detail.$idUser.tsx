import type { ActionFunctionArgs, LoaderFunctionArgs } from '@remix-run/cloudflare'
import { useLoaderData } from '@remix-run/react'
import { AdminProfile } from '~/features/organisation/admin-profile'
import { adminProfileAction, adminProfileLoader } from '~/features/organisation/admin-profile.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { titleMeta } from '~/lib/title'
import type { User } from '../../worker-api/contract/organisation/user'

/**
 * Spec §2 admin/user/detail/{idUser}: a user's profile reached through a structure (`?structure=`);
 * the breadcrumb goes structures › the structure › its users.
 */
export const handle: BreadcrumbHandle = {
  breadcrumb: (data, t) => {
    const { user, structure } = (data ?? {}) as { user?: User; structure?: { id: number; nom: string } | null }
    return [
      { label: t('nav.structures'), to: '/pages/admin/listeStructures' },
      ...(structure
        ? [
            { label: structure.nom, to: `/pages/admin/structure/detail/${structure.id}` },
            { label: t('structureUsers.crumb'), to: `/pages/admin/user/structure/${structure.id}` },
          ]
        : []),
      { label: user ? `${user.prenom} ${user.nom}` : t('adminProfile.crumb') },
    ]
  },
}
export const meta = titleMeta

export const loader = (args: LoaderFunctionArgs) => adminProfileLoader(args)
export const action = (args: ActionFunctionArgs) => adminProfileAction(args)

export default function StructureUserDetail() {
  // The profile takes the loader's data as it is (its title aside).
  return <AdminProfile {...useLoaderData<typeof loader>()} />
}
