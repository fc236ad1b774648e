import { type ActionFunctionArgs, redirect } from '@remix-run/cloudflare'
import { callApi } from '~/lib/api.server'
import { getSession } from '~/lib/session.server'
import { toastHeaders } from '~/lib/toast.server'

/** Spec §4: sign-out logs DECONNEXION (the API does), ends the session server-side, goes to /login. */
export async function action({ request, context }: ActionFunctionArgs) {
  const session = await getSession(request, context)
  const token = session.session.get('accessToken')
  if (token) await callApi(request, context, 'bd/logout', { method: 'POST', token })
  const headers = new Headers({ 'Set-Cookie': await session.destroy() })
  for (const [name, value] of Object.entries(await toastHeaders(context, { type: 'info', key: 'login.loggedOut' }))) {
    headers.append(name, value)
  }
  return redirect('/login', { headers })
}

export const loader = () => redirect('/login')
