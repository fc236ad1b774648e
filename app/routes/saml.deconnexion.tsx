import { data, type LoaderFunctionArgs, type MetaFunction, redirect, redirectDocument } from '@remix-run/cloudflare'
import { useLoaderData } from '@remix-run/react'
import { useTranslation } from 'react-i18next'
import { AutoPost } from '~/components/auto-post'
import { RefusalPage } from '~/components/refusal-page'
import { buttonVariants } from '~/components/ui/button'
import { takeProviderSignOut } from '~/features/federation/binding.server'
import { publicApi, read } from '~/lib/api.server'
import { allowFormTarget } from '~/lib/form-target.server'
import { i18nServer } from '~/lib/i18n.server'
import { WITHOUT_SCRIPTS } from '~/lib/scripts'
import { getSession, isHttps, portalSessionOf } from '~/lib/session.server'
import { pageTitle, titleMeta } from '~/lib/title'
import { toastHeaders } from '~/lib/toast.server'
import { cookieValue } from '../../worker-api/contract/cookies'
import {
  SAML_LOGOUT_COOKIE,
  SAML_REFUSALS,
  type SamlRefusal,
  samlLogoutCookie,
} from '../../worker-api/contract/saml/saml'
import { samlLogoutSequenceSchema } from '../../worker-api/contract/sign-in/auth'

/** A message carried in an address goes by the page's refresh: a redirect would be refused after the sign-out form. */
export const meta: MetaFunction<typeof loader> = (args) => {
  const go = args.data && 'go' in args.data ? args.data.go : null
  return [...titleMeta(args), ...(go ? [{ httpEquiv: 'refresh', content: `0;url=${go}` }] : [])]
}
export const handle = WITHOUT_SCRIPTS

/**
 * The SAML logout page (issue 62): it walks the browser through the logout sequence its cookie names (set by the
 * sign-out, or by the single logout service when an application asked). Each SAML application the ended
 * portal session signed into is sent its signed logout request (by its address, or a form that goes by itself), answers
 * back to the portal's single logout service, which sends the browser here again; then the application that asked for
 * the logout, if one did, gets its answer; then the portal's sign-in page. A message the single logout service refused
 * is said here (`?refus=REASON`).
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const t = await i18nServer.getFixedT(request)
  const url = new URL(request.url)
  const reason = url.searchParams.get('refus')
  if (reason !== null) {
    const known: SamlRefusal = SAML_REFUSALS.find((r) => r === reason) ?? 'NOT_A_REQUEST'
    return data(
      { message: { key: `samlSlo.refusals.${known}` }, title: pageTitle(t, t('samlSlo.refusedTitle')) },
      { status: 400, headers: { 'Cache-Control': 'no-store' } },
    )
  }
  // Reached by the portal's script (its sign-out form): a document's navigation instead, whose policy lets a form go
  // to the application.
  const dest = request.headers.get('Sec-Fetch-Dest')
  if (dest !== null && dest !== 'document') throw redirectDocument(url.pathname)

  // The sequence this browser carries: its cookie's (none, or not one: nothing to tell).
  const suite = samlLogoutSequenceSchema.safeParse(cookieValue(request.headers.get('Cookie'), SAML_LOGOUT_COOKIE))
  const { session, destroy } = await getSession(request, context)
  const step = suite.success
    ? await read(
        publicApi(request, context).rest.public.bd.saml.deconnexion.$post({
          json: { suite: suite.data, sessionPortail: portalSessionOf(session.get('accessToken')) },
        }),
      )
    : null
  const headers = new Headers({ 'Cache-Control': 'no-store' })
  // The sequence ended this browser's own portal session (an application asked): the browser forgets it.
  if (step?.ok && step.data.sessionFinie) headers.append('Set-Cookie', await destroy())
  const message = step?.ok ? step.data.message : null
  if (!step?.ok || !message) {
    // Nothing more to tell: the sequence is over for this browser.
    headers.append('Set-Cookie', samlLogoutCookie(null, isHttps(request)))
    // Last, the partner's identity provider the session was opened through: its own sign-out, back to /login.
    const provider = await takeProviderSignOut(request, context.cloudflare.env.SESSION_SECRET)
    if (provider.kept && provider.cleared) {
      headers.append('Set-Cookie', provider.cleared)
      return data(
        { go: provider.kept.url, libelle: provider.kept.nom, title: pageTitle(t, t('samlSlo.title')) },
        { headers },
      )
    }
    for (const [name, value] of Object.entries(
      await toastHeaders(request, context, { type: 'info', key: 'login.loggedOut' }),
    )) {
      headers.append(name, value)
    }
    throw redirect('/login', { headers })
  }
  const libelle = step.data.libelle ?? new URL(message.url).host
  const title = pageTitle(t, t('samlSlo.title'))
  // Not a redirect: the browser may come from the portal's sign-out form, whose policy (form-action 'self') would
  // refuse a redirect to another site.
  if (message.binding === 'redirect') return data({ go: message.url, libelle, title }, { headers })
  allowFormTarget(context, message.url)
  return data({ post: message, libelle, title }, { headers })
}

export default function SamlSignOut() {
  const answer = useLoaderData<typeof loader>()
  const { t } = useTranslation()
  if ('post' in answer) {
    const { url, champ, valeur, RelayState } = answer.post
    return <AutoPost action={url} fields={{ [champ]: valeur, RelayState }} name={answer.libelle} signingOut />
  }
  if ('go' in answer) {
    return (
      <main className="mx-auto flex max-w-lg flex-col gap-3 p-6" aria-busy="true">
        <h1 className="font-semibold text-xl">{t('samlSso.signingOut', { name: answer.libelle })}</h1>
        <p className="text-muted-foreground text-sm">{t('samlSso.postingHint')}</p>
        <a href={answer.go} className={buttonVariants({ className: 'self-start' })}>
          {t('samlSso.signingOutContinue', { name: answer.libelle })}
        </a>
      </main>
    )
  }
  return <RefusalPage title={t('samlSlo.refusedTitle')} message={answer.message} />
}
