import { data, type LoaderFunctionArgs, redirect, redirectDocument } from '@remix-run/cloudflare'
import { useLoaderData } from '@remix-run/react'
import { useTranslation } from 'react-i18next'
import { AutoPost } from '~/components/auto-post'
import { RefusalPage } from '~/components/refusal-page'
import { publicApi, read } from '~/lib/api.server'
import { apiMessage, type Message } from '~/lib/api-errors'
import { hasSession, requireUser } from '~/lib/auth.server'
import { allowFormTarget } from '~/lib/form-target.server'
import { i18nServer } from '~/lib/i18n.server'
import { WITHOUT_SCRIPTS } from '~/lib/scripts'
import { pageTitle, titleMeta } from '~/lib/title'
import {
  SAML_REFUSALS,
  SAML_REQUEST_NAME_MAX,
  type SamlPost,
  type SamlRefusal,
} from '../../worker-api/contract/saml/saml'

export const meta = titleMeta
export const handle = WITHOUT_SCRIPTS

/**
 * The SAML single sign-on page (issue 62). The single sign-on service checked and kept the application's request and
 * sent the browser here (`?demande=…`), or said why it refused it (`?refus=REASON`). The user signs in if need be (the
 * portal's own sign-in: captcha, second factor, passkey) and comes back; the signed response is then posted to the
 * application by a form that goes by itself. A user the application is not granted to is told so here.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const t = await i18nServer.getFixedT(request)
  const url = new URL(request.url)
  const refused = (message: Message, status: number, denied = false) =>
    data(
      { message, denied, title: pageTitle(t, t(denied ? 'samlSso.deniedTitle' : 'samlSso.refusedTitle')) },
      { status, headers: { 'Cache-Control': 'no-store' } },
    )
  /** The response posted to the application by this page's form, which its policy then lets go there. */
  const posting = (post: SamlPost, libelle: string, headers?: HeadersInit) => {
    allowFormTarget(context, post.url)
    return data(
      { post, libelle, title: pageTitle(t, t('samlSso.title')) },
      { headers: { ...(headers as Record<string, string> | undefined), 'Cache-Control': 'no-store' } },
    )
  }
  const demande = url.searchParams.get('demande')
  if (!demande || demande.length > SAML_REQUEST_NAME_MAX) {
    const reason = url.searchParams.get('refus')
    const known: SamlRefusal = SAML_REFUSALS.find((r) => r === reason) ?? 'NOT_A_REQUEST'
    return refused({ key: `samlSso.refusals.${known}` }, 400)
  }
  // Reached by the portal's script (after its sign-in form): a document's navigation instead, which this page's
  // policy lets post to the application.
  const dest = request.headers.get('Sec-Fetch-Dest')
  if (dest !== null && dest !== 'document') throw redirectDocument(`${url.pathname}${url.search}`)

  // Asked not to be shown a sign-in (IsPassive) and nobody signed in: the application is answered so (NoPassive).
  if (url.searchParams.get('passif') === '1' && !(await hasSession(request, context))) {
    const passive = await read(publicApi(request, context).rest.public.bd.saml.passif.$post({ json: { demande } }))
    if (passive.ok) return posting(passive.data, new URL(passive.data.url).host)
  }
  const auth = await requireUser(request, context)
  const result = await auth.settle(auth.api.rest.bd.saml.reponse.$post({ json: { demande } }))
  if (!result.ok) {
    return refused(
      apiMessage(result, 'errors.technical'),
      result.status,
      result.error.businessCode === 'SAML_NOT_GRANTED',
    )
  }
  if (result.data.action === 'login') {
    // The application asked for a new sign-in: the login page shows its form even though a session is open.
    throw redirect(`/login?${new URLSearchParams({ redirect: `${url.pathname}${url.search}`, reauth: '1' })}`, {
      headers: await auth.headers(),
    })
  }
  return posting(result.data.post, result.data.libelle, await auth.headers())
}

export default function SamlSignOn() {
  const answer = useLoaderData<typeof loader>()
  const { t } = useTranslation()
  if ('post' in answer) {
    const { url, SAMLResponse, RelayState } = answer.post
    return <AutoPost action={url} fields={{ SAMLResponse, RelayState }} name={answer.libelle} />
  }
  return (
    <RefusalPage title={t(answer.denied ? 'samlSso.deniedTitle' : 'samlSso.refusedTitle')} message={answer.message} />
  )
}
