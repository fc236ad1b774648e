import { data, type LoaderFunctionArgs, redirect } from '@remix-run/cloudflare'
import { useLoaderData } from '@remix-run/react'
import { useTranslation } from 'react-i18next'
import { RefusalPage } from '~/components/refusal-page'
import { publicApi, read } from '~/lib/api.server'
import type { Message } from '~/lib/api-errors'
import { hasSession, requireUser } from '~/lib/auth.server'
import { i18nServer } from '~/lib/i18n.server'
import { WITHOUT_SCRIPTS } from '~/lib/scripts'
import { loginRedirect } from '~/lib/session.server'
import { pageTitle, titleMeta } from '~/lib/title'
import { type AuthorizationRequest, authorizationRequestSchema, clientError } from '../../worker-api/contract/oidc/oidc'

export const meta = titleMeta
export const handle = WITHOUT_SCRIPTS

/**
 * The OpenID Connect authorization endpoint (DESIGN §4b), on the portal's session (single sign-on). An unknown client
 * or an unregistered redirect URI is said on this page, never redirected to. No consent screen: the organisation's
 * administrators granted the application.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const t = await i18nServer.getFixedT(request)
  const url = new URL(request.url)
  const parsed = authorizationRequestSchema.safeParse(Object.fromEntries(url.searchParams))
  const refused = (message: Message, status = 400) =>
    data({ message, title: pageTitle(t, t('oidc.errorTitle')) }, { status, headers: { 'Cache-Control': 'no-store' } })
  if (!parsed.success) return refused({ key: 'oidc.badRequest' })
  const request_ = parsed.data
  const prompts = (request_.prompt ?? '').split(' ')

  if (await hasSession(request, context)) {
    const auth = await requireUser(request, context)
    const result = await read(auth.api.rest.bd.oidc.authorize.$post({ json: request_ }))
    if (result.ok && result.data.action === 'redirect') return toClient(request, result.data.url, await auth.headers())
    // Sign in again (prompt=login, max_age passed, another account hinted), then come back without asking so again.
    if (result.ok) throw reauthentication(url, await auth.headers())
    if (result.status === 400 || result.status === 404) return refused(clientMessage(result.error.businessCode))
    if (result.status !== 401) return refused({ key: 'errors.technical' }, result.status)
  }
  // Nobody signed in (or the session ended): the client and its redirect URI are checked first.
  const check = await read(
    publicApi(request, context).rest.public.bd.oidc.client.$get({
      query: { client_id: request_.client_id, redirect_uri: request_.redirect_uri },
    }),
  )
  if (!check.ok) return refused(clientMessage(check.error.businessCode))
  if (prompts.includes('none')) {
    return toClient(request, clientError(request_, url.origin, 'login_required', 'Sign-in required'))
  }
  throw loginRedirect(new Request(returnAddress(url, request_)))
}

/** The message of a request the page refuses. */
function clientMessage(code: string): Message {
  return code === 'OIDC_UNKNOWN_CLIENT' || code === 'OIDC_REDIRECT_URI_MISMATCH'
    ? { key: `errors.${code}` }
    : { key: 'oidc.badRequest' }
}

/** This page's address again, without what asked for a new sign-in (it has just happened). */
function returnAddress(url: URL, request: AuthorizationRequest) {
  const back = new URL(url)
  const prompts = (request.prompt ?? '').split(' ').filter((p) => p && p !== 'login')
  if (prompts.length > 0) back.searchParams.set('prompt', prompts.join(' '))
  else back.searchParams.delete('prompt')
  back.searchParams.delete('max_age')
  back.searchParams.delete('login_hint')
  return back.toString()
}

/** A new sign-in, even though a session is open (the login page then shows its form). */
function reauthentication(url: URL, headers: HeadersInit | undefined) {
  const back = new URL(returnAddress(url, authorizationRequestSchema.parse(Object.fromEntries(url.searchParams))))
  return redirect(`/login?${new URLSearchParams({ redirect: `${back.pathname}${back.search}`, reauth: '1' })}`, {
    headers,
  })
}

/**
 * Back to the client. Reached from another site (the client's link), or by the portal's script (which
 * follows a redirect itself), a redirect; reached from the portal's own sign-in form without script, a
 * page that goes on by itself: the portal's `form-action 'self'` refuses a form's redirect to another
 * origin.
 */
function toClient(request: Request, location: string, headers?: HeadersInit) {
  const byScript = new URL(request.url).searchParams.has('_data')
  if (byScript || request.headers.get('Sec-Fetch-Site') !== 'same-origin') return redirect(location, { headers })
  return data(
    { continueTo: location, title: null as string | null },
    { headers: { ...(headers as Record<string, string> | undefined), 'Cache-Control': 'no-store' } },
  )
}

export default function Authorize() {
  const answer = useLoaderData<typeof loader>()
  const { t } = useTranslation()
  if ('continueTo' in answer) {
    const host = new URL(answer.continueTo).host
    return (
      <main className="mx-auto flex max-w-lg flex-col gap-3 p-6" aria-busy="true">
        <meta httpEquiv="refresh" content={`0;url=${answer.continueTo}`} />
        <p>{t('access.opening', { name: host })}</p>
        <a className="text-primary underline" href={answer.continueTo}>
          {t('access.openingLink', { name: host })}
        </a>
      </main>
    )
  }
  return <RefusalPage title={t('oidc.errorTitle')} message={answer.message} />
}
