import { type ActionFunctionArgs, redirect } from '@remix-run/cloudflare'
import { endSession } from '~/lib/auth.server'
import { toastHeaders } from '~/lib/toast.server'

/** Spec §4: sign-out logs DECONNEXION (the API does), ends the session server-side, goes to /login. */
export async function action({ request, context }: ActionFunctionArgs) {
  const headers = new Headers()
  const cleared = await endSession(request, context)
  if (cleared) headers.append('Set-Cookie', cleared)
  for (const [name, value] of Object.entries(
    await toastHeaders(request, context, { type: 'info', key: 'login.loggedOut' }),
  )) {
    headers.append(name, value)
  }
  return redirect('/login', { headers })
}

export const loader = () => redirect('/login')
