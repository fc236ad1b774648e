import { type ActionFunctionArgs, data, type LoaderFunctionArgs, redirect } from '@remix-run/cloudflare'
import { Form, Link, useLoaderData } from '@remix-run/react'
import { LogOut } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { CenteredCard } from '~/components/centered-card'
import { Alert } from '~/components/ui/alert'
import { Button } from '~/components/ui/button'
import { publicApi, read } from '~/lib/api.server'
import { endSession } from '~/lib/auth.server'
import { readForm } from '~/lib/form.server'
import { i18nServer } from '~/lib/i18n.server'
import { WITHOUT_SCRIPTS } from '~/lib/scripts'
import { getSession, portalSessionOf } from '~/lib/session.server'
import { pageTitle, titleMeta } from '~/lib/title'
import { type LogoutRequest, logoutRequestSchema } from '../../worker-api/contract/oidc/oidc'

export const meta = titleMeta
export const handle = WITHOUT_SCRIPTS

/**
 * RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0; DESIGN §4b), GET or POST. Only an ID token hint of the
 * very session signed in here (its `sid`) ends it at once; any other hint, or none, and the user confirms first.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  return logout(request, context, Object.fromEntries(new URL(request.url).searchParams), false)
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await readForm(request)
  const fields = Object.fromEntries([...form].filter(([, v]) => typeof v === 'string')) as Record<string, string>
  return logout(request, context, fields, fields.confirm === '1')
}

async function logout(
  request: Request,
  context: ActionFunctionArgs['context'],
  fields: Record<string, string>,
  confirmed: boolean,
) {
  const t = await i18nServer.getFixedT(request)
  const title = pageTitle(t, t('oidc.logoutTitle'))
  const parsed = logoutRequestSchema.safeParse(fields)
  const page = (state: 'confirm' | 'done' | 'refused', libelle: string | null, params: LogoutRequest = {}) =>
    data({ state, libelle, params, title }, { status: state === 'refused' ? 400 : 200, headers: NO_STORE })
  if (!parsed.success) return page('refused', null)
  const { session } = await getSession(request, context)
  const user = session.get('user')
  const sessionPortail = portalSessionOf(session.get('accessToken'))
  const target = await read(
    publicApi(request, context).rest.public.bd.oidc.logout.$post({ json: { ...parsed.data, sessionPortail } }),
  )
  if (!target.ok) return page('refused', null)
  // The hint is of this very session: no need to ask. Another session's, anyone else's, or none: ask.
  const hinted = user && target.data.memeSession && target.data.sub === String(user.id)
  if (user && !hinted && !confirmed) return page('confirm', target.data.libelle, parsed.data)
  const headers = new Headers(NO_STORE)
  const cleared = user ? await endSession(request, context) : null
  if (cleared) headers.append('Set-Cookie', cleared)
  const back = target.data.redirectTo
  if (!back) return data({ state: 'done' as const, libelle: target.data.libelle, params: {}, title }, { headers })
  // A form's redirect to another origin is refused by the portal's form-action 'self': a page goes on.
  const byScript = new URL(request.url).searchParams.has('_data')
  if (byScript || (request.method === 'GET' && request.headers.get('Sec-Fetch-Site') !== 'same-origin')) {
    return redirect(back, { headers })
  }
  return data(
    { state: 'done' as const, libelle: target.data.libelle, params: {}, title, continueTo: back },
    { headers },
  )
}

const NO_STORE = { 'Cache-Control': 'no-store' }

export default function OidcLogout() {
  const answer = useLoaderData<typeof loader>() as {
    state: 'confirm' | 'done' | 'refused'
    libelle: string | null
    params: LogoutRequest
    continueTo?: string
  }
  const { t } = useTranslation()
  if (answer.state === 'refused') {
    return (
      <CenteredCard eyebrow={t('app.tagline')} title={t('oidc.logoutTitle')}>
        <Alert variant="destructive" role="alert">
          {t('oidc.logoutRefused')}
        </Alert>
        <Link to="/pages/user/acces" className="text-primary underline">
          {t('demoApp.backToPortal')}
        </Link>
      </CenteredCard>
    )
  }
  if (answer.state === 'confirm') {
    return (
      <CenteredCard eyebrow={t('app.tagline')} title={t('oidc.logoutTitle')}>
        <p>{answer.libelle ? t('oidc.logoutAskFrom', { libelle: answer.libelle }) : t('oidc.logoutAsk')}</p>
        <Form method="post" className="flex flex-wrap gap-3">
          {Object.entries(answer.params).map(([name, value]) =>
            value === undefined ? null : <input key={name} type="hidden" name={name} value={value} />,
          )}
          <input type="hidden" name="confirm" value="1" />
          <Button type="submit">
            <LogOut aria-hidden />
            {t('oidc.logoutConfirm')}
          </Button>
          <Button asChild variant="outline">
            <Link to="/pages/user/acces">{t('oidc.logoutStay')}</Link>
          </Button>
        </Form>
      </CenteredCard>
    )
  }
  return (
    <CenteredCard eyebrow={t('app.tagline')} title={t('oidc.logoutTitle')}>
      {answer.continueTo ? <meta httpEquiv="refresh" content={`0;url=${answer.continueTo}`} /> : null}
      <p role="status">{t('oidc.loggedOut')}</p>
      {answer.continueTo ? (
        <a className="text-primary underline" href={answer.continueTo}>
          {t('oidc.backTo', { libelle: answer.libelle ?? new URL(answer.continueTo).host })}
        </a>
      ) : (
        <Link to="/login" className="text-primary underline">
          {t('oidc.signInAgain')}
        </Link>
      )}
    </CenteredCard>
  )
}
