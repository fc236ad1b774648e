import { type ActionFunctionArgs, data } from '@remix-run/cloudflare'
import { Link, useActionData } from '@remix-run/react'
import { useTranslation } from 'react-i18next'
import { AutoPost } from '~/components/auto-post'
import { Alert } from '~/components/ui/alert'
import { requireUser } from '~/lib/auth.server'
import { formReply, readForm, submitted } from '~/lib/form.server'
import { allowFormTarget } from '~/lib/form-target.server'
import { WITHOUT_SCRIPTS } from '~/lib/scripts'

/**
 * Opens an application in the tab the launch form targeted, by a refresh to a URL with a single-use code. The page
 * ships no script, so there is one navigation only (a second would spend the code); not a redirect, since the portal's
 * `form-action 'self'` refuses a form's redirect to another origin. A SAML application's response is posted to it by a
 * form, which this page's policy then allows.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const auth = await requireUser(request, context)
  const form = await readForm(request)
  const failed = async () =>
    formReply('launch', submitted(form).reply(), { key: 'errors.launchFailed' }, await auth.headers())
  const id = Number(form.get('idApplication'))
  if (!Number.isSafeInteger(id) || id <= 0) return failed()
  const launch = await auth.settle(auth.api.rest.bd.acces.application.$get({ query: { idApplication: id } }))
  if (!launch.ok) return failed()
  // A SAML application is posted its signed response (a form that goes by itself).
  const { url, saml } = launch.data
  if (saml) allowFormTarget(context, url)
  return data({ url, saml: saml ?? null }, { headers: await auth.headers() })
}

// The page renders after the action (document POST); opened directly it only offers the way back.
export const loader = () => null

export const handle = WITHOUT_SCRIPTS

export default function Launch() {
  const answer = useActionData<typeof action>()
  const result = answer && 'url' in answer ? answer : null
  const { t } = useTranslation()
  if (!result) {
    return (
      <main className="mx-auto max-w-lg p-6">
        <Alert variant="destructive" role="alert">
          {t('errors.launchFailed')}
        </Alert>
        <Link to="/pages/user/acces" className="mt-4 inline-block text-primary underline">
          {t('demoApp.backToPortal')}
        </Link>
      </main>
    )
  }
  if (result.saml) {
    const { SAMLResponse, RelayState } = result.saml
    return <AutoPost action={result.url} fields={{ SAMLResponse, RelayState }} name={new URL(result.url).host} />
  }
  return (
    <main className="mx-auto flex max-w-lg flex-col gap-3 p-6" aria-busy="true">
      <meta httpEquiv="refresh" content={`0;url=${result.url}`} />
      <p>{t('access.opening', { name: new URL(result.url).host })}</p>
      <a className="text-primary underline" href={result.url}>
        {t('access.openingLink', { name: new URL(result.url).host })}
      </a>
    </main>
  )
}
