import { type ActionFunctionArgs, redirect } from '@remix-run/cloudflare'
import { endSession } from '~/lib/auth.server'
import { isHttps } from '~/lib/session.server'
import { newSamlLogoutSequence, samlLogoutCookie } from '../../worker-api/contract/saml/saml'

/**
 * Spec §4: sign-out logs DECONNEXION (the API does), ends the session server-side, goes to /login: through the SAML
 * logout page, which first tells the SAML applications the session signed into, if any, through this browser.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const suite = newSamlLogoutSequence()
  const headers = new Headers()
  const cleared = await endSession(request, context, suite)
  if (cleared) headers.append('Set-Cookie', cleared)
  // The sequence's name stays in this browser's cookie: never in an address, never sent to an application.
  headers.append('Set-Cookie', samlLogoutCookie(suite, isHttps(request)))
  return redirect('/saml/deconnexion', { headers })
}

export const loader = () => redirect('/login')
