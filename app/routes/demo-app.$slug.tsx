import { data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { Link, useLoaderData } from '@remix-run/react'
import { useTranslation } from 'react-i18next'
import { CenteredCard } from '~/components/centered-card'
import { Alert } from '~/components/ui/alert'
import { publicApi, read } from '~/lib/api.server'

const NAMES: Record<string, string> = {
  yard: 'Yard dangereux',
  rdv: 'Module Rendez vous',
  pesage: 'Pesage',
  suivi: 'Suivi des expéditions',
}

/**
 * A stand-in for a real application, so the launch flow can be followed end to end on a local run:
 * it exchanges the launch code at the refresh endpoint, as an integrator's back end would, then reads
 * the user with the access token it received.
 */
export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const slug = params.slug ?? ''
  const name = Object.hasOwn(NAMES, slug) ? (NAMES[slug] as string) : slug
  const code = new URL(request.url).searchParams.get('code') ?? ''
  const api = publicApi(request, context)
  const exchange = await read(api.rest.public.bd.login.refreshToken.$post({ json: { refreshToken: code } }))
  if (!exchange.ok) return data({ name, user: null }, { status: 401 })
  const claims = JSON.parse(atob(exchange.data.accessToken.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/')))
  const user = await read(
    api.rest.bd.utilisateur[':id'].$get(
      { param: { id: Number(claims.sub) }, query: {} },
      { headers: { Authorization: `Bearer ${exchange.data.accessToken}` } },
    ),
  )
  return data({ name, user: user.ok ? { prenom: user.data.prenom, nom: user.data.nom } : null })
}

export default function DemoApp() {
  const { name, user } = useLoaderData<typeof loader>()
  const { t } = useTranslation()
  return (
    <CenteredCard eyebrow={t('demoApp.title')} title={name}>
      {user ? (
        <Alert variant="success" role="status">
          {t('demoApp.connected', { name })} {user.prenom} {user.nom}
        </Alert>
      ) : (
        <Alert variant="destructive" role="alert">
          {t('demoApp.failed')}
        </Alert>
      )}
      <Link to="/pages/user/acces" className="text-sm text-primary underline">
        {t('demoApp.backToPortal')}
      </Link>
    </CenteredCard>
  )
}
