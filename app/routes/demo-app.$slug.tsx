import { data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { Link, useLoaderData } from '@remix-run/react'
import { useTranslation } from 'react-i18next'
import { Alert } from '~/components/ui/alert'
import { Card, CardContent, CardHeader } from '~/components/ui/card'
import { callApi } from '~/lib/api.server'
import type { User } from '../../worker-api/services/users'

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
  const exchange = await callApi<{ accessToken: string }>(request, context, 'public/bd/login/refreshToken', {
    method: 'POST',
    body: { refreshToken: code },
  })
  if (!exchange.ok) return data({ name, user: null }, { status: 401 })
  const claims = JSON.parse(atob(exchange.data.accessToken.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/')))
  const user = await callApi<User>(request, context, `bd/utilisateur/${claims.sub}`, {
    token: exchange.data.accessToken,
  })
  return data({ name, user: user.ok ? { prenom: user.data.prenom, nom: user.data.nom } : null })
}

export default function DemoApp() {
  const { name, user } = useLoaderData<typeof loader>()
  const { t } = useTranslation()
  return (
    <main id="main" className="flex min-h-screen items-center justify-center bg-muted p-4">
      <Card className="w-full max-w-md">
        <CardHeader>
          <p className="text-sm text-muted-foreground">{t('demoApp.title')}</p>
          <h1 className="text-2xl font-semibold">{name}</h1>
        </CardHeader>
        <CardContent className="flex flex-col gap-4">
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
        </CardContent>
      </Card>
    </main>
  )
}
