import { type ActionFunctionArgs, redirect } from '@remix-run/cloudflare'
import { keepProviderSignOut } from '~/features/federation/binding.server'
import { read, userApi } from '~/lib/api.server'
import { endSession } from '~/lib/auth.server'
import { getSession, isHttps } from '~/lib/session.server'
import { newSamlLogoutSequence, samlLogoutCookie } from '../../worker-api/contract/saml/saml'

/**
 * Spec §4: sign-out logs DECONNEXION (the API does), ends the session server-side, goes to /login: through the SAML
 * logout page, which first tells the SAML applications the session signed into, if any, through this browser, then
 * the partner's identity provider the session was opened through, if it has a sign-out.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const suite = newSamlLogoutSequence()
  const headers = new Headers()
  // A session opened through a partner's provider: its sign-out is read now (the portal's revokes the token that
  // asks) and followed once the applications are told.
  const session = await getSession(request, context)
  if (session.session.get('fournisseur') && session.session.get('accessToken')) {
    const signOut = await read(userApi(request, context, session).api.rest.bd.session.fournisseur.$get())
    if (signOut.ok && signOut.data.url) {
      const kept = { url: signOut.data.url, nom: signOut.data.nom ?? '' }
      headers.append('Set-Cookie', await keepProviderSignOut(request, context.cloudflare.env.SESSION_SECRET, kept))
    }
  }
  const cleared = await endSession(request, context, suite)
  if (cleared) headers.append('Set-Cookie', cleared)
  // The sequence's name stays in this browser's cookie: never in an address, never sent to an application.
  headers.append('Set-Cookie', samlLogoutCookie(suite, isHttps(request)))
  return redirect('/saml/deconnexion', { headers })
}

export const loader = () => redirect('/login')
