import { data, type LoaderFunctionArgs, redirect } from '@remix-run/cloudflare'
import { Link, useLoaderData } from '@remix-run/react'
import * as client from 'openid-client'
import { useTranslation } from 'react-i18next'
import { CenteredCard } from '~/components/centered-card'
import { Alert } from '~/components/ui/alert'
import { DEMO_PATH } from '~/features/demo/demo-oidc'
import { type DemoSession, demoClient, demoSessionCookie, flowCookie } from '~/features/demo/demo-oidc.server'
import { i18nServer } from '~/lib/i18n.server'
import { pageTitle, titleMeta } from '~/lib/title'

/**
 * The demo application's redirect URI: openid-client checks the answer (state, issuer), exchanges the
 * code with the PKCE verifier, checks the ID token (signature against the JWKS, nonce, audience), then
 * reads UserInfo; the demo keeps what it learnt in its own session cookie.
 */
export const meta = titleMeta

export async function loader({ request, context }: LoaderFunctionArgs) {
  const t = await i18nServer.getFixedT(request)
  const title = pageTitle(t, t('demoOidc.title'))
  const flow = (await flowCookie(context).parse(request.headers.get('Cookie'))) as {
    verifier: string
    state: string
    nonce: string
  } | null
  const cleared = await flowCookie(context).serialize('', { maxAge: 0 })
  if (!flow) return data({ error: 'no-flow', title }, { status: 400, headers: { 'Set-Cookie': cleared } })
  try {
    const config = await demoClient(request, context)
    const tokens = await client.authorizationCodeGrant(config, new URL(request.url), {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
    })
    const claims = tokens.claims() as Record<string, unknown>
    const userinfo = (await client.fetchUserInfo(config, tokens.access_token, String(claims.sub))) as Record<
      string,
      unknown
    >
    const session: DemoSession = {
      sub: String(claims.sub),
      sid: String(claims.sid),
      name: String(userinfo.name ?? claims.sub),
      idToken: tokens.id_token as string,
      refreshToken: tokens.refresh_token ?? null,
      claims,
      userinfo,
      signedInAt: new Date().toISOString(),
    }
    const headers = new Headers({ 'Cache-Control': 'no-store' })
    headers.append('Set-Cookie', cleared)
    headers.append('Set-Cookie', await demoSessionCookie(context).serialize(session))
    return redirect(DEMO_PATH, { headers })
  } catch (error) {
    // access_denied (no current post grants the demo), a refused code…: said, not thrown.
    const code = error instanceof client.AuthorizationResponseError ? error.error : 'failed'
    return data({ error: code, title }, { status: 400, headers: { 'Set-Cookie': cleared } })
  }
}

export default function DemoCallback() {
  const { error } = useLoaderData<typeof loader>()
  const { t } = useTranslation()
  return (
    <CenteredCard eyebrow={t('demoApp.title')} title={t('demoOidc.title')}>
      <Alert variant="destructive" role="alert">
        {error === 'access_denied' ? t('demoOidc.denied') : t('demoOidc.failed', { error })}
      </Alert>
      <Link to={DEMO_PATH} className="text-sm text-primary underline">
        {t('demoOidc.back')}
      </Link>
    </CenteredCard>
  )
}
