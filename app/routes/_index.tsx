import { type LoaderFunctionArgs, redirect } from '@remix-run/cloudflare'
import { getSession } from '~/lib/session.server'

/**
 * Spec §2: `/` leads to the login page. A signed-in user goes to their access page instead: the
 * login page ends any open session, and `/` is where the back button leads when there is no history.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const { session } = await getSession(request, context)
  return redirect(session.get('user') ? '/pages/user/acces' : '/login')
}
