import { type ActionFunctionArgs, redirect } from '@remix-run/cloudflare'
import * as client from 'openid-client'
import { DEMO_PATH, type DemoSession, demoClient, demoSessionCookie } from '~/features/demo/demo-oidc.server'

/**
 * The demo application signs out: its own session goes, and the user is sent to the portal's
 * end-session endpoint (RP-initiated logout) with its ID token as the hint, to come back here.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const session = (await demoSessionCookie(context).parse(request.headers.get('Cookie'))) as DemoSession | null
  const cleared = await demoSessionCookie(context).serialize('', { maxAge: 0 })
  if (!session) return redirect(DEMO_PATH, { headers: { 'Set-Cookie': cleared } })
  const config = await demoClient(request, context)
  const end = client.buildEndSessionUrl(config, {
    id_token_hint: session.idToken,
    post_logout_redirect_uri: `${new URL(request.url).origin}${DEMO_PATH}`,
  })
  return redirect(`${end.pathname}${end.search}`, { headers: { 'Set-Cookie': cleared } })
}

export const loader = () => redirect(DEMO_PATH)
