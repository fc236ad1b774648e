import { type ActionFunctionArgs, data, type LoaderFunctionArgs, redirect } from '@remix-run/cloudflare'
import { Form, Link, useLoaderData } from '@remix-run/react'
import { LogIn, LogOut, RefreshCw } from 'lucide-react'
import * as client from 'openid-client'
import { useTranslation } from 'react-i18next'
import { CenteredCard } from '~/components/centered-card'
import { Alert } from '~/components/ui/alert'
import { Button } from '~/components/ui/button'
import { DEMO_PATH } from '~/features/demo/demo-oidc'
import { type DemoSession, demoClient, demoSessionCookie, loggedOutAt } from '~/features/demo/demo-oidc.server'
import { i18nServer } from '~/lib/i18n.server'
import { pageTitle, titleMeta } from '~/lib/title'

/**
 * The OpenID Connect demo application's page: who signed in through the portal, what the ID token and
 * UserInfo said (the `postes` scope: the current posts), a refresh, a sign-out — and, once the portal
 * session ends, the back-channel logout it received, which ends its own session as a real application's.
 */
export const meta = titleMeta

export async function loader({ request, context }: LoaderFunctionArgs) {
  const session = (await demoSessionCookie(context).parse(request.headers.get('Cookie'))) as DemoSession | null
  const t = await i18nServer.getFixedT(request)
  const title = pageTitle(t, t('demoOidc.title'))
  const headers = { 'Cache-Control': 'no-store' }
  if (!session) return data({ session: null, endedAt: null, title }, { headers })
  const endedAt = await loggedOutAt(session.sid)
  if (!endedAt) return data({ session, endedAt: null, title }, { headers })
  // Told by the portal that the session ended: the demo forgets who it was, and says why, once.
  const cleared = await demoSessionCookie(context).serialize('', { maxAge: 0 })
  return data({ session: null, endedAt, title }, { headers: { ...headers, 'Set-Cookie': cleared } })
}

/** Refresh: the demo asks for new tokens, as an application does when its access token expires. */
export async function action({ request, context }: ActionFunctionArgs) {
  const cookie = demoSessionCookie(context)
  const session = (await cookie.parse(request.headers.get('Cookie'))) as DemoSession | null
  if (!session?.refreshToken) return redirect(DEMO_PATH)
  try {
    const tokens = await client.refreshTokenGrant(await demoClient(request, context), session.refreshToken)
    const next: DemoSession = {
      ...session,
      idToken: tokens.id_token ?? session.idToken,
      refreshToken: tokens.refresh_token ?? null,
      claims: (tokens.claims() as Record<string, unknown> | undefined) ?? session.claims,
    }
    return redirect(DEMO_PATH, { headers: { 'Set-Cookie': await cookie.serialize(next) } })
  } catch {
    // The portal refused (the session ended, a post ended, a grant removed): the demo's session ends.
    return redirect(`${DEMO_PATH}?refus=1`, { headers: { 'Set-Cookie': await cookie.serialize('', { maxAge: 0 }) } })
  }
}

export default function DemoOidc() {
  const { session, endedAt } = useLoaderData<typeof loader>()
  const { t } = useTranslation()
  if (!session) {
    return (
      <CenteredCard eyebrow={t('demoApp.title')} title={t('demoOidc.title')}>
        {endedAt ? (
          <Alert variant="destructive" role="alert">
            {t('demoOidc.endedByPortal')}
          </Alert>
        ) : null}
        <p>{t('demoOidc.intro')}</p>
        <Form method="get" action={`${DEMO_PATH}/login`} reloadDocument>
          <Button type="submit">
            <LogIn aria-hidden />
            {t('demoOidc.signIn')}
          </Button>
        </Form>
        <Link to="/pages/user/acces" className="text-sm text-primary underline">
          {t('demoApp.backToPortal')}
        </Link>
      </CenteredCard>
    )
  }
  const postes = (session.userinfo.postes ?? []) as { structure: { nom: string }; fonction: { libelle: string } }[]
  return (
    <CenteredCard eyebrow={t('demoApp.title')} title={t('demoOidc.title')}>
      <Alert variant="success" role="status">
        {t('demoOidc.signedInAs', { name: session.name })}
      </Alert>
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
        <dt className="font-medium">{t('demoOidc.subject')}</dt>
        <dd className="break-all">{session.sub}</dd>
        <dt className="font-medium">{t('demoOidc.login')}</dt>
        <dd className="break-all">{String(session.userinfo.preferred_username ?? '')}</dd>
        <dt className="font-medium">{t('demoOidc.mail')}</dt>
        <dd className="break-all">{String(session.userinfo.email ?? '')}</dd>
        <dt className="font-medium">{t('demoOidc.posts')}</dt>
        <dd>
          <ul>
            {postes.map((p) => (
              <li key={`${p.structure.nom}-${p.fonction.libelle}`}>
                {p.fonction.libelle} — {p.structure.nom}
              </li>
            ))}
          </ul>
        </dd>
      </dl>
      <details className="text-sm">
        <summary>{t('demoOidc.idToken')}</summary>
        <pre className="overflow-x-auto whitespace-pre-wrap break-all">{JSON.stringify(session.claims, null, 2)}</pre>
      </details>
      <div className="flex flex-wrap gap-3">
        <Form method="post" reloadDocument>
          <Button type="submit" variant="outline">
            <RefreshCw aria-hidden />
            {t('demoOidc.refresh')}
          </Button>
        </Form>
        <Form method="post" action={`${DEMO_PATH}/logout`} reloadDocument>
          <Button type="submit">
            <LogOut aria-hidden />
            {t('demoOidc.signOut')}
          </Button>
        </Form>
      </div>
      <Link to="/pages/user/acces" className="text-sm text-primary underline">
        {t('demoApp.backToPortal')}
      </Link>
    </CenteredCard>
  )
}
